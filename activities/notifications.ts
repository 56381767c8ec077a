import nodemailer from 'nodemailer';
import { inTransaction } from '../src/db/transaction';
import { outboxRetryDelayMs } from '../src/notifications/outbox-backoff';
import type { ActivityDeps } from './deps';

const BATCH = 50;
/** Bounds one run; the next scheduled run continues with the rest. */
const MAX_BATCHES_PER_RUN = 20;

export interface DeliverNotificationsResult {
  sent: number;
  failed: number;
  held: boolean;
}

interface OutboxRow {
  id: string;
  to_address: string;
  subject: string;
  body: string;
  attempts: number;
}

export function createNotificationActivities(
  deps: Pick<ActivityDeps, 'orm' | 'logger' | 'now' | 'smtpUrl' | 'mailFrom'>,
) {
  const transport = deps.smtpUrl ? nodemailer.createTransport(deps.smtpUrl) : null;
  return {
    /**
     * Sends due outbox e-mails over SMTP. Without SMTP_URL (development) the mails stay in the outbox, where
     * `labelctl outbox` shows them. A batch is claimed with FOR UPDATE SKIP LOCKED inside one transaction, so an
     * overlapping run (a retry while the first attempt still sends) skips the rows the first one holds and never sends
     * them twice. A failed mail is never dropped: it waits with exponential backoff (`next_attempt_at`).
     */
    async deliverNotifications(): Promise<DeliverNotificationsResult> {
      if (!transport) return { sent: 0, failed: 0, held: true };
      let sent = 0;
      let failed = 0;
      const deliverBatch = () =>
        inTransaction(deps.orm, async (tx) => {
          const rows = await tx.execute<OutboxRow[]>(
            `select id, to_address, subject, body, attempts from notifications
              where sent_at is null and next_attempt_at <= ? order by next_attempt_at, id limit ? for update skip locked`,
            [deps.now(), BATCH],
          );
          for (const row of rows) {
            try {
              await transport.sendMail({
                from: deps.mailFrom,
                to: row.to_address,
                subject: row.subject,
                text: row.body,
              });
              await tx.execute(
                'update notifications set sent_at = ?, attempts = attempts + 1, last_error = null where id = ?',
                [deps.now(), row.id],
              );
              sent += 1;
            } catch (error) {
              const retryAt = new Date(deps.now().getTime() + outboxRetryDelayMs(row.attempts + 1));
              await tx.execute(
                'update notifications set attempts = attempts + 1, last_error = ?, next_attempt_at = ? where id = ?',
                [(error as Error).message.slice(0, 500), retryAt, row.id],
              );
              failed += 1;
            }
          }
          return rows.length;
        });
      for (let batch = 0; batch < MAX_BATCHES_PER_RUN; batch += 1) {
        // A failure means SMTP trouble: leave the rest to the next run instead of retrying at once.
        if ((await deliverBatch()) < BATCH || failed > 0) break;
      }
      return { sent, failed, held: false };
    },
  };
}

import nodemailer from 'nodemailer';
import type { ActivityDeps } from './deps';

const BATCH = 50;
/** Bounds one run; the next scheduled run continues with the rest. */
const MAX_BATCHES_PER_RUN = 20;
const MAX_ATTEMPTS = 10;

export interface DeliverNotificationsResult {
  sent: number;
  failed: number;
  held: boolean;
}

export function createNotificationActivities(deps: ActivityDeps) {
  const transport = deps.smtpUrl ? nodemailer.createTransport(deps.smtpUrl) : null;
  return {
    /**
     * Sends pending outbox e-mails over SMTP. Without SMTP_URL (development) the mails stay in the outbox, where
     * `labelctl outbox` shows them. Rows are claimed with SKIP LOCKED so overlapping runs never send twice.
     */
    async deliverNotifications(): Promise<DeliverNotificationsResult> {
      if (!transport) return { sent: 0, failed: 0, held: true };
      let sent = 0;
      let failed = 0;
      const deliverBatch = () =>
        deps.orm.em.fork().transactional(async (em) => {
          const conn = em.getConnection();
          const rows = await conn.execute<Array<{ id: string; to_address: string; subject: string; body: string }>>(
            `select id, to_address, subject, body from notifications
           where sent_at is null and attempts < ? order by created_at limit ? for update skip locked`,
            [MAX_ATTEMPTS, BATCH],
          );
          for (const row of rows) {
            try {
              await transport.sendMail({
                from: deps.mailFrom,
                to: row.to_address,
                subject: row.subject,
                text: row.body,
              });
              await conn.execute(
                'update notifications set sent_at = ?, attempts = attempts + 1, last_error = null where id = ?',
                [deps.now(), row.id],
              );
              sent += 1;
            } catch (error) {
              await conn.execute('update notifications set attempts = attempts + 1, last_error = ? where id = ?', [
                (error as Error).message.slice(0, 500),
                row.id,
              ]);
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

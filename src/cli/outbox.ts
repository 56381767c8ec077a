import type { Command } from 'commander';
import { Notification } from '../db/entities/notification';
import { isoSeconds, isoSecondsOrNull } from '../domain/wire-format';
import { positive, type CliKit, type Row } from './kit';

/** `sent`, `pending`, or for a mail whose sends failed: waiting for its next attempt after backoff. */
const outboxState = (r: Row): string => {
  if (r.sent_at) return 'sent';
  if (Number(r.attempts) === 0) return 'pending';
  return `waiting (${String(r.attempts)} failed, next ${String(r.next_attempt_at)}: ${String(r.last_error)})`;
};

const mailRow = (n: Notification): Row => ({
  id: String(n.id),
  store_id: n.storeId,
  kind: n.kind,
  to: n.toAddress,
  subject: n.subject,
  body: n.body,
  created_at: isoSeconds(n.createdAt),
  sent_at: isoSecondsOrNull(n.sentAt),
  attempts: n.attempts,
  last_error: n.lastError,
  next_attempt_at: n.sentAt ? null : isoSeconds(n.nextAttemptAt),
});

const mailText = (r: Row): string =>
  `#${String(r.id)} ${String(r.created_at)} ${outboxState(r)} to ${String(r.to)}\n  ${String(r.subject)}\n  ${String(r.body).replace(/\n/g, '\n  ')}`;

/** `labelctl outbox`: the notification e-mails, sent or waiting. */
export function registerOutboxCommand(program: Command, kit: CliKit): void {
  program
    .command('outbox')
    .description('notification e-mails, newest first (in development nothing is sent without SMTP_URL)')
    .option('--store <store>', 'only this store (ID or domain)')
    .option('--limit <n>', 'how many', positive, 20)
    .action(async (opts: { store?: string; limit: number }) => {
      const rows = await kit.withOrm(async (em) => {
        const where = opts.store ? { storeId: (await kit.findStore(em, opts.store)).id } : {};
        const mails = await em.find(Notification, where, {
          orderBy: { createdAt: 'desc', id: 'desc' },
          limit: opts.limit,
        });
        return mails.map(mailRow);
      });
      kit.print(rows, () => rows.map(mailText).join('\n\n') || '(empty)');
    });
}

import type { Command } from 'commander';
import { isoSeconds } from '../domain/wire-format';
import { pendingRedactions, type PendingRedaction } from '../privacy/pending-redactions';
import type { CliKit, Row } from './kit';

const DAY_MS = 86_400_000;

const redactionRow = (r: PendingRedaction, now: Date): Row => ({
  webhook_id: r.webhookId,
  store_id: r.storeId,
  shop: r.shop,
  topic: r.topic,
  requested_at: isoSeconds(r.requestedAt),
  age_days: Math.floor((now.getTime() - r.requestedAt.getTime()) / DAY_MS),
  deadline: isoSeconds(r.deadline),
  overdue: r.overdue,
  blocked_by: r.blockedBy.map((c) => `${c.id} (${c.status})`),
});

function redactionText(rows: Row[]): string {
  if (rows.length === 0) return 'no redaction waits';
  return rows
    .map((r) => {
      const blocked = r.blocked_by as string[];
      const head = `${String(r.topic)} for ${String(r.shop)} (webhook ${String(r.webhook_id)}), asked ${String(
        r.requested_at,
      )}, ${String(r.age_days)} days ago; Shopify's deadline ${String(r.deadline)}${r.overdue ? ' — OVERDUE' : ''}`;
      return blocked.length === 0
        ? `${head}\n  waits for nothing: its workflow runs it at its next look`
        : `${head}\n  blocked by ${blocked.join(', ')}: resolve with labelctl creations resolve <creation>`;
    })
    .join('\n');
}

/**
 * `labelctl store privacy [<store>]`: the redactions Shopify asked for that are not done, oldest first, with the
 * creations each waits for (docs/operators.md, "Privacy"; decision 0718). A `needs_attention` creation blocks its
 * orders' redaction until an operator resolves it.
 */
export function registerStorePrivacyCommands(store: Command, kit: CliKit): void {
  store
    .command('privacy [store]')
    .description('redactions Shopify asked for that are not done, with the creations blocking each (ID or domain)')
    .action(async (ref: string | undefined) => {
      const now = new Date();
      const rows = await kit.withOrm(async (em) => {
        const storeId = ref ? (await kit.findStore(em, ref)).id : undefined;
        return (await pendingRedactions(em, { storeId, now })).map((r) => redactionRow(r, now));
      });
      kit.print(rows, () => redactionText(rows));
    });
}

import type { EntityManager } from '@mikro-orm/postgresql';
import { creationsInFlight } from './personal-data';

/** Shopify expects a redaction done within 30 days of its request (decision 0718). */
export const REDACTION_DEADLINE_DAYS = 30;
/** A redaction still waiting this long is overdue for operators: five days are left to unblock it. */
export const REDACTION_OVERDUE_AFTER_DAYS = 25;

const DAY_MS = 86_400_000;
const REDACTION_TOPICS = `('customers/redact', 'shop/redact')`;

/** SQL of the redactions not done yet, asked since before `$1` (the request's time: Shopify's, else received). */
export const OVERDUE_REDACTIONS_SQL = `select count(*)::int from shopify_webhooks
  where processed_at is null and topic in ${REDACTION_TOPICS} and coalesce(triggered_at, received_at) < ?`;
/** SQL of the oldest request among the redactions not done yet. */
export const OLDEST_REDACTION_SQL = `select min(coalesce(triggered_at, received_at)) from shopify_webhooks
  where processed_at is null and topic in ${REDACTION_TOPICS}`;

/** The time before which a redaction still waiting is overdue. */
export const overdueCutoff = (now: Date): Date => new Date(now.getTime() - REDACTION_OVERDUE_AFTER_DAYS * DAY_MS);

export interface PendingRedaction {
  webhookId: string;
  storeId: string;
  shop: string;
  topic: string;
  requestedAt: Date;
  deadline: Date;
  overdue: boolean;
  /** The creations of its orders still in flight (`processing` or `needs_attention`): what the redaction waits for. */
  blockedBy: Array<{ id: string; status: string }>;
}

const ids = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((v) => typeof v === 'number' || typeof v === 'string').map(String) : [];

/**
 * The redactions Shopify asked for that are not done, oldest first, each with the creations it waits for (a
 * `needs_attention` creation waits for an operator's `labelctl creations resolve`). A store's only, or every store's.
 */
export async function pendingRedactions(
  em: EntityManager,
  input: { storeId?: string; now: Date },
): Promise<PendingRedaction[]> {
  const rows = await em.execute<
    Array<{
      webhook_id: string;
      store_id: string;
      shop_domain: string;
      topic: string;
      requested_at: Date;
      payload: { orders_to_redact?: unknown } | null;
    }>
  >(
    `select webhook_id, store_id, shop_domain, topic, coalesce(triggered_at, received_at) as requested_at, payload
       from shopify_webhooks
      where processed_at is null and topic in ${REDACTION_TOPICS}${input.storeId ? ' and store_id = ?' : ''}
      order by requested_at limit 1000`,
    input.storeId ? [input.storeId] : [],
  );
  const cutoff = overdueCutoff(input.now);
  const pending: PendingRedaction[] = [];
  for (const row of rows) {
    const requestedAt = new Date(row.requested_at);
    const orderLegacyIds = row.topic === 'shop/redact' ? null : ids(row.payload?.orders_to_redact);
    const inFlight = await creationsInFlight(em, { storeId: row.store_id, orderLegacyIds });
    const statuses = inFlight.length
      ? await em.execute<Array<{ id: string; status: string }>>(
          `select id, status from label_creations where id in (${inFlight.map(() => '?').join(', ')}) order by id`,
          inFlight,
        )
      : [];
    pending.push({
      webhookId: row.webhook_id,
      storeId: row.store_id,
      shop: row.shop_domain,
      topic: row.topic,
      requestedAt,
      deadline: new Date(requestedAt.getTime() + REDACTION_DEADLINE_DAYS * DAY_MS),
      overdue: requestedAt < cutoff,
      blockedBy: statuses,
    });
  }
  return pending;
}

import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * Where the service keeps personal data, and what Shopify's privacy webhooks do to it (docs/decisions/0708, the one
 * list; every column it names is covered by test/integration/shopify-privacy.test.ts). Everything is found by the
 * store and, for a customer, by the orders Shopify names (`orders_to_redact`, `orders_requested`): the service keys
 * every record by order and never by customer.
 *
 * JSON columns are redacted field by field: the keys below are nulled wherever they occur (the recipient, address,
 * phone, e-mail and pickup point of the carrier call, the merchant's free texts that may name a customer, and the raw
 * values a validation issue echoes), so what the spec needs of a record (status, carrier, amounts, tracking, the
 * decision) stays.
 */
export const PERSONAL_KEYS: ReadonlySet<string> = new Set([
  'recipient',
  'address',
  'phone',
  'email',
  'pickupPoint',
  'pickup_point',
  'client_reference',
  'clientReference',
  'note',
  'raw',
]);

/** The value with every personal key nulled, at any depth; null when nothing changed (no write needed). */
export function redactJson(value: unknown): { value: unknown; changed: boolean } {
  if (Array.isArray(value)) {
    let changed = false;
    const items = value.map((item) => {
      const r = redactJson(item);
      changed ||= r.changed;
      return r.value;
    });
    return { value: items, changed };
  }
  if (value === null || typeof value !== 'object') return { value, changed: false };
  let changed = false;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    if (PERSONAL_KEYS.has(key)) {
      out[key] = null;
      changed ||= item !== null;
      continue;
    }
    const r = redactJson(item);
    changed ||= r.changed;
    out[key] = r.value;
  }
  return { value: out, changed };
}

/** A customer's orders (numeric IDs as Shopify sends them), or every order of the store. */
export interface PersonalDataScope {
  storeId: string;
  /** Null: the whole store (`shop/redact`). */
  orderLegacyIds: readonly string[] | null;
}

const BATCH = 500;

const orderFilter = (scope: PersonalDataScope, alias: string) =>
  scope.orderLegacyIds === null
    ? { sql: '', values: [] as unknown[] }
    : { sql: ` and ${alias}.order_legacy_id = any(?::text[])`, values: [`{${scope.orderLegacyIds.join(',')}}`] };

/** Creations of the scope still in flight: their send plan is what a retry of the carrier call carries on from. */
export async function creationsInFlight(em: EntityManager, scope: PersonalDataScope): Promise<string[]> {
  const f = orderFilter(scope, 'c');
  const rows = await em.execute<Array<{ id: string }>>(
    `select c.id from label_creations c
      where c.store_id = ? and c.status in ('processing', 'needs_attention')${f.sql} order by c.id`,
    [scope.storeId, ...f.values],
  );
  return rows.map((r) => r.id);
}

export interface RedactionReport {
  creations: number;
  labelDocuments: number;
  webhookEvents: number;
  webhookAttempts: number;
  notifications: number;
  requestLogIps: number;
  /** Creations of the scope not touched because they are still in flight. */
  inFlight: string[];
}

const JSON_COLUMNS = ['requested', 'resolved', 'warnings', 'error', 'resolution', 'send_plan'] as const;

/** `label_creations`: the JSON columns field by field and `client_reference`, for every creation no longer in flight. */
async function redactCreations(em: EntityManager, scope: PersonalDataScope): Promise<number> {
  const f = orderFilter(scope, 'c');
  let redacted = 0;
  let after = '';
  for (;;) {
    const rows = await em.execute<Array<Record<string, unknown> & { id: string; client_reference: string | null }>>(
      `select c.id, c.client_reference, ${JSON_COLUMNS.map((col) => `c.${col}`).join(', ')} from label_creations c
        where c.store_id = ? and c.status not in ('processing', 'needs_attention') and c.id > ?${f.sql}
        order by c.id limit ${BATCH}`,
      [scope.storeId, after, ...f.values],
    );
    for (const row of rows) {
      const changes = JSON_COLUMNS.map((col) => ({ col, ...redactJson(row[col]) }));
      if (!changes.some((c) => c.changed) && row.client_reference === null) continue;
      await em.execute(
        `update label_creations set client_reference = null, ${JSON_COLUMNS.map((col) => `${col} = ?::jsonb`).join(', ')}
          where id = ?`,
        [...changes.map((c) => (c.value === null || c.value === undefined ? null : JSON.stringify(c.value))), row.id],
      );
      redacted += 1;
    }
    if (rows.length < BATCH) return redacted;
    after = rows[rows.length - 1]!.id;
  }
}

/**
 * `labels` and `label_documents`: the stored PDF (the recipient's name, address and phone are printed on it) is
 * deleted and the label marked, so it answers `not_reissuable` and is never rendered at the carrier again; the label
 * itself, which holds no personal data, stays for what the spec needs of it (tracking, COD, coverage, current sets).
 */
async function redactLabelDocuments(em: EntityManager, scope: PersonalDataScope): Promise<number> {
  const f = orderFilter(scope, 'l');
  const rows = await em.execute<Array<{ id: string }>>(
    `update labels l set document_redacted = true
      where l.store_id = ? and l.document_redacted = false${f.sql} returning l.id`,
    [scope.storeId, ...f.values],
  );
  if (rows.length === 0) return 0;
  const deleted = await em.execute<Array<{ label_id: string }>>(
    `delete from label_documents where label_id = any(?::text[]) returning label_id`,
    [`{${rows.map((r) => r.id).join(',')}}`],
  );
  return deleted.length;
}

/**
 * `webhook_events.payload` (the creation objects `label_creation.updated` sent, kept for redelivery) field by field,
 * and `webhook_delivery_attempts.response_excerpt` of those events (a receiver may echo what it got).
 */
async function redactWebhookEvents(
  em: EntityManager,
  scope: PersonalDataScope,
): Promise<{ events: number; attempts: number }> {
  const f = orderFilter(scope, 'c');
  const events = await em.execute<Array<{ id: string; payload: string }>>(
    scope.orderLegacyIds === null
      ? `select e.id, e.payload from webhook_events e where e.store_id = ?`
      : `select e.id, e.payload from webhook_events e
           join label_creations c on c.id = e.resource_id
          where e.store_id = ?${f.sql}`,
    [scope.storeId, ...(scope.orderLegacyIds === null ? [] : f.values)],
  );
  let changedEvents = 0;
  for (const event of events) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(event.payload);
    } catch {
      parsed = null;
    }
    const r = redactJson(parsed);
    if (!r.changed) continue;
    await em.execute('update webhook_events set payload = ? where id = ?', [JSON.stringify(r.value), event.id]);
    changedEvents += 1;
  }
  if (events.length === 0) return { events: 0, attempts: 0 };
  const attempts = await em.execute<Array<{ delivery_id: string }>>(
    `update webhook_delivery_attempts a set response_excerpt = null
       from webhook_deliveries d
      where d.id = a.delivery_id and d.event_id = any(?::text[]) and a.response_excerpt is not null
      returning a.delivery_id`,
    [`{${events.map((e) => e.id).join(',')}}`],
  );
  return { events: changedEvents, attempts: attempts.length };
}

/**
 * `customers/redact`: the customer's personal data in every record of the orders Shopify names, except creations
 * still in flight (returned in `inFlight`; the caller looks again later), and the customer's earlier data exports in
 * the e-mail outbox (`notifications`).
 */
export async function redactCustomer(
  em: EntityManager,
  input: { storeId: string; orderLegacyIds: readonly string[]; customerRef: string },
): Promise<RedactionReport> {
  const scope: PersonalDataScope = { storeId: input.storeId, orderLegacyIds: input.orderLegacyIds };
  const creations = await redactCreations(em, scope);
  const labelDocuments = await redactLabelDocuments(em, scope);
  const webhooks = await redactWebhookEvents(em, scope);
  const notifications = await em.execute<Array<{ id: string }>>(
    `delete from notifications where store_id = ? and customer_ref = ? returning id`,
    [input.storeId, input.customerRef],
  );
  return {
    creations,
    labelDocuments,
    webhookEvents: webhooks.events,
    webhookAttempts: webhooks.attempts,
    notifications: notifications.length,
    requestLogIps: 0,
    inFlight: await creationsInFlight(em, scope),
  };
}

/**
 * `shop/redact` (48 hours after an uninstall): every record of the store as for a customer, and the store's own
 * personal data: the request log's IP addresses, the e-mail outbox (the owner's address, exports), the owner's e-mail
 * on the store, and the sender (name, address, phone, e-mail) of its carrier accounts. Labels, creations and keys
 * stay, without personal data, for what the spec keeps them (reinstalling finds them).
 */
export async function redactShop(em: EntityManager, input: { storeId: string }): Promise<RedactionReport> {
  const scope: PersonalDataScope = { storeId: input.storeId, orderLegacyIds: null };
  const creations = await redactCreations(em, scope);
  const labelDocuments = await redactLabelDocuments(em, scope);
  const webhooks = await redactWebhookEvents(em, scope);
  const ips = await em.execute<Array<{ id: string }>>(
    'update request_log set ip = null where store_id = ? and ip is not null returning id',
    [input.storeId],
  );
  const notifications = await em.execute<Array<{ id: string }>>(
    'delete from notifications where store_id = ? returning id',
    [input.storeId],
  );
  await em.execute(`update stores set email = 'redacted@invalid' where id = ?`, [input.storeId]);
  await em.execute(`update carrier_accounts set sender = '{}'::jsonb where store_id = ?`, [input.storeId]);
  return {
    creations,
    labelDocuments,
    webhookEvents: webhooks.events,
    webhookAttempts: webhooks.attempts,
    notifications: notifications.length,
    requestLogIps: ips.length,
    inFlight: await creationsInFlight(em, scope),
  };
}

/**
 * `customers/data_request`: what the service holds of the orders Shopify names, for the merchant to hand to the
 * customer: each creation as recorded (with the carrier call's recipient, address, phone and e-mail, while not
 * redacted) and each label (tracking, carrier, whether its PDF, which prints the address, is still stored).
 */
export async function customerExport(
  em: EntityManager,
  input: { storeId: string; orderLegacyIds: readonly string[] },
): Promise<{ creations: unknown[]; labels: unknown[] }> {
  const f = orderFilter({ storeId: input.storeId, orderLegacyIds: input.orderLegacyIds }, 'c');
  const creations = await em.execute<Array<Record<string, unknown>>>(
    `select c.id, c.status, c.order_legacy_id, c.order_name, c.client_reference, c.requested, c.resolved, c.error,
            c.resolution, c.send_plan -> 'sendInput' -> 'carrierCall' as carrier_call, c.created_at, c.updated_at
       from label_creations c where c.store_id = ?${f.sql} order by c.created_at, c.id`,
    [input.storeId, ...f.values],
  );
  const lf = orderFilter({ storeId: input.storeId, orderLegacyIds: input.orderLegacyIds }, 'l');
  const labels = await em.execute<Array<Record<string, unknown>>>(
    `select l.id, l.order_legacy_id, l.order_name, l.carrier_name, l.tracking_number, l.tracking_url,
            l.document_stored, l.created_at
       from labels l where l.store_id = ?${lf.sql} order by l.created_at, l.id`,
    [input.storeId, ...lf.values],
  );
  return { creations, labels };
}

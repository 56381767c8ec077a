import type { Client } from 'pg';
import { createApiKey } from '../../src/access/api-keys';
import { createStore } from '../../src/access/stores';
import type { Orm } from '../../src/db/orm';
import { dayOf, partitionName } from '../../src/db/request-log-partitions';
import { setLimitOverride } from '../../src/limits/overrides';

/**
 * The scale section's data, built by set-based SQL (`npm run bench -- scale`, scripts/bench/scale.ts): stores of
 * labels over two years with the shares of the store, creations beside them, and the request log.
 */

const DAY_MS = 86_400_000;

export interface ScaleStore {
  id: string;
  secret: string;
  labels: number;
}

/** A store whose reads the bench may make as fast as it likes (support's override of the read limits). */
export async function aBenchStore(orm: Orm, name: string): Promise<{ id: string; secret: string }> {
  const em = orm.em.fork();
  const now = new Date();
  const store = await createStore(
    em,
    {
      name,
      domain: `${name}-${process.pid}.myshopify.com`,
      email: 'bench@example.com',
      apiEnabled: true,
      subscriptionActive: true,
      writeAccess: true,
    },
    now,
  );
  const { secret } = await createApiKey(em, {
    storeId: store.id,
    name: 'scale',
    scopes: ['labels:read', 'labels:write'],
    now,
  });
  for (const bucket of ['read_key_per_second', 'read_key_per_minute'])
    await setLimitOverride(em, { storeId: store.id, bucket, limit: 1_000_000_000, now });
  return { id: store.id, secret };
}

/**
 * `count` labels of a store over the two years up to a minute ago, oldest first (insertion order follows time): 2 %
 * returns, 1 % pending, 0.1 % failed, 30 % in batches of 50, about 1.2 labels per order, 10 % updated an hour after
 * creation and 0.5 % thirty days after (a return, a late correction).
 */
export async function insertScaleLabels(db: Client, storeId: string, prefix: string, count: number): Promise<void> {
  await db.query(
    `insert into labels (id, store_id, order_gid, order_legacy_id, order_name, order_name_key, direction, kind, status,
       failure_reason, carrier_code, carrier_name, source, tracking_number, batch_id, created_at, updated_at, current)
     select 'lbl_' || $1 || lpad(g::text, 9, '0'), $2, 'gid://shopify/Order/' || o, o::text, '#' || o, o::text,
       case when g % 50 = 0 then 'return' else 'outbound' end, 'shipment',
       case when g % 1000 = 7 then 'failed' when g % 100 = 3 then 'pending' else 'ready' end,
       case when g % 1000 = 7 then 'carrier_import_rejected' end, 'carrier_a', 'Carrier A', 'api',
       case when g % 100 <> 3 and g % 1000 <> 7 then 'TN' || $1 || g end,
       case when g % 10 < 3 then 'bat_' || $1 || (g / 500) end, c,
       case when g % 10 = 0 then c + interval '1 hour' when g % 200 = 1 then c + interval '30 days' end,
       g % 1000 <> 7
       from generate_series(1, $3::bigint) g,
       lateral (select (1000000 + g * 5 / 6)::bigint as o,
                       date_trunc('second', now() - interval '730 days')
                         + (g * (730 * 86400 - 60) / $3::bigint) * interval '1 second' as c) t`,
    [prefix, storeId, count],
  );
}

/**
 * `count` label creations of a store over the same two years: 0.1 % failed, 0.02 % needing attention, the rest
 * succeeded three seconds after creation, 1 % updated again two days later; a client reference on a quarter.
 */
export async function insertScaleCreations(db: Client, storeId: string, prefix: string, count: number): Promise<void> {
  await db.query(
    `insert into label_creations (id, store_id, status, idempotency_key, request_hash, order_gid, order_legacy_id,
       order_name, client_reference, created_at, updated_at)
     select 'lcr_' || $1 || lpad(g::text, 9, '0'), $2,
       case when g % 1000 = 7 then 'failed' when g % 5000 = 11 then 'needs_attention' else 'succeeded' end,
       'key-' || $1 || g, 'h', 'gid://shopify/Order/' || o, o::text, '#' || o,
       case when g % 4 = 0 then 'ref-' || $1 || g end, c,
       c + case when g % 100 = 5 then interval '2 days' else interval '3 seconds' end
       from generate_series(1, $3::bigint) g,
       lateral (select (1000000 + g * 6)::bigint as o,
                       date_trunc('second', now() - interval '730 days')
                         + (g * (730 * 86400 - 60) / $3::bigint) * interval '1 second' as c) t`,
    [prefix, storeId, count],
  );
}

/** `stores` small stores of `labels` labels each, beside the large ones (their rows share the tables and indexes). */
export async function insertSmallStores(orm: Orm, db: Client, stores: number, labels: number): Promise<string[]> {
  const ids: string[] = [];
  const em = orm.em.fork();
  const now = new Date();
  for (let i = 0; i < stores; i += 1) {
    const store = await createStore(
      em,
      { name: `small-${i}`, domain: `small-${i}-${process.pid}.myshopify.com`, email: 'bench@example.com' },
      now,
    );
    ids.push(store.id);
  }
  await db.query(
    `insert into labels (id, store_id, order_gid, order_legacy_id, order_name, order_name_key, direction, kind, status,
       carrier_code, carrier_name, source, created_at, updated_at, current)
     select 'lbl_s' || s.n || '_' || g, s.id, 'gid://shopify/Order/' || g, g::text, '#' || g, g::text, 'outbound',
       'shipment', 'ready', 'carrier_a', 'Carrier A', 'api',
       date_trunc('second', now() - interval '730 days') + (g::bigint * 86400 * 730 / $2::int) * interval '1 second',
       null, true
       from unnest($1::text[]) with ordinality s(id, n), generate_series(1, $2::int) g`,
    [ids, labels],
  );
  return ids;
}

/**
 * `rows` request-log rows over the last `days` days, half of them the first store's and the rest spread over all.
 * Set-based and bench-only fast: each past day is filled as a table of its own with no index and no WAL (unlogged),
 * given its range as a check constraint, then attached as the day's partition, which builds its indexes in one sort
 * each and skips the scan that proves the range (the service's partitions are logged: src/db/request-log-partitions.ts).
 * Today's partition exists already (the migration creates today and the week ahead) and is filled in place.
 */
export async function insertRequestLog(
  db: Client,
  stores: readonly string[],
  rows: number,
  days: number,
): Promise<void> {
  const today = dayOf(new Date()).getTime();
  const perDay = Math.ceil(rows / days);
  await db.query("set synchronous_commit = off; set maintenance_work_mem = '512MB'");
  for (let d = days; d >= 1; d -= 1) {
    const day = new Date(today - (d - 1) * DAY_MS);
    const [from, to] = [day.toISOString(), new Date(day.getTime() + DAY_MS).toISOString()];
    const name = partitionName(day);
    const { rows: found } = await db.query<{ found: string | null }>('select to_regclass($1)::text as found', [name]);
    const fresh = !found[0]!.found;
    const target = fresh ? `${name}_load` : name;
    if (fresh) await db.query(`create unlogged table ${target} (like request_log including defaults)`);
    await db.query(
      `insert into ${target} (request_id, store_id, api_key_id, method, endpoint, status, ip, created_at)
       select 'req_' || $2::bigint || '_' || g,
         ($1::text[])[case when g % 2 = 0 then 1 else 1 + g % cardinality($1::text[]) end], 'key_bench', 'GET',
         '/v1/labels', 200, '203.0.113.7', $3::timestamptz + (g * 86399 / $2::bigint) * interval '1 second'
         from generate_series(1, $2::bigint) g`,
      [stores, perDay, from],
    );
    if (!fresh) continue;
    await db.query(
      `alter table ${target} add constraint ${target}_range check (created_at >= '${from}' and created_at < '${to}')`,
    );
    await db.query(`alter table ${target} rename to ${name}`);
    await db.query(`alter table request_log attach partition ${name} for values from ('${from}') to ('${to}')`);
  }
}

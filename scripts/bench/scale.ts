import { Client } from 'pg';
import { filterHash, encodeCursor } from '../../src/http/cursor';
import type { Orm } from '../../src/db/orm';
import {
  createRequestLogPartitionsAhead,
  dayOf,
  dropRequestLogBefore,
  partitionName,
  REQUEST_LOG_DAYS_AHEAD,
} from '../../src/db/request-log-partitions';
import {
  aBenchStore,
  insertRequestLog,
  insertScaleCreations,
  insertScaleLabels,
  insertSmallStores,
  type ScaleStore,
} from './scale-data';
import { quantile } from './median';

/**
 * `npm run bench -- scale` (run only when named: it builds tens of GB): reads that must stay flat as a store grows
 * (docs/scaling.md). A store of BENCH_SCALE_SMALL labels and one of BENCH_SCALE_LARGE, 1,000 small stores beside them,
 * every filter and sort of GET /labels and GET /label-creations timed p50/p99 over HTTP, each as a ratio to the newest
 * page of the same store and the large store's to the small one's; then the request log's housekeeping at
 * BENCH_SCALE_LOG_ROWS rows. Targets: within 3x of the newest page, within 1.5x from the small store to the large one.
 */
const SMALL = Number(process.env.BENCH_SCALE_SMALL ?? 1_000_000);
const LARGE = Number(process.env.BENCH_SCALE_LARGE ?? 5_000_000);
const LOG_ROWS = Number(process.env.BENCH_SCALE_LOG_ROWS ?? 50_000_000);
const RUNS = Number(process.env.BENCH_SCALE_RUNS ?? 100);
const DAY_MS = 86_400_000;

type Get = (path: string, key: string) => Promise<{ status: number; body: { next_cursor?: string | null } }>;

interface Timing {
  p50: number;
  p99: number;
}

/**
 * One query timed on both stores, a request on each in turn (after a warm-up of each): whatever drifts in the machine
 * meanwhile (a checkpoint, the page cache, the collector) hits both alike, so their ratio is the query's own.
 */
async function timeBoth(get: Get, calls: ReadonlyArray<[path: string, key: string]>): Promise<Timing[]> {
  const times = calls.map((): number[] => []);
  for (const [path, key] of calls) {
    const first = await get(path, key);
    if (first.status !== 200) throw new Error(`${path}: ${first.status} ${JSON.stringify(first.body)}`);
  }
  for (let i = 0; i < RUNS; i += 1) {
    for (const [s, [path, key]] of calls.entries()) {
      const start = process.hrtime.bigint();
      await get(path, key);
      times[s]!.push(Number(process.hrtime.bigint() - start) / 1e6);
    }
  }
  return times.map((t) => ({ p50: quantile(t, 0.5), p99: quantile(t, 0.99) }));
}

const iso = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
const q = (value: string) => encodeURIComponent(value);

/** The queries of one store, by name: values taken from its own rows, so every filter finds something. */
async function labelQueries(db: Client, store: ScaleStore, get: Get): Promise<Array<[string, string]>> {
  const { rows } = await db.query<{ order_gid: string; order_name: string; batch_id: string; tracking_number: string }>(
    `select order_gid, order_name, batch_id, tracking_number from labels
      where store_id = $1 and batch_id is not null and tracking_number is not null
        and created_at < now() - interval '365 days' order by created_at desc limit 1`,
    [store.id],
  );
  const orders = await db.query<{ legacy: string }>(
    `select order_legacy_id as legacy from labels where store_id = $1 and created_at < now() - interval '200 days'
      order by created_at desc limit 60`,
    [store.id],
  );
  const sample = rows[0]!;
  const now = Date.now();
  const twoDays = q(iso(now - 2 * DAY_MS));
  const aYear = q(iso(now - 365 * DAY_MS));
  const middle = q(iso(now - 365 * DAY_MS));
  const fifty = `order_id=${[...new Set(orders.rows.map((r) => r.legacy))].slice(0, 50).join(',')}`;
  const deepNewest = (await get(`/v1/labels?limit=250&created_before=${middle}`, store.secret)).body.next_cursor!;
  const deepSync = (await get(`/v1/labels?sort=created_at&limit=250&created_after=${middle}`, store.secret)).body
    .next_cursor!;
  const filters: Array<[string, string]> = [
    ['status=failed', 'status=failed'],
    ['status=pending', 'status=pending'],
    ['status=ready', 'status=ready'],
    ['direction=return', 'direction=return'],
    ['current=false', 'current=false'],
    ['order_id', `order_id=${sample.order_gid.split('/').pop()}`],
    ['order_id x 50', fifty],
    ['order_name', `order_name=${q(sample.order_name)}`],
    ['batch_id', `batch_id=${q(sample.batch_id)}`],
    ['tracking_number', `tracking_number=${q(sample.tracking_number)}`],
    ['created_after 2 d', `created_after=${twoDays}`],
    ['created_before 1 y', `created_before=${aYear}`],
    ['updated_after 2 d', `updated_after=${twoDays}`],
    ['updated_after 1 y', `updated_after=${aYear}`],
    ['updated_after 2 d, status=failed', `updated_after=${twoDays}&status=failed`],
    ['direction=return, status=pending', 'direction=return&status=pending'],
  ];
  return [
    ['newest page (limit 50)', '/v1/labels?limit=50'],
    ['newest page (limit 250)', '/v1/labels?limit=250'],
    ['sync feed first page', '/v1/labels?sort=created_at&limit=250'],
    ['newest, deep cursor (1 y back)', `/v1/labels?limit=250&created_before=${middle}&cursor=${q(deepNewest)}`],
    [
      'sync feed, deep cursor (1 y back)',
      `/v1/labels?sort=created_at&limit=250&created_after=${middle}&cursor=${q(deepSync)}`,
    ],
    ...filters.flatMap(([name, query]): Array<[string, string]> => [
      [name, `/v1/labels?limit=250&${query}`],
      [`${name}, sort=created_at`, `/v1/labels?sort=created_at&limit=250&${query}`],
    ]),
  ];
}

async function creationQueries(db: Client, store: ScaleStore, cursorSecret: string): Promise<Array<[string, string]>> {
  const { rows } = await db.query<{ order_gid: string; order_name: string; idempotency_key: string; ref: string }>(
    `select order_gid, order_name, idempotency_key, client_reference as ref from label_creations
      where store_id = $1 and client_reference is not null and created_at < now() - interval '365 days'
      order by created_at desc limit 1`,
    [store.id],
  );
  const sample = rows[0]!;
  const now = Date.now();
  const { rows: middle } = await db.query<{ created_at: Date; seq: string }>(
    `select created_at, seq from label_creations where store_id = $1 and created_at < now() - interval '365 days'
      order by created_at desc, seq desc limit 1`,
    [store.id],
  );
  const deep = encodeCursor(
    cursorSecret,
    { createdAt: middle[0]!.created_at, seq: Number(middle[0]!.seq) },
    filterHash(store.id, {}),
  );
  return [
    ['newest page (limit 50)', '/v1/label-creations?limit=50'],
    ['deep cursor (1 y back)', `/v1/label-creations?limit=50&cursor=${q(deep)}`],
    ['order_id', `/v1/label-creations?order_id=${sample.order_gid.split('/').pop()}`],
    ['order_name', `/v1/label-creations?order_name=${q(sample.order_name)}`],
    ['idempotency_key', `/v1/label-creations?idempotency_key=${q(sample.idempotency_key)}`],
    ['client_reference', `/v1/label-creations?client_reference=${q(sample.ref)}`],
    ['status=succeeded', '/v1/label-creations?status=succeeded'],
    ['status=failed', '/v1/label-creations?status=failed'],
    ['status=needs_attention', '/v1/label-creations?status=needs_attention'],
    ['created_after 2 d', `/v1/label-creations?created_after=${q(iso(now - 2 * DAY_MS))}`],
    ['updated_after 2 d', `/v1/label-creations?updated_after=${q(iso(now - 2 * DAY_MS))}`],
    ['updated_after 1 y', `/v1/label-creations?updated_after=${q(iso(now - 365 * DAY_MS))}`],
    [
      'status=failed, updated_after 1 y',
      `/v1/label-creations?status=failed&updated_after=${q(iso(now - 365 * DAY_MS))}`,
    ],
  ];
}

/** Times each query on both stores and prints the ratios; returns the worst of each. */
async function compare(
  title: string,
  get: Get,
  stores: [ScaleStore, ScaleStore],
  queries: [Array<[string, string]>, Array<[string, string]>],
): Promise<{ worstToNewest: number; worstGrowth: number }> {
  console.log(
    `\n  ${title}: p50 / p99 in ms; x newest = p50 / the p50 of the newest page of the same size (limit 250 where one is given); growth = ${stores[1].labels.toLocaleString('en')} / ${stores[0].labels.toLocaleString('en')} p50`,
  );
  const results = [new Map<string, Timing>(), new Map<string, Timing>()];
  for (let i = 0; i < queries[0].length; i += 1) {
    const timings = await timeBoth(get, [
      [queries[0][i]![1], stores[0].secret],
      [queries[1][i]![1], stores[1].secret],
    ]);
    for (const s of [0, 1] as const) results[s]!.set(queries[s][i]![0], timings[s]!);
  }
  let worstToNewest = 0;
  let worstGrowth = 0;
  // A page of 250 against the newest page of 250, a page of 50 against the newest of 50: the labels serialized are
  // the same count, so the ratio is the query's own cost (the first run compared every page with the newest of 50).
  const newestOf = (s: 0 | 1, path: string) => {
    const size = /limit=250/.test(path) ? 1 : 0;
    return [...results[s]!.values()][size]!.p50;
  };
  for (const [name, path] of queries[0]) {
    const [a, b] = [results[0]!.get(name)!, results[1]!.get(name)!];
    const toNewest = [a.p50 / newestOf(0, path), b.p50 / newestOf(1, path)];
    const growth = b.p50 / a.p50;
    worstToNewest = Math.max(worstToNewest, ...toNewest);
    worstGrowth = Math.max(worstGrowth, growth);
    console.log(
      `  ${name.padEnd(40)} ${a.p50.toFixed(2).padStart(7)} / ${a.p99.toFixed(2).padStart(7)}  x${toNewest[0]!.toFixed(2)}` +
        `   ${b.p50.toFixed(2).padStart(7)} / ${b.p99.toFixed(2).padStart(7)}  x${toNewest[1]!.toFixed(2)}   growth ${growth.toFixed(2)}`,
    );
  }
  console.log(
    `  worst: x${worstToNewest.toFixed(2)} of the newest page (target 3), growth ${worstGrowth.toFixed(2)} (target 1.5)`,
  );
  return { worstToNewest, worstGrowth };
}

async function timedMs(fn: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

async function sizes(db: Client): Promise<void> {
  const { rows } = await db.query<{ name: string; rows: string; bytes: string }>(
    `select 'labels' as name, (select count(*) from labels) as rows, pg_total_relation_size('labels') as bytes
     union all select 'label_creations', (select count(*) from label_creations), pg_total_relation_size('label_creations')
     union all select 'request_log', (select count(*) from request_log),
       (select sum(pg_total_relation_size(inhrelid)) from pg_inherits where inhparent = 'request_log'::regclass)`,
  );
  for (const r of rows)
    console.log(
      `  ${r.name.padEnd(16)} ${Number(r.rows).toLocaleString('en').padStart(12)} rows  ${(Number(r.bytes) / 2 ** 30).toFixed(2)} GiB with indexes  ${Number(r.rows) > 0 ? `${(Number(r.bytes) / Number(r.rows)).toFixed(0)} B/row` : 'no rows'}`,
    );
}

/** The request log at LOG_ROWS rows: the hourly housekeeping's cost, and a store's log read (`labelctl log`). */
async function requestLogAtScale(orm: Orm, db: Client, stores: string[], busy: string, quiet: string): Promise<void> {
  console.log(`\n  request log: ${LOG_ROWS.toLocaleString('en')} rows over 92 days`);
  const start = Date.now();
  await insertRequestLog(db, stores, LOG_ROWS, 92);
  await db.query('analyze request_log');
  console.log(`  built in ${((Date.now() - start) / 1000).toFixed(0)} s`);
  await sizes(db);
  // The last day ahead dropped first (it is empty), so the housekeeping creates one as it does each day.
  const last = partitionName(new Date(dayOf(new Date()).getTime() + REQUEST_LOG_DAYS_AHEAD * DAY_MS));
  await db.query(`drop table if exists ${last}`);
  let created: string[] = [];
  const ahead = await timedMs(async () => {
    created = await createRequestLogPartitionsAhead(orm.em.fork(), new Date());
  });
  const checked = await timedMs(() => createRequestLogPartitionsAhead(orm.em.fork(), new Date()));
  let dropped: string[] = [];
  const drop = await timedMs(async () => {
    dropped = (await dropRequestLogBefore(orm.em.fork(), new Date(Date.now() - 90 * DAY_MS))).dropped;
  });
  const idle = await timedMs(() => dropRequestLogBefore(orm.em.fork(), new Date(Date.now() - 90 * DAY_MS)));
  console.log(
    `  housekeeping: partitions ahead, ${created.join(', ')} created ${ahead.toFixed(0)} ms, none missing ${checked.toFixed(0)} ms; ${dropped.join(', ')} dropped ${drop.toFixed(0)} ms; a run with nothing to drop ${idle.toFixed(0)} ms`,
  );
  // What the hourly delete of the previous design cost here: one hour's rows of the oldest day.
  const { rows: oldest } = await db.query<{ at: Date }>('select min(created_at) as at from request_log');
  const hour = await timedMs(() =>
    db.query('delete from request_log where created_at < $1', [new Date(oldest[0]!.at.getTime() + 3_600_000)]),
  );
  console.log(`  for comparison, a delete of one hour's rows (the previous hourly purge): ${hour.toFixed(0)} ms`);
  const log = 'select r0.* from request_log as r0 where r0.store_id = $1 order by r0.id desc limit 20';
  for (const [name, store] of [
    ['the large store (half the rows)', busy],
    ['a small store', quiet],
  ] as const) {
    const times: number[] = [];
    for (let i = 0; i < 100; i += 1) times.push(await timedMs(() => db.query(log, [store])));
    const plan = await db.query(`explain ${log.replace('$1', `'${store}'`)}`);
    const nodes = plan.rows.map((r: Record<string, string>) => r['QUERY PLAN']!);
    const scan = nodes.some((n) => n.includes('Seq Scan')) ? 'sequential scan!' : 'index scans only';
    console.log(
      `  labelctl log, ${name}: p50 ${quantile(times, 0.5).toFixed(2)} ms, p99 ${quantile(times, 0.99).toFixed(2)} ms (${scan}, ${nodes.filter((n) => /Index (Only )?Scan/.test(n)).length} partitions' indexes read)`,
    );
  }
}

export async function scaleBench(orm: Orm, databaseUrl: string, get: Get, cursorSecret: string): Promise<void> {
  console.log(
    `\nScale: stores of ${SMALL.toLocaleString('en')} and ${LARGE.toLocaleString('en')} labels, 1,000 small stores beside them`,
  );
  const db = new Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const start = Date.now();
    const small = { ...(await aBenchStore(orm, 'scale-1m')), labels: SMALL };
    const large = { ...(await aBenchStore(orm, 'scale-5m')), labels: LARGE };
    const others = await insertSmallStores(orm, db, 1_000, 200);
    await insertScaleLabels(db, small.id, 'a', SMALL);
    await insertScaleLabels(db, large.id, 'b', LARGE);
    await insertScaleCreations(db, small.id, 'a', SMALL / 5);
    await insertScaleCreations(db, large.id, 'b', LARGE / 5);
    await db.query('vacuum analyze labels');
    await db.query('vacuum analyze label_creations');
    // The build's dirty pages written now, not by a checkpoint in the middle of the timings.
    await db.query('checkpoint');
    console.log(`  built in ${((Date.now() - start) / 1000).toFixed(0)} s (creations: a fifth of each store's labels)`);
    await sizes(db);
    const labels = await compare(
      'GET /labels',
      get,
      [small, large],
      [await labelQueries(db, small, get), await labelQueries(db, large, get)],
    );
    const creations = await compare(
      'GET /label-creations',
      get,
      [small, large],
      [await creationQueries(db, small, cursorSecret), await creationQueries(db, large, cursorSecret)],
    );
    console.log(
      `\n  targets: labels x${labels.worstToNewest.toFixed(2)} / growth ${labels.worstGrowth.toFixed(2)}; creations x${creations.worstToNewest.toFixed(2)} / growth ${creations.worstGrowth.toFixed(2)} (3 and 1.5)`,
    );
    if (LOG_ROWS > 0) await requestLogAtScale(orm, db, [large.id, small.id, ...others], large.id, others[0]!);
  } finally {
    await db.end();
  }
}

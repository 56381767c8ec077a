import type { Pool } from 'pg';
import type { BucketCharge, WindowBucketName } from '../domain/rate-limits';

/** One bucket as the counter store answered: `used` includes this request's units when it was allowed. */
export interface TakenBucket {
  bucket: WindowBucketName;
  limit: number;
  used: number;
  windowStartMs: number;
  allowed: boolean;
}

/**
 * Takes a request's units from every bucket at once, or from none when one bucket refuses. Rejects when the counters
 * cannot be reached (or a counter row stays locked longer than the lock timeout): the caller refuses the request then.
 */
export type TakeBuckets = (input: {
  storeId: string;
  apiKeyId: string;
  nowMs: number;
  charges: readonly BucketCharge[];
}) => Promise<TakenBucket[]>;

const TAKE = {
  name: 'rate_limit_take',
  text: 'select bucket, lim, used, window_start, allowed from rate_limit_take($1, $2, $3, $4, $5, $6, $7, $8)',
  rowMode: 'array',
} as const;

type Row = [bucket: WindowBucketName, lim: number, used: number, windowStart: string, allowed: boolean];

/** The statement's bucket arguments, one array per column (`rate_limit_take` and `api_admit` take the same). */
export function bucketArrays(charges: readonly BucketCharge[]): unknown[] {
  return [
    charges.map((c) => c.bucket),
    charges.map((c) => c.scope === 'key'),
    charges.map((c) => c.windowSeconds),
    charges.map((c) => c.limit),
    charges.map((c) => c.units),
  ];
}

/**
 * The PostgreSQL counter store: ONE statement per request, `rate_limit_take` (migration 20261123040000), which takes
 * every bucket of the request atomically, reads support's overrides in the same statement and answers what the
 * `X-RateLimit-*` headers need. Every API process shares the rows, so a limit holds across processes exactly. Routes
 * with a fixed class take their buckets in the admission statement instead (src/http/admission.ts).
 *
 * It runs on the hot path's pool (src/db/hot-pool.ts, docs/decisions/0400-rate-limit-counters.md): a prepared
 * statement on plain node-postgres keeps its cost per request to the round trip.
 */
export function postgresCounterStore(pool: Pool): { take: TakeBuckets } {
  return {
    take: async ({ storeId, apiKeyId, nowMs, charges }) => {
      const read = readWindowCharge(charges);
      if (read) {
        const values = [apiKeyId, nowMs, read.units, storeId, read.secondLimit, read.minuteLimit];
        const taken = await pool.query<ReadWindowsRow>({ ...READ_TAKE, values });
        return readWindowsTaken(taken.rows[0]!);
      }
      const { rows } = await pool.query<Row>({
        ...TAKE,
        values: [storeId, apiKeyId, nowMs, ...bucketArrays(charges)],
      });
      return rows.map(([bucket, limit, used, windowStart, allowed]) => ({
        bucket,
        limit,
        used,
        windowStartMs: Number(windowStart),
        allowed,
      }));
    },
  };
}

/**
 * The read class's two windows (`read_key_per_second`, `read_key_per_minute`) are kept in ONE row per key,
 * `rate_limit_read_windows` (migration 20261129000000, docs/decisions/1020-read-windows-in-one-row.md): the busiest
 * class takes both in a single upsert of plain SQL, with the all-or-nothing rule decided on the locked row itself,
 * instead of two rows taken in a `plpgsql` loop. Every path that charges the read class (the admission, the limiter)
 * goes through `readWindowsTake`, so a key's read windows have one home.
 */
export const READ_WINDOWS = { second: 'read_key_per_second', minute: 'read_key_per_minute' } as const;

export interface ReadWindowCharge {
  units: number;
  secondLimit: number;
  minuteLimit: number;
}

/** The read windows' charge when `charges` are the read class; null when they hold no read window. */
export function readWindowCharge(charges: readonly BucketCharge[]): ReadWindowCharge | null {
  const second = charges.find((c) => c.bucket === READ_WINDOWS.second);
  const minute = charges.find((c) => c.bucket === READ_WINDOWS.minute);
  if (!second && !minute) return null;
  // Taking them with other buckets would need two statements: not atomic, so not done.
  if (!second || !minute || charges.length !== 2 || second.units !== minute.units)
    throw new Error('the read windows are charged together, by the read class alone');
  return { units: second.units, secondLimit: second.limit, minuteLimit: minute.limit };
}

/** What `readWindowsTake` returns: the row after the take (`taken` is its verdict; nothing changed when false). */
export interface ReadWindowsRow {
  second_used: number;
  second_start: string | number;
  second_limit: number;
  minute_used: number;
  minute_start: string | number;
  minute_limit: number;
  units: number;
  taken: boolean;
}

/** A window's count in the row before this take: zero once its window has passed. */
const before = (w: 'second' | 'minute') =>
  `(case when r.${w}_start >= excluded.${w}_start then r.${w}_used else 0 end)`;
const FITS = `${before('second')} + excluded.units <= excluded.second_limit
               and ${before('minute')} + excluded.units <= excluded.minute_limit`;

/**
 * The take, as an `insert ... on conflict` over `source`, a SELECT of (subject, now_ms, units, store_id,
 * second_default, minute_default): support's overrides replace the defaults. Both windows are taken, or neither when
 * one would go over its limit; the decision reads the row under its lock (a concurrent take waits, then sees this
 * one's count), so limits hold exactly across processes.
 */
export function readWindowsTake(source: string): string {
  // Both overrides in one index scan: two scalar subqueries cost a tenth of the statement (pgbench, decision 1020).
  const override = (w: 'second' | 'minute') =>
    `min(o."limit") filter (where o.bucket = '${READ_WINDOWS[w]}') as ${w}_override`;
  return `insert into rate_limit_read_windows as r
      (subject, second_start, second_used, minute_start, minute_used, second_limit, minute_limit, units, taken)
    select s.subject, s.now_ms - s.now_ms % 1000, case when s.fits then s.units else 0 end,
           s.now_ms - s.now_ms % 60000, case when s.fits then s.units else 0 end,
           s.second_limit, s.minute_limit, s.units, s.fits
      from (select l.*, l.units <= l.second_limit and l.units <= l.minute_limit as fits
              from (select x.subject, x.now_ms, x.units,
                           coalesce(v.second_override, x.second_default) as second_limit,
                           coalesce(v.minute_override, x.minute_default) as minute_limit
                      from (${source}) x
                      left join lateral (
                        select ${override('second')}, ${override('minute')}
                          from rate_limit_overrides o
                         where o.store_id = x.store_id and o.bucket in ('${READ_WINDOWS.second}', '${READ_WINDOWS.minute}')
                      ) v on true) l) s
    on conflict (subject) do update set
      second_used = case when ${FITS} then ${before('second')} + excluded.units else ${before('second')} end,
      minute_used = case when ${FITS} then ${before('minute')} + excluded.units else ${before('minute')} end,
      second_start = greatest(r.second_start, excluded.second_start),
      minute_start = greatest(r.minute_start, excluded.minute_start),
      second_limit = excluded.second_limit, minute_limit = excluded.minute_limit, units = excluded.units,
      taken = ${FITS}
    returning r.second_used, r.second_start, r.second_limit, r.minute_used, r.minute_start, r.minute_limit, r.units,
              r.taken`;
}

/** The two windows as taken buckets, in bucket-name order as `rate_limit_take` answers. */
export function readWindowsTaken(row: ReadWindowsRow): TakenBucket[] {
  // A refusal changed nothing: what the request would have made the count is what the 429 reports.
  const wouldBe = (used: number) => (row.taken ? used : used + row.units);
  const window = (bucket: WindowBucketName, used: number, start: string | number, limit: number) => ({
    bucket,
    limit,
    used: wouldBe(used),
    windowStartMs: Number(start),
    allowed: wouldBe(used) <= limit,
  });
  return [
    window(READ_WINDOWS.minute, row.minute_used, row.minute_start, row.minute_limit),
    window(READ_WINDOWS.second, row.second_used, row.second_start, row.second_limit),
  ];
}

/** Gives a taken read charge back (the admission's mirror let a refused request take): the windows it was taken in. */
export const READ_WINDOWS_GIVE_BACK = {
  name: 'rate_limit_read_windows_give_back',
  text: `update rate_limit_read_windows set
      second_used = case when second_start = $2 then greatest(0, second_used - $4) else second_used end,
      minute_used = case when minute_start = $3 then greatest(0, minute_used - $4) else minute_used end
    where subject = $1`,
};

const READ_TAKE = {
  name: 'rate_limit_read_windows_take',
  text: readWindowsTake(
    'select $1::text as subject, $2::bigint as now_ms, $3::integer as units, $4::text as store_id, $5::integer as second_default, $6::integer as minute_default',
  ),
};

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

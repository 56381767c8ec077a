import type { Orm } from '../db/orm';
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

interface Row {
  bucket: WindowBucketName;
  lim: number;
  used: number;
  window_start: string;
  allowed: boolean;
}

/**
 * The PostgreSQL counter store: ONE statement per request, `rate_limit_take` (migration 20261123040000), which takes
 * every bucket of the request atomically, reads support's overrides in the same statement and answers what the
 * `X-RateLimit-*` headers need. Every API process shares the rows, so a limit holds across processes exactly.
 */
export function postgresCounterStore(orm: Orm, options: { lockTimeoutMs: number }): TakeBuckets {
  const lockTimeout = `${options.lockTimeoutMs}ms`;
  return async ({ storeId, apiKeyId, nowMs, charges }) => {
    const rows = await orm.em.fork().execute<Row[]>('select * from rate_limit_take(?, ?, ?, ?::jsonb, ?)', [
      storeId,
      apiKeyId,
      nowMs,
      JSON.stringify(
        charges.map((c) => ({
          bucket: c.bucket,
          scope: c.scope,
          window_seconds: c.windowSeconds,
          lim: c.limit,
          units: c.units,
        })),
      ),
      lockTimeout,
    ]);
    return rows.map((r) => ({
      bucket: r.bucket,
      limit: r.lim,
      used: r.used,
      windowStartMs: Number(r.window_start),
      allowed: r.allowed,
    }));
  };
}

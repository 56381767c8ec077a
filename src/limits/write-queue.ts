import { randomUUID } from 'node:crypto';
import type { Orm } from '../db/orm';
import { inLockedTransaction } from '../db/transaction';
import {
  WRITE_QUEUE_DEPTH,
  rateLimitedRefusal,
  writeQueueDepth,
  writeQueueRetryAfter,
  writeQueueState,
  type BucketState,
} from '../domain/rate-limits';
import { refusalError } from '../domain/refusal';

/** A place in a store's write queue, held from acceptance until the creation leaves `processing`. */
export interface WriteQueueTicket {
  /** Plain string: a workflow can carry it and release it from an activity. */
  id: string;
  /** The queue once this creation joined it (for the `X-RateLimit-*` headers, `RequestLimits.note`). */
  state: BucketState;
  release(): Promise<void>;
}

export interface WriteQueue {
  /** Joins the store's queue, or throws 429 `rate_limited` (bucket `write_queue_depth`, `Retry-After` 5 to 120 s). */
  enter(storeId: string): Promise<WriteQueueTicket>;
  /** Frees the place (idempotent); the time held is what "recent creations were slow" measures. */
  release(ticketId: string): Promise<void>;
}

/** Released tickets this recent tell how slow the store's creations are; older rows are deleted. */
const RECENT_MS = 10 * 60_000;
/** How many of the latest creations the mean duration takes. */
const RECENT_COUNT = 20;

/**
 * `POST /labels`'s per-store queue of waiting creations (spec "Limits"), shared by every API process and worker:
 * tickets are rows of `rate_limit_leases`, admitted under a per-store transaction lock so the depth is exact. A ticket
 * never released (a crashed process) stops counting after `leaseMs`. Depth and `Retry-After` follow the formula of
 * docs/decisions/0404-write-queue.md (`writeQueueDepth`), with support's `write_queue_depth` override as the cap.
 */
export function createWriteQueue(deps: { orm: Orm; now: () => Date; leaseMs: number }): WriteQueue {
  const release = async (ticketId: string) => {
    await deps.orm.em
      .fork()
      .execute('update rate_limit_leases set released_at = ? where id = ? and released_at is null', [
        deps.now(),
        ticketId,
      ]);
  };

  const enter = async (storeId: string): Promise<WriteQueueTicket> => {
    const now = deps.now();
    const id = randomUUID();
    const state = await inLockedTransaction(deps.orm, `write_queue:${storeId}`, async (tx) => {
      await tx.execute(
        `delete from rate_limit_leases
          where kind = 'write_queue' and subject = ? and coalesce(released_at, expires_at) < ?`,
        [storeId, new Date(now.getTime() - RECENT_MS)],
      );
      const [queue] = await tx.execute<
        Array<{ waiting: number; mean_seconds: number | null; cap_override: number | null }>
      >(
        `select
           (select count(*) from rate_limit_leases
             where kind = 'write_queue' and subject = ? and released_at is null and expires_at > ?)::int as waiting,
           (select avg(extract(epoch from released_at - acquired_at)) from (
              select released_at, acquired_at from rate_limit_leases
               where kind = 'write_queue' and subject = ? and released_at is not null
               order by released_at desc limit ?) recent)::float8 as mean_seconds,
           -- Support's override of the cap (src/limits/overrides.ts), read in the same statement.
           (select "limit" from rate_limit_overrides where store_id = ? and bucket = ?) as cap_override`,
        [storeId, now, storeId, RECENT_COUNT, storeId, WRITE_QUEUE_DEPTH.bucket],
      );
      const cap = queue!.cap_override ?? WRITE_QUEUE_DEPTH.limit;
      const mean = queue!.mean_seconds;
      const joined = writeQueueState({
        depth: writeQueueDepth({ cap, recentMeanSeconds: mean }),
        waiting: queue!.waiting,
        retryAfterSeconds: writeQueueRetryAfter(mean),
      });
      if (!joined.allowed) throw refusalError(rateLimitedRefusal(joined));
      await tx.execute(
        `insert into rate_limit_leases (id, kind, subject, acquired_at, expires_at)
         values (?, 'write_queue', ?, ?, ?)`,
        [id, storeId, now, new Date(now.getTime() + deps.leaseMs)],
      );
      return joined;
    });
    return { id, state, release: () => release(id) };
  };

  return { enter, release };
}

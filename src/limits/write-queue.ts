import { DomainError } from '../domain/errors';
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Orm } from '../db/orm';
import {
  WRITE_QUEUE_DEPTH,
  WRITE_QUEUE_FORMULA,
  rateLimitedRefusal,
  writeQueueDepth,
  writeQueueRetryAfter,
  writeQueueState,
  type BucketState,
} from '../domain/rate-limits';

/** A place in a store's write queue, held from acceptance until the creation leaves `processing`. */
export interface WriteQueueTicket {
  /** Plain string: a workflow can carry it and release it from an activity. */
  id: string;
  /** The queue once this creation joined it (for the `X-RateLimit-*` headers, `RequestLimits.note`). */
  state: BucketState;
  release(): Promise<void>;
}

export interface WriteQueue {
  /**
   * Joins the store's queue, or throws 429 `rate_limited` (bucket `write_queue_depth`, `Retry-After` 5 to 120 s), or
   * 503 `temporarily_unavailable` (`Retry-After: 30`) when the platform-wide creation queue is full.
   */
  enter(storeId: string): Promise<WriteQueueTicket>;
  /** Frees the place (idempotent); the time held is what "recent creations were slow" measures. */
  release(ticketId: string): Promise<void>;
}

/** Spec "Errors": `temporarily_unavailable` when the platform-wide creation queue is full, `Retry-After: 30`. */
export const PLATFORM_QUEUE_RETRY_AFTER_SECONDS = 30;

export function platformQueueFull(): DomainError {
  return new DomainError('temporarily_unavailable', {
    message:
      'The service is creating as many labels as it takes at once; nothing was created and no key was bound. Send the same request again after Retry-After.',
    retryAfterSeconds: PLATFORM_QUEUE_RETRY_AFTER_SECONDS,
  });
}

/**
 * Hands back the place of a creation that never ran (the housekeeping sweep), inside the caller's transaction: the
 * ticket is deleted, not released, so it is not counted as a slow creation of its store.
 */
export async function forgetTicket(em: EntityManager, ticketId: string): Promise<void> {
  await em.execute(`delete from rate_limit_leases where id = ? and kind = 'write_queue'`, [ticketId]);
}

/** Released tickets this recent tell how slow the store's creations are; older rows are deleted. */
const RECENT_MS = 10 * 60_000;
/** How many of the latest creations the mean duration takes. */
const RECENT_COUNT = 20;

/**
 * `POST /labels`'s per-store queue of waiting creations (spec "Limits"), shared by every API process and worker:
 * tickets are rows of `rate_limit_leases`, admitted by `write_queue_enter` (one statement) under a per-store
 * transaction lock so the depth is exact. A ticket
 * never released (a crashed process) stops counting after `leaseMs`. Depth and `Retry-After` follow the formula of
 * docs/decisions/0404-write-queue.md (`writeQueueDepth`), with support's `write_queue_depth` override as the cap. The
 * places in use across every store are the platform-wide creation queue, at most `platformCap` (decision 0407; null:
 * no cap, for processes that only release places).
 */
export function createWriteQueue(deps: {
  orm: Orm;
  now: () => Date;
  leaseMs: number;
  platformCap: number | null;
}): WriteQueue {
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
    const { fastCreationSeconds, minDepth } = WRITE_QUEUE_FORMULA;
    const [queue] = await deps.orm.em
      .fork()
      .execute<
        Array<{ waiting: number; mean_seconds: number | null; cap: number; entered: boolean; platform_full: boolean }>
      >('select * from write_queue_enter(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)', [
        id,
        storeId,
        now,
        new Date(now.getTime() - RECENT_MS),
        RECENT_COUNT,
        new Date(now.getTime() + deps.leaseMs),
        WRITE_QUEUE_DEPTH.limit,
        fastCreationSeconds,
        minDepth,
        deps.platformCap,
      ]);
    if (queue!.platform_full) throw platformQueueFull();
    const mean = queue!.mean_seconds;
    const joined = writeQueueState({
      depth: writeQueueDepth({ cap: queue!.cap, recentMeanSeconds: mean }),
      waiting: queue!.waiting,
      retryAfterSeconds: writeQueueRetryAfter(mean),
    });
    if (!joined.allowed || !queue!.entered) {
      // The SQL copy of the depth disagreeing would be a bug: a refusal either way, and no ticket left behind.
      if (queue!.entered) await release(id);
      throw DomainError.from(rateLimitedRefusal({ ...joined, allowed: false, remaining: 0 }));
    }
    return { id, state: joined, release: () => release(id) };
  };

  return { enter, release };
}

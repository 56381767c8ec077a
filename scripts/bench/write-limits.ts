import type { Orm } from '../../src/db/orm';
import { setLimitOverride } from '../../src/limits/overrides';

/**
 * Support's overrides for a bench store: a bench measures creations, not the write limits, so none may refuse one. The
 * queue shrinks when creations are slow (decision 0404): its depth is raised to `queueDepth`.
 */
export async function raiseWriteLimits(orm: Orm, storeId: string, queueDepth: number): Promise<void> {
  for (const [bucket, limit] of [
    ['write_key_per_second', 100_000],
    ['write_shop_per_minute', 100_000],
    ['write_shop_per_day', 100_000],
    ['write_queue_depth', queueDepth],
  ] as const)
    await setLimitOverride(orm.em.fork(), { storeId, bucket, limit, now: new Date() });
}

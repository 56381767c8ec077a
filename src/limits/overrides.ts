import type { EntityManager } from '@mikro-orm/postgresql';
import {
  BUCKET_NAMES,
  RESERVED_BUCKETS,
  WINDOW_BUCKETS,
  WRITE_QUEUE_DEPTH,
  isBucketName,
  type BucketName,
  type LimitScope,
} from '../domain/rate-limits';

/** A support request the limits cannot take (unknown or reserved bucket, bad limit): said to the operator as is. */
export class LimitOverrideError extends Error {}

/** Largest limit support can set: far above any real traffic, far below integer overflow of the counters. */
export const MAX_LIMIT = 1_000_000_000;

function checkedBucket(bucket: string): BucketName {
  if ((RESERVED_BUCKETS as readonly string[]).includes(bucket))
    throw new LimitOverrideError(`${bucket} is a reserved bucket name; nothing enforces it yet`);
  if (!isBucketName(bucket))
    throw new LimitOverrideError(`unknown bucket ${bucket}; buckets: ${BUCKET_NAMES.join(', ')}`);
  return bucket;
}

/**
 * Support changes a store's limit of one bucket (spec "Limits": "Support can change a store's limits"). Every request
 * reads overrides in its own counter statement, so the change applies at once in every API process. A key bucket's
 * override applies to every key of the store.
 */
export async function setLimitOverride(
  em: EntityManager,
  input: { storeId: string; bucket: string; limit: number; now: Date },
): Promise<void> {
  const bucket = checkedBucket(input.bucket);
  if (!Number.isInteger(input.limit) || input.limit < 0 || input.limit > MAX_LIMIT)
    throw new LimitOverrideError(`a limit is a whole number from 0 to ${MAX_LIMIT}`);
  await em.execute(
    `insert into rate_limit_overrides (store_id, bucket, "limit", updated_at) values (?, ?, ?, ?)
     on conflict (store_id, bucket) do update set "limit" = excluded."limit", updated_at = excluded.updated_at`,
    [input.storeId, bucket, input.limit, input.now],
  );
}

/** Back to the spec's limit. Answers whether there was an override. */
export async function resetLimitOverride(
  em: EntityManager,
  input: { storeId: string; bucket: string },
): Promise<boolean> {
  const bucket = checkedBucket(input.bucket);
  const deleted = await em.execute<Array<{ bucket: string }>>(
    'delete from rate_limit_overrides where store_id = ? and bucket = ? returning bucket',
    [input.storeId, bucket],
  );
  return deleted.length > 0;
}

export interface StoreLimit {
  bucket: BucketName;
  scope: LimitScope;
  windowSeconds: number | null;
  defaultLimit: number;
  override: number | null;
  limit: number;
}

/** Every bucket of a store: the spec's limit, support's override and the limit in force. */
export async function storeLimits(em: EntityManager, storeId: string): Promise<StoreLimit[]> {
  const rows = await em.execute<Array<{ bucket: string; limit: number }>>(
    'select bucket, "limit" from rate_limit_overrides where store_id = ?',
    [storeId],
  );
  const overrides = new Map(rows.map((r) => [r.bucket, r.limit]));
  return BUCKET_NAMES.map((bucket) => {
    const spec =
      bucket === WRITE_QUEUE_DEPTH.bucket
        ? { scope: WRITE_QUEUE_DEPTH.scope, limit: WRITE_QUEUE_DEPTH.limit, windowSeconds: null }
        : WINDOW_BUCKETS[bucket];
    const override = overrides.get(bucket) ?? null;
    return {
      bucket,
      scope: spec.scope,
      windowSeconds: spec.windowSeconds,
      defaultLimit: spec.limit,
      override,
      limit: override ?? spec.limit,
    };
  });
}

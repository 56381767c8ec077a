import type { BucketState } from '../domain/rate-limits';

/** The spec's `X-RateLimit-*` headers of one bucket (the tightest one, or the refusing one on a 429). */
export function rateLimitHeaders(state: Pick<BucketState, 'bucket' | 'limit' | 'remaining' | 'resetSeconds'>) {
  return {
    'X-RateLimit-Limit': String(state.limit),
    'X-RateLimit-Remaining': String(state.remaining),
    'X-RateLimit-Reset': String(state.resetSeconds),
    'X-RateLimit-Bucket': state.bucket,
  };
}

/** The headers of a 429 `rate_limited`, from its details: the refusing bucket, nothing left, reset at `Retry-After`. */
export function refusedBucketHeaders(details: Record<string, unknown>): Record<string, string> {
  const { bucket, limit, retry_after_seconds: retryAfter } = details;
  if (typeof bucket !== 'string' || typeof limit !== 'number' || typeof retryAfter !== 'number') return {};
  return rateLimitHeaders({ bucket: bucket as BucketState['bucket'], limit, remaining: 0, resetSeconds: retryAfter });
}

import { BUCKET_NAMES, LIMIT_CLASSES, WINDOW_BUCKETS } from '../domain/rate-limits';
import type { ErrorCode } from '../domain/error-catalog';
import { limitClassesOf, type RouteDefinition } from './route';

type Json = Record<string, unknown>;

const count = (description: string, minimum: number) => ({ description, schema: { type: 'integer', minimum } });

/** The `X-RateLimit-*` headers as OpenAPI header objects (values are whole numbers, the bucket one of the names). */
export const RATE_LIMIT_HEADERS: Record<string, Json> = {
  'X-RateLimit-Limit': count('Limit of the tightest rate-limit bucket of this request (on a 429: the refusing one)', 0),
  'X-RateLimit-Remaining': count('What that bucket has left after this request (0 on a 429)', 0),
  'X-RateLimit-Reset': count('Seconds until that bucket’s window ends', 1),
  'X-RateLimit-Bucket': {
    description: 'Name of that bucket (error reference: `rate_limited`)',
    schema: { type: 'string', enum: [...BUCKET_NAMES] },
  },
};

const RETRY_AFTER: Record<string, Json> = {
  '429': {
    description: 'Seconds until the refusing bucket allows the request',
    schema: { type: 'integer', minimum: 1 },
  },
  '503': {
    description: 'Seconds to wait before sending the same request again',
    schema: { type: 'integer', minimum: 0 },
  },
};

/** Codes every limited route can answer: 429, and 503 when the counters cannot be checked (docs/decisions/0403). */
export function rateLimitErrorCodes(route: RouteDefinition): ErrorCode[] {
  if (!route.limits) return [];
  // A render whose metering fails answers `carrier_unavailable` without `reason` (spec "Errors").
  const rendering = limitClassesOf(route.limits).includes('render');
  return ['rate_limited', 'temporarily_unavailable', ...(rendering ? (['carrier_unavailable'] as const) : [])];
}

/**
 * Adds the rate limits to a limited route's operation: the `X-RateLimit-*` headers on every answer that can pass the
 * limits (all but 400 and 401, which come before them), `Retry-After` on 429 and 503 where the route declares none, and
 * `x-rate-limits`: the classes it is charged to with their buckets (docs/decisions/0401).
 */
export function documentRateLimits(route: RouteDefinition, operation: Json): Json {
  if (!route.limits) return operation;
  const responses = operation.responses as Record<string, Json>;
  for (const [status, response] of Object.entries(responses)) {
    if (status === '400' || status === '401') continue;
    const headers = (response.headers ?? {}) as Record<string, unknown>;
    response.headers = {
      ...headers,
      ...RATE_LIMIT_HEADERS,
      ...(RETRY_AFTER[status] && !headers['Retry-After'] ? { 'Retry-After': RETRY_AFTER[status] } : {}),
    };
  }
  operation['x-rate-limits'] = limitClassesOf(route.limits).map((limitClass) => ({
    class: limitClass,
    buckets: LIMIT_CLASSES[limitClass].map((bucket) => ({
      bucket,
      scope: WINDOW_BUCKETS[bucket].scope,
      limit: WINDOW_BUCKETS[bucket].limit,
      window_seconds: WINDOW_BUCKETS[bucket].windowSeconds,
    })),
  }));
  return operation;
}

import { refusal, type Refusal } from './refusal';

/**
 * The spec's "Limits" table as data: every cell is a bucket with the spec's name (the "Rate limit bucket names" list),
 * its scope (per API key or per store) and its fixed window. Routes name a limit class (`RouteDefinition.limits`); a
 * class is the list of buckets one request of it is charged against. Pure: the counters live in PostgreSQL
 * (src/limits/), the clock is an argument.
 */
export type LimitScope = 'key' | 'shop';

export interface WindowBucket {
  scope: LimitScope;
  limit: number;
  windowSeconds: number;
}

const SECOND = 1;
const MINUTE = 60;
const HOUR = 3_600;
const DAY = 86_400;

export const WINDOW_BUCKETS = {
  read_key_per_second: { scope: 'key', limit: 10, windowSeconds: SECOND },
  read_key_per_minute: { scope: 'key', limit: 600, windowSeconds: MINUTE },
  document_key_per_minute: { scope: 'key', limit: 120, windowSeconds: MINUTE },
  document_shop_per_minute: { scope: 'shop', limit: 300, windowSeconds: MINUTE },
  render_shop_per_minute: { scope: 'shop', limit: 60, windowSeconds: MINUTE },
  dry_run_key_per_second: { scope: 'key', limit: 2, windowSeconds: SECOND },
  dry_run_key_per_minute: { scope: 'key', limit: 30, windowSeconds: MINUTE },
  dry_run_shop_per_minute: { scope: 'shop', limit: 60, windowSeconds: MINUTE },
  write_key_per_second: { scope: 'key', limit: 5, windowSeconds: SECOND },
  write_shop_per_minute: { scope: 'shop', limit: 60, windowSeconds: MINUTE },
  // The two daily creation buckets count creations that reach the carrier (src/limits/creation-units.ts).
  write_shop_per_day: { scope: 'shop', limit: 2_000, windowSeconds: DAY },
  create_new_daily: { scope: 'shop', limit: 50, windowSeconds: DAY },
  resolve_key_per_second: { scope: 'key', limit: 1, windowSeconds: SECOND },
  resolve_shop_per_hour: { scope: 'shop', limit: 30, windowSeconds: HOUR },
  print_key_per_second: { scope: 'key', limit: 5, windowSeconds: SECOND },
  print_shop_per_minute: { scope: 'shop', limit: 300, windowSeconds: MINUTE },
  // The spec's list has no names for `PUT /orders/{id}/pickup-point` (docs/decisions/0402-pickup-point-buckets.md).
  pickup_point_key_per_second: { scope: 'key', limit: 2, windowSeconds: SECOND },
  pickup_point_shop_per_minute: { scope: 'shop', limit: 120, windowSeconds: MINUTE },
} as const satisfies Record<string, WindowBucket>;

export type WindowBucketName = keyof typeof WINDOW_BUCKETS;

/** `POST /labels`'s per-store queue of waiting creations: at most this many, fewer when creations were slow. */
export const WRITE_QUEUE_DEPTH = { bucket: 'write_queue_depth', scope: 'shop', limit: 100 } as const;
/** Named by the spec, enforced by nobody yet: support cannot set them and no route charges them. */
export const RESERVED_BUCKETS = ['shopify_budget', 'render_concurrency'] as const;

export type BucketName = WindowBucketName | typeof WRITE_QUEUE_DEPTH.bucket;
export const BUCKET_NAMES: readonly BucketName[] = [
  ...(Object.keys(WINDOW_BUCKETS) as WindowBucketName[]),
  WRITE_QUEUE_DEPTH.bucket,
];

export function isBucketName(name: string): name is BucketName {
  return (BUCKET_NAMES as readonly string[]).includes(name);
}

/** Request classes of the table, each with the buckets one request (or one document) is charged against. */
export const LIMIT_CLASSES = {
  read: ['read_key_per_second', 'read_key_per_minute'],
  document: ['document_key_per_minute', 'document_shop_per_minute'],
  render: ['render_shop_per_minute'],
  dry_run: ['dry_run_key_per_second', 'dry_run_key_per_minute', 'dry_run_shop_per_minute'],
  write: ['write_key_per_second', 'write_shop_per_minute'],
  resolve: ['resolve_key_per_second', 'resolve_shop_per_hour'],
  print: ['print_key_per_second', 'print_shop_per_minute'],
  pickup_point: ['pickup_point_key_per_second', 'pickup_point_shop_per_minute'],
} as const satisfies Record<string, readonly WindowBucketName[]>;

export type LimitClass = keyof typeof LIMIT_CLASSES;

/** What one request takes: `units` of a class (a merged PDF takes one document per label). */
export interface LimitCharge {
  limitClass: LimitClass;
  units: number;
}

/** One bucket to take from, as the counter store needs it. */
export interface BucketCharge {
  bucket: WindowBucketName;
  scope: LimitScope;
  limit: number;
  windowSeconds: number;
  units: number;
}

/** The buckets a request's charges take from, one entry per bucket (units added up), without zero charges. */
export function bucketCharges(charges: readonly LimitCharge[]): BucketCharge[] {
  const byBucket = new Map<WindowBucketName, BucketCharge>();
  for (const { limitClass, units } of charges) {
    if (units <= 0) continue;
    for (const bucket of LIMIT_CLASSES[limitClass]) {
      const known = byBucket.get(bucket);
      if (known) known.units += units;
      else byBucket.set(bucket, { bucket, ...WINDOW_BUCKETS[bucket], units });
    }
  }
  return [...byBucket.values()];
}

/** A bucket after a request took from it: what the `X-RateLimit-*` headers and a 429 say. */
export interface BucketState {
  bucket: BucketName;
  scope: LimitScope;
  limit: number;
  /** `null` for `write_queue_depth`, which has no window. */
  windowSeconds: number | null;
  /** What is left after this request; 0 when it refused. */
  remaining: number;
  /** Seconds until the window ends (or, for the queue, until a place is likely free); at least 1. */
  resetSeconds: number;
  allowed: boolean;
}

/** Start of the fixed window holding `nowMs`: windows are aligned to the epoch, the same in every process. */
export function windowStartMs(nowMs: number, windowSeconds: number): number {
  const size = windowSeconds * 1000;
  return nowMs - (((nowMs % size) + size) % size);
}

/** The state of a windowed bucket from the counter store's answer (`used` includes this request's units). */
export function windowBucketState(
  taken: { bucket: WindowBucketName; limit: number; used: number; windowStartMs: number; allowed: boolean },
  nowMs: number,
): BucketState {
  const { scope, windowSeconds } = WINDOW_BUCKETS[taken.bucket];
  const endsInMs = taken.windowStartMs + windowSeconds * 1000 - nowMs;
  return {
    bucket: taken.bucket,
    scope,
    limit: taken.limit,
    windowSeconds,
    remaining: taken.allowed ? Math.max(0, taken.limit - taken.used) : 0,
    resetSeconds: Math.min(windowSeconds, Math.max(1, Math.ceil(endsInMs / 1000))),
    allowed: taken.allowed,
  };
}

/**
 * The bucket the headers describe (spec "Limits": "the tightest bucket"): the fewest requests left; on a tie, the one
 * that stays exhausted longer.
 */
export function tightestBucket(states: readonly BucketState[]): BucketState | undefined {
  let tightest: BucketState | undefined;
  for (const state of states) {
    if (
      !tightest ||
      state.remaining < tightest.remaining ||
      (state.remaining === tightest.remaining && state.resetSeconds > tightest.resetSeconds)
    )
      tightest = state;
  }
  return tightest;
}

/** Of the buckets that refused, the one to report: waiting for it lets every other refusing bucket pass too. */
export function refusingBucket(states: readonly BucketState[]): BucketState | undefined {
  let worst: BucketState | undefined;
  for (const state of states) {
    if (!state.allowed && (!worst || state.resetSeconds > worst.resetSeconds)) worst = state;
  }
  return worst;
}

/** 429 `rate_limited` with the spec's details; `Retry-After` and `X-RateLimit-*` derive from them. */
export function rateLimitedRefusal(state: BucketState): Refusal {
  const per = state.windowSeconds === null ? 'waiting creations' : `per ${windowWord(state.windowSeconds)}`;
  return refusal(
    'rate_limited',
    `Rate limit \`${state.bucket}\` (${state.limit} ${per}, per ${state.scope === 'key' ? 'API key' : 'store'}) is exhausted; retry after ${state.resetSeconds} s.`,
    {
      bucket: state.bucket,
      scope: state.scope,
      limit: state.limit,
      window_seconds: state.windowSeconds,
      retry_after_seconds: state.resetSeconds,
    },
    state.resetSeconds,
  );
}

function windowWord(seconds: number): string {
  if (seconds === DAY) return 'day';
  if (seconds === HOUR) return 'hour';
  if (seconds === MINUTE) return 'minute';
  if (seconds === SECOND) return 'second';
  return `${seconds} s`;
}

/**
 * The write queue's depth (docs/decisions/0404-write-queue.md): `cap` (100, or support's override) while recent
 * creations took at most FAST_CREATION_SECONDS, scaled down as they slow so that the queued work
 * (depth x mean duration) stays within QUEUED_WORK_SECONDS, under the 5 minutes a creation has to reach the carrier;
 * never below MIN_DEPTH (or the cap, if lower), so a slow carrier does not lock a store out.
 */
export const WRITE_QUEUE_FORMULA = { fastCreationSeconds: 2, minDepth: 10, retryAfter: { min: 5, max: 120 } } as const;

export function writeQueueDepth(input: { cap: number; recentMeanSeconds: number | null }): number {
  const { fastCreationSeconds, minDepth } = WRITE_QUEUE_FORMULA;
  const mean = input.recentMeanSeconds ?? 0;
  const floor = Math.min(minDepth, input.cap);
  if (mean <= fastCreationSeconds) return input.cap;
  return Math.max(floor, Math.floor((input.cap * fastCreationSeconds) / mean));
}

/** `Retry-After` of a full queue: about one creation's duration (a place frees when one finishes), 5 to 120 s. */
export function writeQueueRetryAfter(recentMeanSeconds: number | null): number {
  const { min, max } = WRITE_QUEUE_FORMULA.retryAfter;
  return Math.min(max, Math.max(min, Math.ceil(recentMeanSeconds ?? 0)));
}

/** The queue's state once a creation was admitted or refused. */
export function writeQueueState(input: { depth: number; waiting: number; retryAfterSeconds: number }): BucketState {
  const allowed = input.waiting < input.depth;
  return {
    bucket: WRITE_QUEUE_DEPTH.bucket,
    scope: WRITE_QUEUE_DEPTH.scope,
    limit: input.depth,
    windowSeconds: null,
    remaining: allowed ? input.depth - input.waiting - 1 : 0,
    resetSeconds: input.retryAfterSeconds,
    allowed,
  };
}

/** At most this many requests per key hold their answer for `Prefer: wait`; further ones answer as with `wait=0`. */
export const PREFER_WAIT_HOLDS_PER_KEY = 8;

/** Seconds from `nowMs` to the end of its UTC day: the daily buckets' window. */
export function secondsToEndOfDay(nowMs: number): number {
  return Math.max(1, Math.ceil((windowStartMs(nowMs, DAY) + DAY * 1000 - nowMs) / 1000));
}

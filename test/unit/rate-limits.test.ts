import {
  BUCKET_NAMES,
  LIMIT_CLASSES,
  RESERVED_BUCKETS,
  WINDOW_BUCKETS,
  bucketCharges,
  rateLimitedRefusal,
  refusingBucket,
  secondsToEndOfDay,
  tightestBucket,
  windowBucketState,
  windowStartMs,
  writeQueueDepth,
  writeQueueRetryAfter,
  writeQueueState,
  type BucketState,
} from '../../src/domain/rate-limits';

const state = (overrides: Partial<BucketState>): BucketState => ({
  bucket: 'read_key_per_second',
  scope: 'key',
  limit: 10,
  windowSeconds: 1,
  remaining: 5,
  resetSeconds: 1,
  allowed: true,
  ...overrides,
});

describe('the limits table', () => {
  // Spec "Limits" row by row, and the names of "Rate limit bucket names".
  it.each([
    ['read_key_per_second', 'key', 10, 1],
    ['read_key_per_minute', 'key', 600, 60],
    ['document_key_per_minute', 'key', 120, 60],
    ['document_shop_per_minute', 'shop', 300, 60],
    ['render_shop_per_minute', 'shop', 60, 60],
    ['dry_run_key_per_second', 'key', 2, 1],
    ['dry_run_key_per_minute', 'key', 30, 60],
    ['dry_run_shop_per_minute', 'shop', 60, 60],
    ['write_key_per_second', 'key', 5, 1],
    ['write_shop_per_minute', 'shop', 60, 60],
    ['write_shop_per_day', 'shop', 2000, 86_400],
    ['create_new_daily', 'shop', 50, 86_400],
    ['resolve_key_per_second', 'key', 1, 1],
    ['resolve_shop_per_hour', 'shop', 30, 3600],
    ['print_key_per_second', 'key', 5, 1],
    ['print_shop_per_minute', 'shop', 300, 60],
    ['pickup_point_key_per_second', 'key', 2, 1],
    ['pickup_point_shop_per_minute', 'shop', 120, 60],
  ] as const)('%s: per %s, %i per %i s', (bucket, scope, limit, windowSeconds) => {
    expect(WINDOW_BUCKETS[bucket]).toEqual({ scope, limit, windowSeconds });
  });

  it('names every bucket of the spec and no reserved one', () => {
    expect(BUCKET_NAMES).toHaveLength(19);
    expect(BUCKET_NAMES).toContain('write_queue_depth');
    for (const reserved of RESERVED_BUCKETS) expect(BUCKET_NAMES).not.toContain(reserved);
  });

  it('charges every windowed bucket through some class, except the daily creation ledger', () => {
    const charged = new Set<string>(Object.values(LIMIT_CLASSES).flat());
    const uncharged = Object.keys(WINDOW_BUCKETS).filter((b) => !charged.has(b));
    expect(uncharged.sort()).toEqual(['create_new_daily', 'write_shop_per_day']);
  });
});

describe('bucketCharges', () => {
  it('takes one unit from each bucket of the class', () => {
    expect(bucketCharges([{ limitClass: 'read', units: 1 }])).toEqual([
      { bucket: 'read_key_per_second', scope: 'key', limit: 10, windowSeconds: 1, units: 1 },
      { bucket: 'read_key_per_minute', scope: 'key', limit: 600, windowSeconds: 60, units: 1 },
    ]);
  });

  it('counts a merged PDF one document per label, renders in their own bucket, and skips zero charges', () => {
    const charges = bucketCharges([
      { limitClass: 'document', units: 48 },
      { limitClass: 'render', units: 2 },
    ]);
    expect(charges.map((c) => [c.bucket, c.units])).toEqual([
      ['document_key_per_minute', 48],
      ['document_shop_per_minute', 48],
      ['render_shop_per_minute', 2],
    ]);
    expect(bucketCharges([{ limitClass: 'render', units: 0 }])).toEqual([]);
  });

  it('adds up units of a class charged twice', () => {
    const charges = bucketCharges([
      { limitClass: 'document', units: 2 },
      { limitClass: 'document', units: 3 },
    ]);
    expect(charges.map((c) => c.units)).toEqual([5, 5]);
  });
});

describe('windows', () => {
  it.each([
    [1_000_500, 1, 1_000_000],
    [1_000_000, 1, 1_000_000],
    [119_999, 60, 60_000],
    [Date.UTC(2026, 10, 23, 17, 5), 86_400, Date.UTC(2026, 10, 23)],
    [Date.UTC(2026, 10, 23, 17, 5), 3600, Date.UTC(2026, 10, 23, 17)],
  ])('window of %i at %i s starts at %i (aligned to the epoch)', (now, seconds, start) => {
    expect(windowStartMs(now, seconds)).toBe(start);
  });

  it('states what is left and when the window ends', () => {
    expect(
      windowBucketState(
        { bucket: 'read_key_per_minute', limit: 600, used: 1, windowStartMs: 60_000, allowed: true },
        60_000 + 20_500,
      ),
    ).toEqual({
      bucket: 'read_key_per_minute',
      scope: 'key',
      limit: 600,
      windowSeconds: 60,
      remaining: 599,
      resetSeconds: 40,
      allowed: true,
    });
  });

  it('says 0 left when the bucket refused, and keeps the reset between 1 and the window', () => {
    const refused = windowBucketState(
      { bucket: 'read_key_per_second', limit: 10, used: 11, windowStartMs: 5000, allowed: false },
      5999,
    );
    expect(refused).toMatchObject({ remaining: 0, resetSeconds: 1, allowed: false });
    // Another process's clock ran ahead and opened a later window: the reset never exceeds the window.
    const ahead = windowBucketState(
      { bucket: 'read_key_per_second', limit: 10, used: 1, windowStartMs: 7000, allowed: true },
      5500,
    );
    expect(ahead.resetSeconds).toBe(1);
  });

  it('counts the daily window to the end of the UTC day', () => {
    expect(secondsToEndOfDay(Date.UTC(2026, 10, 23, 23, 59, 30))).toBe(30);
    expect(secondsToEndOfDay(Date.UTC(2026, 10, 23, 0, 0, 0))).toBe(86_400);
  });
});

describe('tightestBucket', () => {
  it.each([
    ['the fewest left', [state({ remaining: 9 }), state({ bucket: 'read_key_per_minute', remaining: 3 })], 1],
    [
      'on a tie, the one exhausted longer',
      [
        state({ remaining: 0, resetSeconds: 1 }),
        state({ bucket: 'read_key_per_minute', remaining: 0, resetSeconds: 40 }),
      ],
      1,
    ],
    ['the first of equals', [state({}), state({ bucket: 'read_key_per_minute' })], 0],
  ])('%s', (_name, states, index) => {
    expect(tightestBucket(states)).toBe(states[index]);
  });

  it('is undefined without buckets', () => {
    expect(tightestBucket([])).toBeUndefined();
  });
});

describe('refusingBucket', () => {
  it('is the refusing bucket that stays shut longest; none when all allowed', () => {
    const second = state({ allowed: false, remaining: 0, resetSeconds: 1 });
    const minute = state({ bucket: 'read_key_per_minute', allowed: false, remaining: 0, resetSeconds: 12 });
    expect(refusingBucket([second, minute, state({})])).toBe(minute);
    expect(refusingBucket([state({}), state({ remaining: 0 })])).toBeUndefined();
  });
});

describe('rateLimitedRefusal', () => {
  it('carries the spec details and Retry-After', () => {
    const r = rateLimitedRefusal(
      state({ bucket: 'document_shop_per_minute', scope: 'shop', limit: 300, windowSeconds: 60, resetSeconds: 17 }),
    );
    expect(r).toMatchObject({
      code: 'rate_limited',
      details: {
        bucket: 'document_shop_per_minute',
        scope: 'shop',
        limit: 300,
        window_seconds: 60,
        retry_after_seconds: 17,
      },
      retryAfterSeconds: 17,
    });
    expect(r.message).toContain('per minute, per store');
  });

  it('has window_seconds null for the write queue', () => {
    const r = rateLimitedRefusal(writeQueueState({ depth: 100, waiting: 100, retryAfterSeconds: 5 }));
    expect(r.details).toEqual({
      bucket: 'write_queue_depth',
      scope: 'shop',
      limit: 100,
      window_seconds: null,
      retry_after_seconds: 5,
    });
  });
});

describe('write queue formula', () => {
  it.each([
    [100, null, 100],
    [100, 0.5, 100],
    [100, 2, 100],
    [100, 4, 50],
    [100, 8, 25],
    [100, 20, 10],
    [100, 300, 10],
    [40, 4, 20],
    [5, 300, 5],
    [0, null, 0],
  ])('cap %i, recent creations %p s -> depth %i', (cap, mean, depth) => {
    expect(writeQueueDepth({ cap, recentMeanSeconds: mean })).toBe(depth);
  });

  it('keeps the queued work within 200 s above the floor', () => {
    for (let mean = 2; mean <= 20; mean += 0.25) {
      expect(writeQueueDepth({ cap: 100, recentMeanSeconds: mean }) * mean).toBeLessThanOrEqual(200);
    }
  });

  it.each([
    [null, 5],
    [0.4, 5],
    [7.2, 8],
    [60, 60],
    [500, 120],
  ])('Retry-After for recent creations of %p s is %i (5 to 120)', (mean, seconds) => {
    expect(writeQueueRetryAfter(mean)).toBe(seconds);
  });

  it('admits while fewer than the depth wait', () => {
    expect(writeQueueState({ depth: 100, waiting: 99, retryAfterSeconds: 5 })).toMatchObject({
      allowed: true,
      remaining: 0,
      limit: 100,
    });
    expect(writeQueueState({ depth: 100, waiting: 100, retryAfterSeconds: 9 })).toMatchObject({
      allowed: false,
      remaining: 0,
      resetSeconds: 9,
      windowSeconds: null,
    });
  });
});

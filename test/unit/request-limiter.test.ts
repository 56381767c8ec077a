import { DomainError } from '../../src/domain/errors';
import { apiErrorFromDomain } from '../../src/http/api-error';
import { defineRoute, type RouteDefinition } from '../../src/http/route';
import { buildRouter } from '../../src/http/router';
import type { AppContext } from '../../src/http/state';
import type { TakeBuckets } from '../../src/limits/counter-store';
import { createRequestLimiter } from '../../src/http/request-limiter';
import { createLogger } from '../../src/logger';

const NOW = Date.UTC(2026, 10, 23, 10, 0, 30, 250);

/** The parts of a Koa context the limiter touches. */
function aContext() {
  const headers: Record<string, string> = {};
  const ctx = {
    state: { requestId: 'req_test', auth: { storeId: 'st_1', apiKeyId: 'ak_1' } },
    set: (values: Record<string, string>) => Object.assign(headers, values),
  } as unknown as AppContext;
  return { ctx, headers };
}

const route = (limits: RouteDefinition['limits']): RouteDefinition =>
  defineRoute({
    method: 'GET',
    path: '/test',
    operationId: 'test',
    summary: 'test',
    tag: 'Test',
    access: { kind: 'key', scope: 'labels:read' },
    limits,
    responses: { 200: { description: 'ok' } },
    handler: async () => undefined,
  });

/** A counter store that answers from a table of used counts (after this request). */
function countersSaying(used: Record<string, number>, calls: unknown[] = []): TakeBuckets {
  return async (input) => {
    calls.push(input);
    return input.charges.map((c) => {
      const after = used[c.bucket] ?? c.units;
      return {
        bucket: c.bucket,
        limit: c.limit,
        used: after,
        windowStartMs: NOW - (NOW % (c.windowSeconds * 1000)),
        allowed: after <= c.limit,
      };
    });
  };
}

const limiterWith = (take: TakeBuckets) =>
  createRequestLimiter({ take, now: () => new Date(NOW), logger: createLogger('silent') });
const noInput = { params: {}, query: {}, body: undefined };

describe('the router hook', () => {
  it('charges one unit of the route class in one call and sets the tightest bucket’s headers', async () => {
    const calls: unknown[] = [];
    const { ctx, headers } = aContext();
    await limiterWith(countersSaying({ read_key_per_minute: 598 }, calls)).admit(ctx, route('read'), noInput);
    expect(calls).toEqual([
      {
        storeId: 'st_1',
        apiKeyId: 'ak_1',
        nowMs: NOW,
        charges: [
          { bucket: 'read_key_per_second', scope: 'key', limit: 10, windowSeconds: 1, units: 1 },
          { bucket: 'read_key_per_minute', scope: 'key', limit: 600, windowSeconds: 60, units: 1 },
        ],
      },
    ]);
    expect(headers).toEqual({
      'X-RateLimit-Limit': '600',
      'X-RateLimit-Remaining': '2',
      'X-RateLimit-Reset': '30',
      'X-RateLimit-Bucket': 'read_key_per_minute',
    });
  });

  it('charges the class a classifier picks, and nothing before the handler for handler-charged routes', async () => {
    const calls: Array<{ charges: Array<{ bucket: string }> }> = [];
    const limiter = limiterWith(countersSaying({}, calls));
    await limiter.admit(aContext().ctx, route({ classes: ['print', 'read'], classify: () => 'read' }), noInput);
    expect(calls[0]!.charges.map((c) => c.bucket)).toEqual(['read_key_per_second', 'read_key_per_minute']);
    const { ctx, headers } = aContext();
    await limiter.admit(ctx, route({ classes: ['document', 'render'], chargedBy: 'handler' }), noInput);
    expect(calls).toHaveLength(1);
    expect(headers).toEqual({});
    await ctx.state.limits!.charge([
      { limitClass: 'document', units: 3 },
      { limitClass: 'render', units: 0 },
    ]);
    expect(calls[1]!.charges.map((c) => c.bucket)).toEqual(['document_key_per_minute', 'document_shop_per_minute']);
    expect(headers['X-RateLimit-Remaining']).toBe('117');
  });

  it('refuses with the bucket that stays shut longest', async () => {
    const limiter = limiterWith(countersSaying({ read_key_per_second: 11, read_key_per_minute: 601 }));
    const refusal = await limiter.admit(aContext().ctx, route('read'), noInput).catch((e: unknown) => e);
    expect(refusal).toMatchObject({
      code: 'rate_limited',
      details: {
        bucket: 'read_key_per_minute',
        scope: 'key',
        limit: 600,
        window_seconds: 60,
        retry_after_seconds: 30,
      },
      retryAfterSeconds: 30,
    });
  });

  it('lets headers of buckets taken elsewhere compete for the tightest', async () => {
    const { ctx, headers } = aContext();
    await limiterWith(countersSaying({})).admit(ctx, route('write'), noInput);
    expect(headers['X-RateLimit-Bucket']).toBe('write_key_per_second');
    ctx.state.limits!.note([
      {
        bucket: 'write_shop_per_day',
        scope: 'shop',
        limit: 2000,
        windowSeconds: 86_400,
        remaining: 1,
        resetSeconds: 5000,
        allowed: true,
      },
    ]);
    expect(headers).toMatchObject({ 'X-RateLimit-Bucket': 'write_shop_per_day', 'X-RateLimit-Remaining': '1' });
  });

  it('never lets a request through when the counters fail: 503 temporarily_unavailable, or carrier_unavailable for renders', async () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    const failing: TakeBuckets = () => Promise.reject(refused);
    const limiter = limiterWith(failing);
    const refusal = (e: unknown) => {
      const { code, details, retryAfterSeconds } = e as DomainError;
      return { code, details, retryAfterSeconds };
    };
    expect(refusal(await limiter.admit(aContext().ctx, route('read'), noInput).catch((e: unknown) => e))).toEqual({
      code: 'temporarily_unavailable',
      details: {},
      retryAfterSeconds: 5,
    });
    const { ctx } = aContext();
    await limiter.admit(ctx, route({ classes: ['document', 'render'], chargedBy: 'handler' }), noInput);
    const render = await ctx.state.limits!.charge([{ limitClass: 'render', units: 1 }]).catch((e: unknown) => e);
    // Spec "Errors": a render-metering failure answers carrier_unavailable without `reason`.
    expect(refusal(render)).toEqual({ code: 'carrier_unavailable', details: {}, retryAfterSeconds: 5 });
  });

  it('tryCharge: takes like charge, or answers false with the refusing bucket in the headers; unreachable: false', async () => {
    const documents = [{ limitClass: 'document' as const, units: 2 }];
    const { ctx, headers } = aContext();
    await limiterWith(countersSaying({ document_key_per_minute: 119 })).admit(ctx, route('write'), noInput);
    await expect(ctx.state.limits!.tryCharge(documents)).resolves.toBe(true);
    expect(headers).toMatchObject({ 'X-RateLimit-Bucket': 'document_key_per_minute', 'X-RateLimit-Remaining': '1' });

    const spent = aContext();
    await limiterWith(countersSaying({ document_key_per_minute: 121 })).admit(spent.ctx, route('write'), noInput);
    await expect(spent.ctx.state.limits!.tryCharge(documents)).resolves.toBe(false);
    expect(spent.headers).toMatchObject({
      'X-RateLimit-Bucket': 'document_key_per_minute',
      'X-RateLimit-Remaining': '0',
    });

    const down = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    const unreachable = aContext();
    let calls = 0;
    const failsLater: TakeBuckets = async (input) => (calls++ === 0 ? countersSaying({})(input) : Promise.reject(down));
    await limiterWith(failsLater).admit(unreachable.ctx, route('write'), noInput);
    await expect(unreachable.ctx.state.limits!.tryCharge(documents)).resolves.toBe(false);
  });

  it('lets a counter statement that cannot run as written fail as what it is (a bug: 500), not as unavailable', async () => {
    const bug = Object.assign(new Error('relation "rate_limit_counters" does not exist'), { code: '42P01' });
    const limiter = limiterWith(() => Promise.reject(bug));
    await expect(limiter.admit(aContext().ctx, route('read'), noInput)).rejects.toBe(bug);
  });
});

describe('the HTTP answer of a refusal', () => {
  it('puts the refusing bucket in X-RateLimit-* and Retry-After', () => {
    const error = apiErrorFromDomain(
      new DomainError('rate_limited', {
        details: {
          bucket: 'write_queue_depth',
          scope: 'shop',
          limit: 40,
          window_seconds: null,
          retry_after_seconds: 9,
        },
        retryAfterSeconds: 9,
      }),
    );
    expect(error.status).toBe(429);
    expect(error.headers).toEqual({
      'Retry-After': '9',
      'X-RateLimit-Limit': '40',
      'X-RateLimit-Remaining': '0',
      'X-RateLimit-Reset': '9',
      'X-RateLimit-Bucket': 'write_queue_depth',
    });
  });
});

describe('the route table', () => {
  it('refuses to start with a key route that names no rate-limit class', () => {
    const options = {
      authorize: async () => undefined,
      limiter: limiterWith(countersSaying({})),
      maxBodyBytes: 1024,
      prefix: '/v1',
    };
    expect(() => buildRouter([route(undefined)], options)).toThrow(/GET \/test has no rate-limit class/);
    expect(() => buildRouter([route('read')], options)).not.toThrow();
  });
});

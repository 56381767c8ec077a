import { createHash } from 'node:crypto';
import { createApiKey, MAX_ACTIVE_KEYS, revokeApiKey, rotateApiKey, ApiKeyError } from '../../src/access/api-keys';
import { setStoreGates } from '../../src/access/stores';
import { aStoreWithKey } from '../helpers/stores';
import { startTestApp, type TestApp, type TestResponse } from '../helpers/test-app';
import { expectError } from '../helpers/errors';
import { aProbeRoute } from '../helpers/probes';
import { eventually } from '../helpers/sandbox';
import { DAY, HOUR, isoSeconds, secondAligned } from '../helpers/time';

let app: TestApp;
beforeAll(async () => {
  // Routes of the test's own, declared exactly like the spec's write and print endpoints, exercise the real
  // authorizer for scopes and the write gate; the endpoints' own suites repeat the checks on the real routes.
  app = await startTestApp({
    extraRoutes: [
      aProbeRoute('/probe-read', 'labels:read'),
      aProbeRoute('/probe-print', 'labels:print'),
      aProbeRoute('/probe-write', 'labels:write', true),
      aProbeRoute('/probe-resolve', 'label_creations:resolve', true),
      aProbeRoute('/probe-assign', 'pickup_points:assign', true),
    ],
  });
});
afterAll(async () => app.close());
afterEach(() => app.clock.reset());

async function activeKeys(storeId: string): Promise<number> {
  const [row] = await app.orm.em
    .fork()
    .execute<Array<{ n: string }>>(
      'select count(*) as n from api_keys where store_id = ? and revoked_at is null and (expires_at is null or expires_at > now())',
      [storeId],
    );
  return Number(row!.n);
}

describe('401', () => {
  it.each([
    ['no header', {}],
    ['another scheme', { authorization: 'Basic dXNlcjpwYXNz' }],
    ['Bearer without a key', { authorization: 'Bearer' }],
    ['Bearer with blanks', { authorization: 'Bearer    ' }],
    ['Bearer glued to a key', { authorization: 'Bearersla_live_x' }],
  ])('%s -> unauthorized', async (_name, headers) => {
    expectError(await app.request('GET', '/v1/shop', { headers }), 401, 'unauthorized', 'none');
  });

  it('unknown, malformed, revoked and expired keys answer the same invalid_token', async () => {
    const { storeId, keyId, auth } = await aStoreWithKey(app.orm);
    const answers: TestResponse[] = [];
    answers.push(
      await app.request('GET', '/v1/shop', { headers: { authorization: `Bearer sla_live_${'A'.repeat(40)}` } }),
    );
    answers.push(await app.request('GET', '/v1/shop', { headers: { authorization: 'Bearer not-a-key' } }));
    answers.push(await app.request('GET', '/v1/shop', { headers: { authorization: 'Bearer a b' } }));
    answers.push(
      await app.request('GET', '/v1/shop', { headers: { authorization: `Bearer ${auth.authorization.slice(7)} x` } }),
    );
    await revokeApiKey(app.orm.em.fork(), { storeId, keyId, now: new Date() });
    answers.push(await app.request('GET', '/v1/shop', { headers: auth }));
    const other = await aStoreWithKey(app.orm);
    await rotateApiKey(app.orm.em.fork(), {
      storeId: other.storeId,
      keyId: other.keyId,
      overlap: 'none',
      now: new Date(),
    });
    answers.push(await app.request('GET', '/v1/shop', { headers: other.auth }));
    for (const res of answers) expectError(res, 401, 'invalid_token', 'none');
    expect(new Set(answers.map((r) => r.body.error.message)).size).toBe(1);
  });
});

describe('store gates, in the spec order', () => {
  it('access_required without how_to_enable when the app is not installed', async () => {
    const { auth } = await aStoreWithKey(app.orm, { gates: { appInstalled: false, pausedBySupport: true } });
    expectError(await app.request('GET', '/v1/shop', { headers: auth }), 403, 'access_required', {
      support_email: app.config.supportEmail,
    });
  });

  it('access_required with how_to_enable when the API is not enabled', async () => {
    const { auth } = await aStoreWithKey(app.orm, { gates: { apiEnabled: false, subscriptionActive: false } });
    const res = await app.request('GET', '/v1/shop', { headers: auth });
    expectError(res, 403, 'access_required', {
      how_to_enable: expect.any(String),
      support_email: app.config.supportEmail,
    });
  });

  it('api_paused refuses every key without revoking it', async () => {
    const { storeId, auth } = await aStoreWithKey(app.orm, {
      gates: { pausedBySupport: true, subscriptionActive: false },
    });
    expectError(await app.request('GET', '/v1/shop', { headers: auth }), 403, 'api_paused', {
      how_to_enable: expect.any(String),
      support_email: app.config.supportEmail,
    });
    await setStoreGates(app.orm.em.fork(), storeId, { pausedBySupport: false, subscriptionActive: true }, new Date());
    expect((await app.request('GET', '/v1/shop', { headers: auth })).status).toBe(200);
  });

  it('plan_required without a subscription or free access; free access is enough', async () => {
    const { storeId, auth } = await aStoreWithKey(app.orm, {
      gates: { subscriptionActive: false, freeAccess: false, writeAccess: false },
    });
    expectError(await app.request('POST', '/v1/probe-write', { headers: auth }), 403, 'plan_required', 'none');
    await setStoreGates(app.orm.em.fork(), storeId, { freeAccess: true }, new Date());
    expect((await app.request('GET', '/v1/shop', { headers: auth })).status).toBe(200);
  });

  it('write_access_required (retry no/none) only on write endpoints', async () => {
    const { auth } = await aStoreWithKey(app.orm, { gates: { writeAccess: false } });
    expectError(await app.request('POST', '/v1/probe-write', { headers: auth }), 403, 'write_access_required', {
      retry: 'no',
      next_action: 'none',
    });
    expect((await app.request('GET', '/v1/probe-read', { headers: auth })).status).toBe(200);
  });
});

describe('scopes', () => {
  it('every key holds the read scopes', async () => {
    const { auth } = await aStoreWithKey(app.orm, { scopes: [] });
    expect((await app.request('GET', '/v1/shop', { headers: auth })).status).toBe(200);
    expect((await app.request('GET', '/v1/probe-read', { headers: auth })).status).toBe(200);
  });

  it.each([
    ['/v1/probe-print', 'GET', 'labels:print'],
    ['/v1/probe-write', 'POST', 'labels:write'],
    ['/v1/probe-resolve', 'POST', 'label_creations:resolve'],
    ['/v1/probe-assign', 'POST', 'pickup_points:assign'],
  ])('a read-only key on %s gets insufficient_scope with required_scope %s', async (path, method, scope) => {
    const { auth } = await aStoreWithKey(app.orm, { scopes: [] });
    expectError(await app.request(method, path, { headers: auth }), 403, 'insufficient_scope', {
      required_scope: scope,
      retry: 'no',
      next_action: 'none',
    });
  });

  it('labels:print and labels:write include labels:read but not each other', async () => {
    const printer = await aStoreWithKey(app.orm, { scopes: ['labels:print'] });
    const writer = await aStoreWithKey(app.orm, { scopes: ['labels:write'] });
    expect((await app.request('GET', '/v1/probe-read', { headers: printer.auth })).status).toBe(200);
    expect((await app.request('GET', '/v1/probe-print', { headers: printer.auth })).status).toBe(200);
    expect((await app.request('POST', '/v1/probe-write', { headers: printer.auth })).body.error.code).toBe(
      'insufficient_scope',
    );
    expect((await app.request('POST', '/v1/probe-write', { headers: writer.auth })).status).toBe(200);
    expect((await app.request('GET', '/v1/probe-print', { headers: writer.auth })).body.error.code).toBe(
      'insufficient_scope',
    );
    expect((await app.request('POST', '/v1/probe-resolve', { headers: writer.auth })).body.error.code).toBe(
      'insufficient_scope',
    );
  });

  it('a key created with the retired label_documents:read holds labels:print', async () => {
    const { auth } = await aStoreWithKey(app.orm, { scopes: ['label_documents:read'] });
    expect((await app.request('GET', '/v1/probe-print', { headers: auth })).status).toBe(200);
    const shop = await app.request('GET', '/v1/shop', { headers: auth });
    expect(shop.body.api_key.scopes).toContain('labels:print');
    expect(shop.body.api_key.scopes).not.toContain('label_documents:read');
  });

  it('gates answer before scopes', async () => {
    const { auth } = await aStoreWithKey(app.orm, { scopes: [], gates: { apiEnabled: false } });
    expect((await app.request('GET', '/v1/probe-print', { headers: auth })).body.error.code).toBe('access_required');
  });
});

describe('key lifecycle', () => {
  it('stores only a hash of the secret', async () => {
    const { keyId, secret } = await aStoreWithKey(app.orm);
    const rows = await app.orm.em
      .fork()
      .execute<Record<string, unknown>[]>('select * from api_keys where id = ?', [keyId]);
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows[0])).not.toContain(secret);
    expect(JSON.stringify(rows[0])).not.toContain(secret.slice(9, 30));
    expect(rows[0]!.secret_hash).toBe(createHash('sha256').update(secret).digest('hex'));
    expect(secret).toMatch(/^sla_live_[A-Za-z0-9]{40}$/);
  });

  it.each([
    ['none', 0],
    ['24h', 24 * 3_600_000],
    ['7d', 7 * 24 * 3_600_000],
  ] as const)('rotation with overlap %s keeps the old key working exactly that long', async (overlap, ms) => {
    const start = new Date(secondAligned(Date.now()));
    app.clock.set(start);
    const { storeId, keyId, auth } = await aStoreWithKey(app.orm, { scopes: ['labels:print'], keyName: 'warehouse' });
    const rotated = await rotateApiKey(app.orm.em.fork(), { storeId, keyId, overlap, now: start });
    expect(rotated.key.name).toBe('warehouse');
    expect(rotated.key.scopes).toEqual(rotated.previous.scopes);
    const fresh = { authorization: `Bearer ${rotated.secret}` };
    expect((await app.request('GET', '/v1/probe-print', { headers: fresh })).status).toBe(200);
    if (ms > 0) {
      app.clock.set(new Date(start.getTime() + ms - 1000));
      expect((await app.request('GET', '/v1/shop', { headers: auth })).status).toBe(200);
    }
    app.clock.set(new Date(start.getTime() + ms));
    expect((await app.request('GET', '/v1/shop', { headers: auth })).body.error.code).toBe('invalid_token');
    expect((await app.request('GET', '/v1/shop', { headers: fresh })).status).toBe(200);
  });

  it('revoke stops a key at once', async () => {
    const { storeId, keyId, auth } = await aStoreWithKey(app.orm);
    expect((await app.request('GET', '/v1/shop', { headers: auth })).status).toBe(200);
    await revokeApiKey(app.orm.em.fork(), { storeId, keyId, now: new Date() });
    expect((await app.request('GET', '/v1/shop', { headers: auth })).body.error.code).toBe('invalid_token');
  });

  it(`allows ${MAX_ACTIVE_KEYS} active keys per store; never a 21st through rotation; revoked ones do not count`, async () => {
    const { storeId, keyId } = await aStoreWithKey(app.orm);
    const em = app.orm.em.fork();
    const now = new Date();
    const ids = [keyId];
    for (let i = 1; i < MAX_ACTIVE_KEYS; i += 1)
      ids.push((await createApiKey(em, { storeId, name: `k${i}`, scopes: [], now })).key.id);
    await expect(createApiKey(em, { storeId, name: 'one too many', scopes: [], now })).rejects.toThrow(ApiKeyError);
    // With an overlap both keys would work: that would be a 21st active key.
    await expect(rotateApiKey(em, { storeId, keyId: ids[1]!, overlap: '24h', now })).rejects.toThrow(/overlap none/);
    // Without an overlap the old key stops at once: rotation works at the limit.
    const rotated = await rotateApiKey(app.orm.em.fork(), { storeId, keyId: ids[1]!, overlap: 'none', now });
    expect(rotated.key.id).not.toBe(ids[1]);
    expect(await activeKeys(storeId)).toBe(MAX_ACTIVE_KEYS);
    await revokeApiKey(em, { storeId, keyId: ids[2]!, now });
    await expect(createApiKey(em, { storeId, name: 'after revoke', scopes: [], now })).resolves.toBeDefined();
    expect(await activeKeys(storeId)).toBe(MAX_ACTIVE_KEYS);
  });

  it('concurrent creates and rotations never make a 21st active key', async () => {
    const { storeId, keyId } = await aStoreWithKey(app.orm);
    const now = new Date();
    for (let i = 1; i < MAX_ACTIVE_KEYS - 2; i += 1)
      await createApiKey(app.orm.em.fork(), { storeId, name: `k${i}`, scopes: [], now });
    // 18 active: ten creates and a rotation with overlap race for the last two places.
    const attempts = await Promise.allSettled([
      ...Array.from({ length: 10 }, (_, i) =>
        createApiKey(app.orm.em.fork(), { storeId, name: `race${i}`, scopes: [], now }),
      ),
      rotateApiKey(app.orm.em.fork(), { storeId, keyId, overlap: '24h', now }),
    ]);
    expect(attempts.filter((a) => a.status === 'fulfilled')).toHaveLength(2);
    for (const refused of attempts.filter((a) => a.status === 'rejected'))
      expect(refused.reason).toBeInstanceOf(ApiKeyError);
    expect(await activeKeys(storeId)).toBe(MAX_ACTIVE_KEYS);
  });
});

describe('GET /v1/shop', () => {
  it("returns the key's own store, scopes and pinned version", async () => {
    const a = await aStoreWithKey(app.orm, { scopes: ['labels:print'] });
    const b = await aStoreWithKey(app.orm, { scopes: ['labels:write'] });
    const resA = await app.request('GET', '/v1/shop', { headers: a.auth });
    const resB = await app.request('GET', '/v1/shop', { headers: b.auth });
    expect(resA.body.id).toBe(a.storeId);
    expect(resB.body.id).toBe(b.storeId);
    expect(resA.body.api_key).toMatchObject({ id: a.keyId, pinned_version: '2026-10-01', expires_at: null });
    expect(resA.body.api_key.scopes).toEqual([
      'shop:read',
      'labels:read',
      'carriers:read',
      'orders:read',
      'pickup_points:read',
      'labels:print',
    ]);
    expect(resA.body.access).toEqual({ api_enabled: true, paused: false, plan: 'subscription', write_access: true });
  });

  it("answers the same whether it reads on its own (a key's first request) or in the admission statement", async () => {
    const shop = await aStoreWithKey(app.orm, { scopes: ['labels:write'] });
    // A rotation in overlap an hour ago: the old key's `expires_at` is set, at millisecond precision in the database,
    // and it still works (the app reads the real clock here).
    const now = new Date(secondAligned(Date.now() - HOUR) + 987);
    await rotateApiKey(app.orm.em.fork(), { storeId: shop.storeId, keyId: shop.keyId, overlap: '24h', now });
    const first = await app.request('GET', '/v1/shop', { headers: shop.auth });
    const again = await app.request('GET', '/v1/shop', { headers: shop.auth });
    expect(first.status).toBe(200);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(first.body.api_key).toMatchObject({ id: shop.keyId, expires_at: isoSeconds(now.getTime() + DAY) });
    expect(first.body.api_key.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(first.body).toMatchObject({ id: shop.storeId, domain: shop.domain });
  });

  it('takes no store parameter', async () => {
    const { auth } = await aStoreWithKey(app.orm);
    const res = await app.request('GET', '/v1/shop?store_id=st_other', { headers: auth });
    expectError(res, 422, 'validation_error', expect.objectContaining({ parameter: 'store_id' }));
  });
});

describe('request log', () => {
  it('writes one row per request with the route template, status, error code, key and IP; never the query string', async () => {
    const { storeId, keyId, auth } = await aStoreWithKey(app.orm, { scopes: [] });
    const ok = await app.request('GET', '/v1/shop', { headers: auth });
    const refused = await app.request('GET', '/v1/probe-print', { headers: auth });
    const invalid = await app.request('GET', '/v1/shop?unexpected=secret-value', { headers: auth });
    await app.flushRequestLog();
    const rows = await app.orm.em
      .fork()
      .execute<Record<string, unknown>[]>('select * from request_log where store_id = ? order by id', [storeId]);
    expect(rows).toHaveLength(3);
    expect(rows[0]).toMatchObject({
      request_id: ok.headers.get('x-request-id'),
      api_key_id: keyId,
      method: 'GET',
      endpoint: '/v1/shop',
      status: 200,
      error_code: null,
      ip: expect.stringMatching(/127\.0\.0\.1/),
    });
    expect(rows[1]).toMatchObject({
      request_id: refused.headers.get('x-request-id'),
      endpoint: '/v1/probe-print',
      status: 403,
      error_code: 'insufficient_scope',
    });
    expect(rows[2]).toMatchObject({
      request_id: invalid.headers.get('x-request-id'),
      endpoint: '/v1/shop',
      status: 422,
      error_code: 'validation_error',
    });
    expect(JSON.stringify(rows)).not.toContain('secret-value');
    expect(JSON.stringify(rows)).not.toContain('unexpected');
  });

  it('is written in batches shortly after the request, without waiting for more traffic', async () => {
    const { storeId, auth } = await aStoreWithKey(app.orm);
    await app.request('GET', '/v1/shop', { headers: auth });
    const rows = await eventually(async () => {
      const found = await app.orm.em.fork().execute('select status from request_log where store_id = ?', [storeId]);
      return found.length > 0 ? found : null;
    });
    expect(rows).toEqual([{ status: 200 }]);
  });

  it('records the client address a trusted proxy forwards, and only then', async () => {
    const { storeId, auth } = await aStoreWithKey(app.orm);
    const behindProxy = await startTestApp({ env: { TRUST_PROXY: 'true' } });
    try {
      const headers = { ...auth, 'x-forwarded-for': '203.0.113.7' };
      await behindProxy.request('GET', '/v1/shop', { headers });
      await app.request('GET', '/v1/shop', { headers });
      await behindProxy.flushRequestLog();
      await app.flushRequestLog();
    } finally {
      await behindProxy.close();
    }
    const rows = await app.orm.em
      .fork()
      .execute<Array<{ ip: string }>>('select ip from request_log where store_id = ? order by id', [storeId]);
    expect(rows).toHaveLength(2);
    expect(rows.map((r) => r.ip)).toEqual(
      expect.arrayContaining(['203.0.113.7', expect.stringMatching(/127\.0\.0\.1/)]),
    );
  });

  it('has no row for requests no key attributes to a store', async () => {
    const before = await app.orm.em
      .fork()
      .execute<{ n: string }[]>('select count(*) as n from request_log where store_id is null');
    await app.request('GET', '/v1/shop', { headers: { authorization: 'Bearer nope' } });
    await app.flushRequestLog();
    const after = await app.orm.em
      .fork()
      .execute<{ n: string }[]>('select count(*) as n from request_log where store_id is null');
    expect(after[0]!.n).toBe(before[0]!.n);
  });
});

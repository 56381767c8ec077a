import { z } from 'zod';
import { defineRoute } from '../../src/http/route';
import { aStoreWithKey } from '../helpers/stores';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { expectError } from '../helpers/errors';

// A route of the test's own exercises the body pipeline (malformed JSON, closed schemas, wrong types) exactly as
// every JSON endpoint gets it; the real endpoints are covered in their own suites.
const echoBody = z
  .object({ weight_grams: z.number().int().min(1).max(1_000_000), mode: z.enum(['return', 'reject']).optional() })
  .strict();
const echoRoute = defineRoute({
  method: 'POST',
  path: '/test-echo',
  operationId: 'testEcho',
  summary: 'test only',
  tag: 'Test',
  access: { kind: 'public' },
  body: echoBody,
  requestExample: { weight_grams: 1200 },
  responses: { 200: { description: 'echo', schema: echoBody } },
  handler: async (ctx, { body }) => {
    ctx.body = body;
  },
});
const failingRoute = defineRoute({
  method: 'GET',
  path: '/test-boom',
  operationId: 'testBoom',
  summary: 'test only',
  tag: 'Test',
  access: { kind: 'public' },
  responses: { 200: { description: 'never' } },
  handler: async () => {
    throw new Error('secret database detail at /srv/app/src/x.ts:12');
  },
});

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ extraRoutes: [echoRoute, failingRoute] });
});
afterAll(async () => app.close());

describe('headers on every response', () => {
  it.each([
    ['GET', '/v1/openapi.json'],
    ['GET', '/v1/nope'],
    ['DELETE', '/v1/openapi.json'],
    ['GET', '/v1/shop'],
    ['GET', '/healthz'],
    ['GET', '/elsewhere'],
  ])('%s %s carries X-Request-Id, Service-Version and no CORS headers', async (method, path) => {
    const res = await app.request(method, path, { headers: { origin: 'https://evil.example' } });
    expect(res.headers.get('x-request-id')).toMatch(/^req_[A-Za-z0-9]{24}$/);
    expect(res.headers.get('service-version')).toBe('2026-10-01');
    for (const name of res.headers.keys()) expect(name).not.toMatch(/^access-control-/);
  });

  it('uses a new request id per request', async () => {
    const a = await app.request('GET', '/v1/nope');
    const b = await app.request('GET', '/v1/nope');
    expect(a.headers.get('x-request-id')).not.toBe(b.headers.get('x-request-id'));
  });

  it('sends Cache-Control: no-store, private except on the machine-readable description', async () => {
    expect((await app.request('GET', '/v1/nope')).headers.get('cache-control')).toBe('no-store, private');
    expect((await app.request('GET', '/v1/shop')).headers.get('cache-control')).toBe('no-store, private');
    expect((await app.request('GET', '/v1/docs/errors')).headers.get('cache-control')).toBe('no-store, private');
    expect((await app.request('GET', '/v1/openapi.json')).headers.get('cache-control')).toBe('public, max-age=300');
  });

  it('answers OPTIONS (a CORS preflight) with 405 and no CORS headers', async () => {
    const res = await app.request('OPTIONS', '/v1/openapi.json', {
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'GET' },
    });
    expectError(res, 405, 'method_not_allowed');
    for (const name of res.headers.keys()) expect(name).not.toMatch(/^access-control-/);
  });
});

describe('Service-Version', () => {
  it('renders the requested version and says so', async () => {
    const res = await app.request('GET', '/v1/openapi.json', { headers: { 'service-version': '2026-10-01' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('service-version')).toBe('2026-10-01');
  });

  it('refuses an unknown version with 422 unsupported_version', async () => {
    const res = await app.request('GET', '/v1/openapi.json', { headers: { 'service-version': '2025-01-01' } });
    expectError(res, 422, 'unsupported_version');
    expect(res.body.error.details).toEqual({ requested_version: '2025-01-01', allowed_versions: ['2026-10-01'] });
    expect(res.headers.get('service-version')).toBe('2026-10-01');
  });

  it("uses the key's pinned version when the request names none", async () => {
    const { auth, keyId } = await aStoreWithKey(app.orm);
    await app.orm.em.fork().execute('update api_keys set pinned_version = ? where id = ?', ['2026-10-01', keyId]);
    const res = await app.request('GET', '/v1/shop', { headers: auth });
    expect(res.status).toBe(200);
    expect(res.headers.get('service-version')).toBe('2026-10-01');
    expect(res.body.api_version).toBe('2026-10-01');
    expect(res.body.api_key.pinned_version).toBe('2026-10-01');
  });
});

describe('unknown paths and methods', () => {
  it.each(['/v1/nope', '/v1/labels/lbl_x/unknown', '/v2/labels', '/'])('%s answers 404 not_found', async (path) => {
    const res = await app.request('GET', path);
    expectError(res, 404, 'not_found');
    expect(res.body.error.details).toBeUndefined();
    expect(res.headers.get('cache-control')).toBe('no-store, private');
    // Where the API lives and where every endpoint is listed, for a base URL that lacks /v1 (issue 57).
    expect(res.body.error.message).toContain(`GET ${path}`);
    expect(res.body.error.message).toMatch(/\/v1\/docs/);
  });

  it.each([
    ['/labels', /under \/v1 \(GET \/v1\/labels\)/],
    ['/v1/v1/labels', /repeats \/v1.*\$BASE\/labels/],
  ])('%s says how the path misses /v1', async (path, hint) => {
    const res = await app.request('GET', path);
    expectError(res, 404, 'not_found');
    expect(res.body.error.message).toMatch(hint);
  });

  it('answers 405 with Allow and details.allowed_methods when the path exists', async () => {
    const res = await app.request('POST', '/v1/openapi.json');
    expectError(res, 405, 'method_not_allowed');
    expect(res.headers.get('allow')).toBe('GET');
    expect(res.body.error.details).toEqual({ allowed_methods: ['GET'] });
  });

  it('answers 405 on a key route before asking for the key', async () => {
    const res = await app.request('DELETE', '/v1/shop');
    expectError(res, 405, 'method_not_allowed');
    expect(res.headers.get('allow')).toBe('GET');
  });
});

describe('request validation', () => {
  it('refuses malformed JSON with 422 validation_error', async () => {
    const res = await app.request('POST', '/v1/test-echo', {
      rawBody: '{"weight_grams": 1',
      headers: { 'content-type': 'application/json' },
    });
    expectError(res, 422, 'validation_error');
    expect(res.body.error.details).toMatchObject({
      parameter: 'body',
      retry: 'after_fix',
      next_action: 'fix_and_retry',
    });
  });

  it('refuses unknown fields (closed schema)', async () => {
    const res = await app.request('POST', '/v1/test-echo', { body: { weight_grams: 10, api_secret: 'x' } });
    expectError(res, 422, 'validation_error');
    expect(res.body.error.details).toMatchObject({ parameter: 'api_secret' });
  });

  it('refuses wrong types with parameter and received', async () => {
    const res = await app.request('POST', '/v1/test-echo', { body: { weight_grams: '10' } });
    expectError(res, 422, 'validation_error');
    expect(res.body.error.details).toMatchObject({ parameter: 'weight_grams', received: '10' });
  });

  it('lists the allowed values of an enum', async () => {
    const res = await app.request('POST', '/v1/test-echo', { body: { weight_grams: 10, mode: 'maybe' } });
    expectError(res, 422, 'validation_error');
    expect(res.body.error.details).toMatchObject({
      parameter: 'mode',
      received: 'maybe',
      allowed: ['return', 'reject'],
    });
  });

  it('reports the maximum of a range', async () => {
    const res = await app.request('POST', '/v1/test-echo', { body: { weight_grams: 2_000_000 } });
    expectError(res, 422, 'validation_error');
    expect(res.body.error.details).toMatchObject({ parameter: 'weight_grams', received: 2_000_000, max: 1_000_000 });
  });

  it('refuses a body that is not JSON', async () => {
    const res = await app.request('POST', '/v1/test-echo', {
      rawBody: 'weight_grams=1',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expectError(res, 422, 'validation_error');
    expect(res.body.error.details).toMatchObject({ header: 'Content-Type' });
  });

  it('accepts a valid body', async () => {
    const res = await app.request('POST', '/v1/test-echo', { body: { weight_grams: 10 } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ weight_grams: 10 });
  });

  it('refuses unknown query parameters', async () => {
    const res = await app.request('GET', '/v1/openapi.json?format=yaml');
    expectError(res, 422, 'validation_error');
    expect(res.body.error.details).toMatchObject({ parameter: 'format' });
  });

  it('refuses a body over 256 KB with max_bytes, declared or streamed', async () => {
    const big = JSON.stringify({ weight_grams: 1, pad: 'x'.repeat(300 * 1024) });
    const declared = await app.request('POST', '/v1/test-echo', {
      rawBody: big,
      headers: { 'content-type': 'application/json' },
    });
    expectError(declared, 422, 'validation_error');
    expect(declared.body.error.details).toMatchObject({ max_bytes: 262_144 });
    const onUnknownPath = await app.request('POST', '/v1/nope', {
      rawBody: big,
      headers: { 'content-type': 'application/json' },
    });
    expectError(onUnknownPath, 422, 'validation_error');
    expect(onUnknownPath.body.error.details).toMatchObject({ max_bytes: 262_144 });
  });
});

describe('API key in the query string', () => {
  it.each(['/v1/openapi.json', '/v1/shop', '/v1/nope', '/v1/docs/errors', '/healthz'])(
    'is refused with 400 on %s',
    async (path) => {
      const res = await app.request('GET', `${path}?api_key=sla_live_whatever`);
      expectError(res, 400, 'validation_error');
      expect(res.body.error.details).toMatchObject({ parameter: 'api_key' });
    },
  );
});

describe('internal errors', () => {
  it('answer 500 internal_error without details or internals', async () => {
    const res = await app.request('GET', '/v1/test-boom');
    expectError(res, 500, 'internal_error', 'none');
    expect(res.body.error.doc_url).toBe(`${app.baseUrl}/v1/docs/errors#internal_error`);
    expect(res.text).not.toMatch(/secret database detail|\/srv\/app|at .*\.ts/);
  });
});

describe('error reference', () => {
  it('serves a section for each code that doc_url points to', async () => {
    const res = await app.request('GET', '/v1/docs/errors');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/text\/html/);
    for (const code of [
      'not_found',
      'method_not_allowed',
      'validation_error',
      'unsupported_version',
      'internal_error',
    ]) {
      expect(res.text).toContain(`id="${code}"`);
    }
  });
});

describe('health', () => {
  it('/healthz says the process is up and /readyz that PostgreSQL and Temporal answer', async () => {
    const health = await app.request('GET', '/healthz');
    expect(health.status).toBe(200);
    expect(health.body).toEqual({ status: 'ok' });
    const ready = await app.request('GET', '/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'ready', checks: { postgres: 'ok', temporal: 'ok' } });
  });
});

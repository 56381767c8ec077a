import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { BUCKET_NAMES } from '../../src/domain/rate-limits';
import { expectError } from '../helpers/errors';
import { freePort, spawnTs, stop } from '../helpers/processes';
import { sendRaw } from '../helpers/raw-http';
import { aStoreWithKey } from '../helpers/stores';
import { startTestApp, type TestApp, type TestResponse } from '../helpers/test-app';

// Spec "Errors": bad input is a 4xx with the error body, never a 5xx; "Limits": request body up to 256 KB. The answers
// where the spec leaves room (nesting depth, answers to what Node's parser refuses) are docs/decisions/0028 and 0029.

let app: TestApp;
let shop: Awaited<ReturnType<typeof aStoreWithKey>>;
beforeAll(async () => {
  app = await startTestApp();
  shop = await aStoreWithKey(app.orm, {
    limits: Object.fromEntries(BUCKET_NAMES.map((bucket) => [bucket, 1_000_000])),
  });
});
afterAll(async () => app.close());

const AFTER_FIX = { retry: 'after_fix', next_action: 'fix_and_retry' };
const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
let keys = 0;
const key = () => `bad-input-${process.pid}-${(keys += 1)}`;

function postJson(path: string, text: string, method = 'POST', headers: Record<string, string> = {}) {
  return app.request(method, path, {
    rawBody: text,
    headers: { ...shop.auth, 'content-type': 'application/json', ...headers },
  });
}

describe('JSON nesting depth', () => {
  it.each([
    [
      'POST /labels (dry run)',
      'POST',
      '/v1/labels',
      (v: string) => `{"order_id":"1001","dry_run":true,"client_reference":${v}}`,
    ],
    ['POST /labels (live)', 'POST', '/v1/labels', (v: string) => `{"order_id":"1001","client_reference":${v}}`],
    ['resolve', 'POST', '/v1/label-creations/lcr_x1/resolve', (v: string) => `{"outcome":"not_created","note":${v}}`],
    [
      'pickup point',
      'PUT',
      '/v1/orders/1001/pickup-point',
      (v: string) => `{"carrier":"carrier_a","pickup_point_id":${v}}`,
    ],
  ])('refuses 5,000 levels in a field of %s with 422 max_depth', async (_, method, path, body) => {
    const res = await postJson(path, body(nested(5_000)), method, { 'idempotency-key': key(), prefer: 'wait=0' });
    expectError(res, 422, 'validation_error', { parameter: 'body', max_depth: 32, ...AFTER_FIX });
  });

  it('takes a body nested exactly 32 levels to its schema and refuses 33', async () => {
    // The root object is the first level.
    const atLimit = await postJson('/v1/labels', `{"dry_run":true,"client_reference":${nested(31)}}`);
    expectError(atLimit, 422, 'validation_error');
    expect(atLimit.body.error.details).toMatchObject({ parameter: 'client_reference' });
    const over = await postJson('/v1/labels', `{"dry_run":true,"client_reference":${nested(32)}}`);
    expectError(over, 422, 'validation_error', { parameter: 'body', max_depth: 32, ...AFTER_FIX });
  });
});

describe('bodies over 256 KB sent chunked', () => {
  const big = Buffer.from(JSON.stringify({ order_id: '1001', dry_run: true, pad: 'x'.repeat(300 * 1024) }));

  it.each([
    ['POST', '/v1/labels'],
    ['POST', '/v1/label-creations/lcr_x1/resolve'],
    ['PUT', '/v1/orders/1001/pickup-point'],
  ])('%s %s answers the same 422 max_bytes as a declared length', async (method, target) => {
    const headers: Array<[string, string]> = [
      ['Authorization', shop.auth.authorization],
      ['Content-Type', 'application/json'],
    ];
    const declared = await app.rawRequest({ method, target, headers, body: big });
    const chunked = await app.rawRequest({ method, target, headers, body: big, chunkBytes: 16 * 1024 });
    for (const res of [declared, chunked]) {
      expectError(res, 422, 'validation_error', { parameter: 'body', max_bytes: 262_144, ...AFTER_FIX });
    }
  });

  it('reads a chunked body under the limit like any other', async () => {
    const res = await app.rawRequest({
      method: 'POST',
      target: '/v1/labels',
      headers: [
        ['Authorization', shop.auth.authorization],
        ['Content-Type', 'application/json'],
      ],
      body: Buffer.from(JSON.stringify({ order_id: '1001', dry_run: true, colour: 'red' })),
      chunkBytes: 7,
    });
    expectError(res, 422, 'validation_error');
    expect(res.body.error.details).toMatchObject({ parameter: 'colour' });
  });
});

describe('NUL and lone surrogates', () => {
  it.each([
    ['/v1/label-creations', 'client_reference'],
    ['/v1/label-creations', 'order_name'],
    ['/v1/label-creations', 'idempotency_key'],
    ['/v1/carrier-accounts', 'carrier'],
    ['/v1/labels', 'batch_id'],
    ['/v1/labels', 'tracking_number'],
    ['/v1/labels', 'order_name'],
  ])('GET %s?%s=%00 answers 422 naming the parameter', async (path, name) => {
    const res = await app.request('GET', `${path}?${name}=a%00b`, { headers: shop.auth });
    expectError(res, 422, 'validation_error', { parameter: name, ...AFTER_FIX });
    expect(res.body.error.message).toContain('NUL');
  });

  it('refuses a NUL in the idempotency_key of mark printed like any bad key (422)', async () => {
    const res = await app.request('POST', '/v1/labels/lbl_x1/printed?idempotency_key=abcdefgh%00', {
      headers: shop.auth,
    });
    expectError(res, 422, 'validation_error', { parameter: 'idempotency_key', ...AFTER_FIX });
  });

  it.each([
    ['client_reference', 'NUL', { order_id: '1001' }, '\u0000'],
    ['client_reference', 'surrogate', { order_id: '1001' }, 'ref-\ud800'],
    ['order_name', 'NUL', {}, '#1001\u0000'],
    ['order_name', 'surrogate', {}, '\udfff1001'],
  ])('POST /labels, live and dry run, refuses %s holding a %s with 422', async (field, what, rest, value) => {
    for (const dryRun of [false, true]) {
      const res = await app.request('POST', '/v1/labels', {
        headers: { ...shop.auth, 'idempotency-key': key(), prefer: 'wait=0' },
        body: { ...rest, [field]: value, ...(dryRun ? { dry_run: true } : {}) },
      });
      expectError(res, 422, 'validation_error', { parameter: field, ...AFTER_FIX });
      expect(res.body.error.message).toContain(what);
    }
  });

  it('names a NUL in a key of a nested object as JSON spells it', async () => {
    const res = await app.request('POST', '/v1/labels', {
      headers: shop.auth,
      body: { order_id: '1001', dry_run: true, carrier_options: { 'x\u0000': 'y' } },
    });
    expectError(res, 422, 'validation_error', { parameter: 'carrier_options.x\\u0000', ...AFTER_FIX });
  });

  it('takes a surrogate pair (an emoji) as the text it is', async () => {
    const res = await app.request('POST', '/v1/labels', {
      headers: shop.auth,
      body: { order_id: '1001', dry_run: true, client_reference: 'box 📦' },
    });
    expectError(res, 422, 'order_not_eligible');
  });

  it.each(['/v1/labels/%00', '/v1/labels/lbl_a%00b/document', '/v1/label-creations/lcr_%00', '/v1/orders/1%00'])(
    'answers an ID holding a NUL (%s) as a malformed ID: 404',
    async (path) => {
      expectError(await app.request('GET', path, { headers: shop.auth }), 404, 'not_found', 'none');
    },
  );
});

/** The headers every answer carries (spec "Endpoints"), on an answer the app itself never saw. */
function expectCommonHeaders(res: TestResponse): void {
  expect(res.headers.get('x-request-id')).toMatch(/^req_[A-Za-z0-9]{24}$/);
  expect(res.headers.get('service-version')).toBe('2026-10-01');
  expect(res.headers.get('cache-control')).toBe('no-store, private');
  expect(res.body.error.doc_url).toBe(`${app.baseUrl}/v1/docs/errors#${res.body.error.code}`);
}

describe("requests Node's HTTP parser refuses", () => {
  const auth = (): Array<[string, string]> => [['Authorization', shop.auth.authorization]];

  it('answers a header section over 16 KB with 422 naming the largest header', async () => {
    const res = await app.rawRequest({
      method: 'GET',
      target: '/v1/shop',
      headers: [...auth(), ['X-Padding', 'p'.repeat(17_000)]],
    });
    expectError(res, 422, 'validation_error', { header: 'X-Padding', max_bytes: 16_384, ...AFTER_FIX });
    expectCommonHeaders(res);
  });

  it('answers a URL over 16 KB with 422 naming the query parameter, or 404 for a path', async () => {
    const query = await app.rawRequest({
      method: 'GET',
      target: `/v1/labels?status=ready&order_name=${'x'.repeat(17_000)}`,
      headers: auth(),
    });
    expectError(query, 422, 'validation_error', { parameter: 'order_name', max_bytes: 16_384, ...AFTER_FIX });
    expectCommonHeaders(query);
    const path = await app.rawRequest({
      method: 'GET',
      target: `/v1/labels/lbl_${'x'.repeat(17_000)}`,
      headers: auth(),
    });
    expectError(path, 404, 'not_found', 'none');
    expectCommonHeaders(path);
  });

  it('answers a raw 0xFF byte in the path with 404 and in the query with 422 naming the parameter', async () => {
    const inPath = await app.rawRequest({
      method: 'GET',
      target: Buffer.concat([Buffer.from('/v1/labels/lbl_'), Buffer.from([0xff])]),
      headers: auth(),
    });
    expectError(inPath, 404, 'not_found', 'none');
    expectCommonHeaders(inPath);
    const inQuery = await app.rawRequest({
      method: 'GET',
      target: Buffer.concat([Buffer.from('/v1/labels?status=ready&batch_id=b'), Buffer.from([0xff])]),
      headers: auth(),
    });
    expectError(inQuery, 422, 'validation_error', { parameter: 'batch_id', ...AFTER_FIX });
  });

  it('answers a NUL in a header value with 422 naming the header', async () => {
    const res = await app.rawRequest({
      method: 'POST',
      target: '/v1/labels',
      headers: [...auth(), ['Idempotency-Key', 'abcdefgh\x00'], ['Content-Type', 'application/json']],
      body: Buffer.from('{"order_id":"1001"}'),
    });
    expectError(res, 422, 'validation_error', { header: 'Idempotency-Key', ...AFTER_FIX });
    expectCommonHeaders(res);
  });

  it('answers broken chunked framing with the 422 of the request the app has, naming the body', async () => {
    const res = await app.rawRequest({
      method: 'POST',
      target: '/v1/labels',
      headers: [...auth(), ['Content-Type', 'application/json'], ['Transfer-Encoding', 'chunked']],
      body: Buffer.from('22\r\n{"order_id":"1001","dry_run":true}\r\nzz\r\n'),
      framed: true,
    });
    expectError(res, 422, 'validation_error', { parameter: 'body', ...AFTER_FIX });
    expect(res.headers.get('connection')).toBe('close');
  });

  it('gives every refused request an ID of its own', async () => {
    const send = () => app.rawRequest({ method: 'GET', target: Buffer.from([0x2f, 0xff]), headers: auth() });
    const [a, b] = [await send(), await send()];
    expect(a.body.error.request_id).not.toBe(b.body.error.request_id);
  });

  it('answers an HTTP/1.1 request without Host with 400 naming the header (RFC 9112)', async () => {
    const res = await app.rawRequest({ method: 'GET', target: '/v1/shop', headers: auth(), noHost: true });
    expectError(res, 400, 'validation_error', { header: 'Host', received: null, ...AFTER_FIX });
    expect(res.body.error.doc_url).toBe(`${app.baseUrl}/v1/docs/errors#validation_error`);
  });

  it('ignores an Expect it does not know instead of answering an empty 417', async () => {
    const res = await app.rawRequest({ method: 'GET', target: '/v1/shop', headers: [...auth(), ['Expect', 'foo']] });
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(shop.storeId);
  });
});

describe('the server entry (src/server.ts)', () => {
  let server: ChildProcess | undefined;
  afterAll(async () => stop(server));

  it('answers what the parser refuses with the error body too', async () => {
    const port = await freePort();
    server = await spawnTs(
      join(__dirname, '..', '..', 'src', 'server.ts'),
      { ...process.env, PORT: String(port) },
      'api',
    );
    const baseUrl = `http://127.0.0.1:${port}`;
    const overflow = await sendRaw(baseUrl, {
      method: 'GET',
      target: '/v1/shop',
      headers: [['X-Padding', 'p'.repeat(17_000)]],
    });
    const rawByte = await sendRaw(baseUrl, { method: 'GET', target: Buffer.from([0x2f, 0x76, 0x31, 0x2f, 0xff]) });
    for (const [res, status, code] of [
      [overflow, 422, 'validation_error'],
      [rawByte, 404, 'not_found'],
    ] as const) {
      expect({ status: res.status, code: (JSON.parse(res.text) as { error: { code: string } }).error.code }).toEqual({
        status,
        code,
      });
      expect((JSON.parse(res.text) as { error: { request_id: string } }).error.request_id).toBe(
        res.headers['x-request-id'],
      );
    }
  });
});

import {
  createLabel,
  createShippingLabelClient,
  labelPages,
  ShippingLabelApiError,
  verifyWebhookSignature,
} from '../../client/src/index';
import { signatureHeader } from '../../src/webhooks/signature';

/** A fetch answering from a script, recording each request (method, path and query, headers). */
function scripted(answers: Array<{ status: number; body: unknown; headers?: Record<string, string> }>) {
  const requests: Array<{ method: string; url: string; headers: Headers }> = [];
  const fetch = async (request: Request) => {
    requests.push({
      method: request.method,
      url: request.url.replace('https://api.test/v1', ''),
      headers: request.headers,
    });
    const next = answers.shift();
    if (!next) throw new Error(`no answer scripted for ${request.method} ${request.url}`);
    return new Response(JSON.stringify(next.body), {
      status: next.status,
      headers: { 'content-type': 'application/json', ...next.headers },
    });
  };
  return { requests, api: createShippingLabelClient({ baseUrl: 'https://api.test/v1', apiKey: 'sla_live_x', fetch }) };
}

const errorBody = (code: string) => ({
  error: { code, message: code, request_id: 'req_1', doc_url: `https://api.test/v1/docs/errors#${code}` },
});

describe('createLabel', () => {
  it('sends a generated Idempotency-Key and Prefer: wait, then polls after Retry-After until the creation leaves processing', async () => {
    const { api, requests } = scripted([
      { status: 202, body: { id: 'lcr_1', status: 'processing', labels: [] }, headers: { 'Retry-After': '0' } },
      { status: 200, body: { id: 'lcr_1', status: 'processing', labels: [] }, headers: { 'Retry-After': '0' } },
      { status: 200, body: { id: 'lcr_1', status: 'succeeded', labels: [{ id: 'lbl_1' }] } },
    ]);
    const creation = await createLabel(api, { order_id: '1001' }, { waitSeconds: 5 });
    expect(creation).toMatchObject({ id: 'lcr_1', status: 'succeeded' });
    expect(requests.map((r) => `${r.method} ${r.url}`)).toEqual([
      'POST /labels',
      'GET /label-creations/lcr_1',
      'GET /label-creations/lcr_1',
    ]);
    expect(requests[0]!.headers.get('Idempotency-Key')).toMatch(/^[0-9a-f-]{36}$/);
    expect(requests.map((r) => r.headers.get('Prefer'))).toEqual(['wait=5', 'wait=5', 'wait=5']);
  });

  it('keeps a given key, and throws the refusal with its code', async () => {
    const { api, requests } = scripted([{ status: 409, body: errorBody('unresolved_creation') }]);
    const refused = createLabel(api, { order_id: '1001' }, { idempotencyKey: 'order-1001-label' });
    await expect(refused).rejects.toBeInstanceOf(ShippingLabelApiError);
    await expect(refused).rejects.toMatchObject({ code: 'unresolved_creation', status: 409, requestId: 'req_1' });
    expect(requests[0]!.headers.get('Idempotency-Key')).toBe('order-1001-label');
  });
});

describe('retries', () => {
  it('sends a request answered 429 or 503 again after Retry-After, with the same body and key', async () => {
    const { api, requests } = scripted([
      { status: 429, body: errorBody('rate_limited'), headers: { 'Retry-After': '0' } },
      { status: 503, body: errorBody('temporarily_unavailable'), headers: { 'Retry-After': '0' } },
      { status: 201, body: { id: 'lcr_2', status: 'succeeded', labels: [] } },
    ]);
    const creation = await createLabel(api, { order_id: '1002' });
    expect(creation.id).toBe('lcr_2');
    expect(new Set(requests.map((r) => r.headers.get('Idempotency-Key'))).size).toBe(1);
    expect(requests).toHaveLength(3);
  });

  it('gives the answer back after the last retry, or when Retry-After is longer than it waits', async () => {
    const { api } = scripted([{ status: 429, body: errorBody('rate_limited'), headers: { 'Retry-After': '3600' } }]);
    const res = await api.GET('/shop');
    expect(res.response.status).toBe(429);
    expect(res.error?.error.code).toBe('rate_limited');
  });
});

describe('labelPages', () => {
  it('follows next_cursor with the same filters until has_more is false', async () => {
    const { api, requests } = scripted([
      { status: 200, body: { data: [{ id: 'lbl_1' }], next_cursor: 'c1', has_more: true } },
      { status: 200, body: { data: [{ id: 'lbl_2' }], next_cursor: 'c2', has_more: false } },
    ]);
    const ids: string[] = [];
    for await (const page of labelPages(api, { order_id: '1001' })) ids.push(...page.data.map((l) => l.id));
    expect(ids).toEqual(['lbl_1', 'lbl_2']);
    expect(requests.map((r) => r.url)).toEqual(['/labels?order_id=1001', '/labels?order_id=1001&cursor=c1']);
  });
});

describe('verifyWebhookSignature', () => {
  const body = '{"id":"evt_1","topic":"label_creation.updated"}';
  const now = 1_800_000_000;

  it('accepts what the service signs, under either secret of a rotation', () => {
    const header = signatureHeader(['whsec_new', 'whsec_old'], now, body);
    for (const secret of ['whsec_new', 'whsec_old'])
      expect(verifyWebhookSignature({ header, body, secret, nowSeconds: now + 10 })).toEqual({ ok: true });
    expect(verifyWebhookSignature({ header, body: Buffer.from(body), secret: 'whsec_new', nowSeconds: now })).toEqual({
      ok: true,
    });
  });

  it('refuses another body or secret, an old timestamp and a malformed header', () => {
    const header = signatureHeader(['whsec_a'], now, body);
    const check = (options: Partial<Parameters<typeof verifyWebhookSignature>[0]>) =>
      verifyWebhookSignature({ header, body, secret: 'whsec_a', nowSeconds: now, ...options });
    expect(check({ body: body.replace('evt_1', 'evt_2') })).toEqual({ ok: false, reason: 'no_match' });
    expect(check({ secret: 'whsec_b' })).toEqual({ ok: false, reason: 'no_match' });
    expect(check({ nowSeconds: now + 301 })).toEqual({ ok: false, reason: 'too_old' });
    expect(check({ header: 'v1=abc' })).toEqual({ ok: false, reason: 'malformed' });
    expect(check({ header: undefined })).toEqual({ ok: false, reason: 'malformed' });
  });
});

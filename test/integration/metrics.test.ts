import { createApiMetrics } from '../../src/metrics/api-metrics';
import { startMetricsServer } from '../../src/metrics/server';
import { sampleValue } from '../helpers/prometheus';
import { aStoreWithKey } from '../helpers/stores';
import { startTestApp, type TestApp } from '../helpers/test-app';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => app.close());

async function scrape(): Promise<string> {
  const res = await app.request('GET', '/metrics');
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return res.text;
}

describe('GET /metrics of the API', () => {
  it('counts each answer by method, route template and status, and times it', async () => {
    const { auth } = await aStoreWithKey(app.orm);
    const before = await scrape();
    const shop = { method: 'GET', route: '/v1/shop', status: '200' };
    const missing = { method: 'GET', route: '/v1/labels/{label_id}', status: '404' };
    await app.request('GET', '/v1/shop', { headers: auth });
    await app.request('GET', '/v1/shop', { headers: auth });
    await app.request('GET', '/v1/labels/lbl_nope', { headers: auth });
    await app.request('GET', '/v1/shop');
    const after = await scrape();

    const delta = (name: string, labels: Record<string, string>) =>
      (sampleValue(after, name, labels) ?? 0) - (sampleValue(before, name, labels) ?? 0);
    expect(delta('http_requests_total', shop)).toBe(2);
    expect(delta('http_requests_total', missing)).toBe(1);
    expect(delta('http_requests_total', { ...shop, status: '401' })).toBe(1);
    expect(delta('http_request_duration_seconds_count', shop)).toBe(2);
    expect(delta('http_request_duration_seconds_bucket', { ...shop, le: '+Inf' })).toBe(2);
    // Never a series per raw path.
    expect(after).not.toContain('lbl_nope');
    expect(sampleValue(after, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
  });

  it('counts rate-limit refusals by the refusing bucket', async () => {
    const { auth } = await aStoreWithKey(app.orm, { limits: { read_key_per_second: 1 } });
    // One instant for both requests: they fall in the same one-second window whatever the wall clock does.
    app.clock.set(new Date());
    try {
      const before = await scrape();
      expect((await app.request('GET', '/v1/shop', { headers: auth })).status).toBe(200);
      expect((await app.request('GET', '/v1/shop', { headers: auth })).status).toBe(429);
      const after = await scrape();
      const refused = (text: string) =>
        sampleValue(text, 'shipping_label_rate_limited_total', { bucket: 'read_key_per_second' }) ?? 0;
      expect(refused(after) - refused(before)).toBe(1);
    } finally {
      app.clock.reset();
    }
  });

  it('labels requests no route matched as unmatched', async () => {
    await app.request('GET', '/v1/nope');
    expect(sampleValue(await scrape(), 'http_requests_total', { route: 'unmatched', status: '404' })).toBeGreaterThan(
      0,
    );
  });

  it('is outside /v1 and needs no key', async () => {
    expect((await app.request('GET', '/v1/metrics')).status).toBe(404);
    const post = await app.request('POST', '/metrics');
    expect([post.status, post.headers.get('allow'), post.body.error.code]).toEqual([405, 'GET', 'method_not_allowed']);
    expect(await scrape()).toContain('# TYPE http_requests_total counter');
  });
});

describe('METRICS_PORT', () => {
  it('moves /metrics off the API port', async () => {
    const separate = await startTestApp({ env: { METRICS_PORT: '9' } });
    try {
      expect((await separate.request('GET', '/metrics')).status).toBe(404);
    } finally {
      await separate.close();
    }
  });

  it('serves the registry on a port of its own, and nothing else there', async () => {
    const metrics = createApiMetrics();
    const server = await startMetricsServer(metrics.registry, { host: '127.0.0.1', port: 0 });
    try {
      const { port } = server.address() as { port: number };
      const res = await fetch(`http://127.0.0.1:${port}/metrics`);
      expect(res.status).toBe(200);
      expect(await res.text()).toContain('# TYPE http_request_duration_seconds histogram');
      expect((await fetch(`http://127.0.0.1:${port}/v1/shop`)).status).toBe(404);
    } finally {
      server.close();
    }
  });
});

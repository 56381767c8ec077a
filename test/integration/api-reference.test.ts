import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { startTestApp, type TestApp } from '../helpers/test-app';

/** Every `src`/`href` of a page that names one of its own assets. */
const assetUrls = (html: string) =>
  [...html.matchAll(/(?:src|href)="([^"]*\/docs\/assets\/[^"]+)"/g)].map((m) => m[1]!);

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => app.close());

describe('GET /v1/docs (the API reference page)', () => {
  it('is served without a key as HTML naming the served document', async () => {
    const res = await app.request('GET', '/v1/docs');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('public, max-age=300');
    expect(res.text).toContain('data-openapi-url="/v1/openapi.json"');
    // The URL it names is the document the API serves.
    const document = await app.request('GET', '/v1/openapi.json');
    expect(document.status).toBe(200);
    expect(document.body.paths['/docs'].get.operationId).toBe('getApiReference');
    expect(res.text).toContain('href="/v1/docs/errors"');
  });

  it('says where a development key comes from, on the page and at the top of the document it renders', async () => {
    const page = await app.request('GET', '/v1/docs');
    expect(page.text).toContain('A development key: <code>npm run dev</code> prints one for the demo store');
    const { description } = (await app.request('GET', '/v1/openapi.json')).body.info;
    expect(description).toContain('**Getting a key.**');
    expect(description).toContain('`npm run dev`');
    expect(description).toContain('`node bin/labelctl.js key create demo-store.myshopify.com --name my-key --scope');
    expect(description).toContain('`node bin/labelctl.js demo orders add`');
  });

  it('loads only assets the API serves itself (no CDN), each with its content type', async () => {
    const page = await app.request('GET', '/v1/docs');
    const urls = assetUrls(page.text);
    expect(urls.sort()).toEqual([
      '/v1/docs/assets/favicon.png',
      '/v1/docs/assets/reference.js',
      '/v1/docs/assets/swagger-ui-bundle.js',
      '/v1/docs/assets/swagger-ui.css',
    ]);
    // Nothing else the browser would fetch: no absolute URL in a src or href but the document itself.
    expect(page.text.match(/(?:src|href)="https?:/g)).toBeNull();
    const types: Record<string, RegExp> = {
      '.css': /^text\/css/,
      '.js': /^text\/javascript/,
      '.png': /^image\/png$/,
    };
    for (const url of urls) {
      const res = await app.request('GET', url);
      expect({ url, status: res.status }).toEqual({ url, status: 200 });
      const type = types[url.slice(url.lastIndexOf('.'))]!;
      expect({ url, type: res.headers.get('content-type') }).toEqual({ url, type: expect.stringMatching(type) });
      expect(res.bytes.length).toBeGreaterThan(100);
      expect(res.headers.get('cache-control')).toBe('public, max-age=3600');
    }
    // The renderer is swagger-ui-dist as installed from npm, byte for byte.
    const bundle = await app.request('GET', '/v1/docs/assets/swagger-ui-bundle.js');
    expect(bundle.bytes.equals(readFileSync(require.resolve('swagger-ui-dist/swagger-ui-bundle.js')))).toBe(true);
    // The initializer renders the document the page names, and never sends it to an online validator.
    const init = await app.request('GET', '/v1/docs/assets/reference.js');
    expect(init.text).toContain("getAttribute('data-openapi-url')");
    expect(init.text).toContain('validatorUrl: null');
  });

  it('sends the bundle gzipped to a client that takes gzip', async () => {
    const res = await app.rawRequest({
      method: 'GET',
      target: '/v1/docs/assets/swagger-ui-bundle.js',
      headers: [['Accept-Encoding', 'gzip']],
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-encoding')).toBe('gzip');
    expect(res.headers.get('vary')).toMatch(/Accept-Encoding/i);
    const bundle = readFileSync(require.resolve('swagger-ui-dist/swagger-ui-bundle.js'));
    expect(res.bytes.length).toBeLessThan(bundle.length / 2);
    expect(gunzipSync(res.bytes).equals(bundle)).toBe(true);
  });

  it('answers an unknown asset with 404 not_found', async () => {
    const res = await app.request('GET', '/v1/docs/assets/index.html');
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
  });

  it('names PUBLIC_BASE_URL in its links when configured', async () => {
    const configured = await startTestApp({ env: { PUBLIC_BASE_URL: 'https://labels.example.com' } });
    try {
      const res = await configured.request('GET', '/v1/docs', { headers: { host: 'attacker.example' } });
      expect(res.text).toContain('data-openapi-url="https://labels.example.com/v1/openapi.json"');
      expect(assetUrls(res.text)).toContain('https://labels.example.com/v1/docs/assets/swagger-ui-bundle.js');
      expect(res.text).not.toContain('attacker.example');
      const errors = await configured.request('GET', '/v1/docs/errors');
      expect(errors.text).toContain('<a href="https://labels.example.com/v1/docs">API reference</a>');
    } finally {
      await configured.close();
    }
  });
});

describe('GET /v1/docs/errors, where every doc_url lands', () => {
  it('links to the API reference page', async () => {
    const refused = await app.request('GET', '/v1/shop');
    const docUrl = new URL(refused.body.error.doc_url as string);
    const page = await app.request('GET', docUrl.pathname);
    expect(page.status).toBe(200);
    expect(page.text).toContain('<a href="/v1/docs">API reference</a>');
  });
});

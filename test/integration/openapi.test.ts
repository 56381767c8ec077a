import SwaggerParser from '@apidevtools/swagger-parser';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { z } from 'zod';
import { defineRoute } from '../../src/http/route';
import { CURRENT_VERSION } from '../../src/domain/versions';
import { contractOf } from '../helpers/contract';
import { startTestApp, type TestApp } from '../helpers/test-app';

// A route with a request body (the real ones arrive with label creation), so the example rule is exercised.
const parcelRoute = defineRoute({
  method: 'POST',
  path: '/test-parcel',
  operationId: 'testParcel',
  summary: 'test only',
  tag: 'Test',
  access: { kind: 'public' },
  body: z.object({ weight_grams: z.number().int().min(1) }).strict(),
  requestExample: { weight_grams: 1200 },
  responses: { 204: { description: 'nothing' } },
  handler: async (ctx) => {
    ctx.status = 204;
  },
});

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ extraRoutes: [parcelRoute] });
});
afterAll(async () => app.close());

describe('GET /v1/openapi.json', () => {
  it('is served without a key as a valid OpenAPI 3.1 document', async () => {
    const res = await app.request('GET', '/v1/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    expect(res.body.openapi).toBe('3.1.0');
    // Without PUBLIC_BASE_URL the server URL is relative: nothing the client sends (its Host header) shapes it.
    expect(res.body.servers).toEqual([{ url: '/v1' }]);
    // A real validator: throws on any schema violation of the document.
    const validated = await SwaggerParser.validate(structuredClone(res.body));
    expect(validated.info.title).toBe('Shipping Label API');
  });

  it('is one document whatever the Host header, and names PUBLIC_BASE_URL when configured', async () => {
    const plain = await app.request('GET', '/v1/openapi.json');
    const spoofed = await app.request('GET', '/v1/openapi.json', { headers: { host: 'attacker.example' } });
    expect(spoofed.status).toBe(200);
    expect(spoofed.text).toBe(plain.text);
    expect(spoofed.text).not.toContain('attacker.example');
    const configured = await startTestApp({ env: { PUBLIC_BASE_URL: 'https://labels.example.com' } });
    try {
      const res = await configured.request('GET', '/v1/openapi.json', { headers: { host: 'attacker.example' } });
      expect(res.body.servers).toEqual([{ url: 'https://labels.example.com/v1' }]);
    } finally {
      await configured.close();
    }
  });

  it("gives every error example the doc_url the API answers with, under PUBLIC_BASE_URL's /v1 once", async () => {
    /** Every `doc_url` of the document's error examples, by error code. */
    const exampleDocUrls = (document: any): Map<string, Set<string>> => {
      const found = new Map<string, Set<string>>();
      const walk = (node: any): void => {
        if (node === null || typeof node !== 'object') return;
        const error = node.value?.error;
        if (typeof error?.doc_url === 'string')
          found.set(error.code, (found.get(error.code) ?? new Set()).add(error.doc_url));
        for (const child of Object.values(node)) walk(child);
      };
      walk(document.paths);
      return found;
    };
    const placeholder = exampleDocUrls((await app.request('GET', '/v1/openapi.json')).body);
    expect(placeholder.size).toBeGreaterThan(10);
    for (const [code, urls] of placeholder)
      expect([...urls]).toEqual([`https://api.example.com/v1/docs/errors#${code}`]);

    const configured = await startTestApp({ env: { PUBLIC_BASE_URL: 'https://labels.example.com' } });
    try {
      const document = (await configured.request('GET', '/v1/openapi.json')).body;
      const documented = exampleDocUrls(document);
      expect(JSON.stringify(document)).not.toContain('/v1/v1/');
      for (const [code, urls] of documented)
        expect([...urls]).toEqual([`https://labels.example.com/v1/docs/errors#${code}`]);
      // The same URL a real answer carries.
      const refused = await configured.request('GET', '/v1/shop');
      expect(refused.status).toBe(401);
      expect([...documented.get(refused.body.error.code)!]).toEqual([refused.body.error.doc_url]);
    } finally {
      await configured.close();
    }
  });

  it('documents each key route with its scope as the security requirement', async () => {
    const res = await app.request('GET', '/v1/openapi.json');
    const shop = res.body.paths['/shop'].get;
    expect(shop.security).toEqual([{ bearerAuth: ['shop:read'] }]);
    expect(shop['x-required-scope']).toBe('shop:read');
    expect(Object.keys(shop.responses)).toEqual(expect.arrayContaining(['200', '401', '403', '404', '422', '500']));
    expect(res.body.paths['/openapi.json'].get.security).toEqual([]);
  });

  it('documents the rate limits of every key operation: classes, buckets, headers, 429 and 503', async () => {
    const res = await app.request('GET', '/v1/openapi.json');
    const rateHeaders = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'X-RateLimit-Bucket'];
    let keyOperations = 0;
    for (const [path, item] of Object.entries<Record<string, any>>(res.body.paths)) {
      for (const [method, operation] of Object.entries<any>(item)) {
        if (operation.security.length === 0) {
          expect({ path, method, limits: operation['x-rate-limits'] }).toEqual({ path, method, limits: undefined });
          continue;
        }
        keyOperations += 1;
        expect(operation['x-rate-limits'].length).toBeGreaterThan(0);
        for (const [status, response] of Object.entries<any>(operation.responses)) {
          const names = Object.keys(response.headers ?? {});
          // Refused before the limits: a key in the query string (400) and authentication (401).
          if (status === '400' || status === '401') expect(names).not.toContain('X-RateLimit-Bucket');
          else
            expect({ path, method, status, names }).toEqual(
              expect.objectContaining({ names: expect.arrayContaining(rateHeaders) }),
            );
        }
        expect(Object.keys(operation.responses['429'].headers)).toEqual(expect.arrayContaining(['Retry-After']));
        expect(operation.responses['429'].description).toContain('rate_limited');
        expect(operation.responses['503'].description).toContain('temporarily_unavailable');
      }
    }
    expect(keyOperations).toBeGreaterThanOrEqual(10);
    const documents = res.body.paths['/labels/{label_id}/document'].get;
    expect(documents['x-rate-limits'].map((c: { class: string }) => c.class)).toEqual(['document', 'render']);
    expect(documents['x-rate-limits'][1].buckets).toEqual([
      { bucket: 'render_shop_per_minute', scope: 'shop', limit: 60, window_seconds: 60 },
    ]);
    // A creation's `include: ["document"]` PDFs count as stored documents (decision 0121).
    expect(res.body.paths['/labels'].post['x-rate-limits'].map((c: { class: string }) => c.class)).toEqual([
      'dry_run',
      'write',
      'read',
      'document',
    ]);
  });

  it('generates response schemas from the zod schemas', async () => {
    const res = await app.request('GET', '/v1/openapi.json');
    const schema = res.body.paths['/shop'].get.responses['200'].content['application/json'].schema;
    expect(schema.type).toBe('object');
    expect(Object.keys(schema.properties)).toEqual(expect.arrayContaining(['id', 'api_key', 'access', 'api_version']));
    expect(res.body.components.schemas.Error.properties.error.properties.code.enum).toContain('invalid_token');
  });
});

describe('what the document promises', () => {
  const operationsOf = (doc: any) =>
    Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, item]) =>
      Object.entries(item).map(([method, op]) => ({ path, method, op })),
    );

  it('names its license', async () => {
    const { body } = await app.request('GET', '/v1/openapi.json');
    expect(body.info.license).toEqual({ name: 'Proprietary', identifier: 'LicenseRef-Proprietary' });
  });

  it('documents the 400 for an API key in the query string on every operation', async () => {
    const { body } = await app.request('GET', '/v1/openapi.json');
    for (const { path, method, op } of operationsOf(body)) {
      expect([`${method} ${path}`, op.responses['400']?.content['application/json'].examples.validation_error]).toEqual(
        [
          `${method} ${path}`,
          expect.objectContaining({
            value: expect.objectContaining({
              error: expect.objectContaining({ details: expect.objectContaining({ parameter: 'api_key' }) }),
            }),
          }),
        ],
      );
    }
  });

  it('gives each error an example that is itself a documented answer of the operation', async () => {
    const { body } = await app.request('GET', '/v1/openapi.json');
    const contract = contractOf(body, app.baseUrl);
    let checked = 0;
    for (const { path, method, op } of operationsOf(body)) {
      for (const [status, response] of Object.entries(op.responses as Record<string, any>)) {
        if (Number(status) < 400) continue;
        const codes = [...(response.description as string).matchAll(/`([a-z_]+)`/g)].map((m) => m[1]);
        const examples = response.content['application/json'].examples as Record<string, { value: unknown }>;
        // A code's further examples are keyed `<code>.<name>`.
        const exampleCodes = [...new Set(Object.keys(examples).map((k) => k.split('.')[0]))].sort();
        expect([`${method} ${path} ${status}`, exampleCodes]).toEqual([
          `${method} ${path} ${status}`,
          [...new Set(codes)].sort(),
        ]);
        for (const example of Object.values(examples)) {
          const headers = new Headers({
            'content-type': 'application/json',
            'x-request-id': (example.value as any).error.request_id,
            'service-version': CURRENT_VERSION,
            ...(status === '405' ? { allow: 'GET' } : {}),
          });
          const url = `${app.baseUrl}/v1${path.replace(/\{[a-z_]+\}/g, 'x')}`;
          contract.check({ method, url, status: Number(status), headers, text: JSON.stringify(example.value) });
          checked += 1;
        }
      }
    }
    expect(checked).toBeGreaterThan(50);
  });

  it('gives each request body an example true to its schema', async () => {
    const { body } = await app.request('GET', '/v1/openapi.json');
    const ajv = new Ajv2020({ strict: false });
    addFormats(ajv);
    let checked = 0;
    for (const { path, method, op } of operationsOf(body)) {
      const content = op.requestBody?.content?.['application/json'];
      if (!content) continue;
      checked += 1;
      expect([`${method} ${path}`, 'example' in content]).toEqual([`${method} ${path}`, true]);
      const validate = ajv.compile(content.schema);
      expect([`${method} ${path}`, validate(content.example), validate.errors ?? null]).toEqual([
        `${method} ${path}`,
        true,
        null,
      ]);
    }
    expect(checked).toBeGreaterThan(0);
  });
});

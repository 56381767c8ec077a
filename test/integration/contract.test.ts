import { z } from 'zod';
import { defineRoute } from '../../src/http/route';
import { ContractViolation } from '../helpers/contract';
import { startTestApp, type TestApp } from '../helpers/test-app';

// Routes of the test's own that answer other than their documentation says: the contract check every test answer
// goes through must refuse each of them.
const documented = z.object({ id: z.string(), count: z.number().int() }).strict();
const liar = (path: string, handler: Parameters<typeof defineRoute>[0]['handler'], extra = {}) =>
  defineRoute({
    method: 'GET',
    path,
    operationId: `contract${path.replace(/\W/g, '')}`,
    summary: 'test only',
    tag: 'Test',
    access: { kind: 'public' },
    responses: { 200: { description: 'documented answer', schema: documented } },
    handler,
    ...extra,
  });

const routes = [
  liar('/contract/true', async (ctx) => {
    ctx.body = { id: 'a', count: 1 };
  }),
  liar('/contract/wrong-type', async (ctx) => {
    ctx.body = { id: 'a', count: 'one' };
  }),
  liar('/contract/extra-field', async (ctx) => {
    ctx.body = { id: 'a', count: 1, secret: 'x' };
  }),
  liar('/contract/undocumented-status', async (ctx) => {
    ctx.status = 202;
    ctx.body = { id: 'a', count: 1 };
  }),
  liar('/contract/wrong-content-type', async (ctx) => {
    ctx.type = 'text/plain';
    ctx.body = 'id=a';
  }),
  liar(
    '/contract/missing-header',
    async (ctx) => {
      ctx.body = { id: 'a', count: 1 };
    },
    {
      responses: {
        200: {
          description: 'documented answer',
          schema: documented,
          headers: { 'Service-Label-Format': { description: 'format', required: true, schema: z.enum(['label']) } },
        },
      },
    },
  ),
  liar(
    '/contract/header-outside-schema',
    async (ctx) => {
      ctx.set('Service-Label-Format', 'zpl');
      ctx.body = { id: 'a', count: 1 };
    },
    {
      responses: {
        200: {
          description: 'documented answer',
          schema: documented,
          headers: { 'Service-Label-Format': { description: 'format', schema: z.enum(['label']) } },
        },
      },
    },
  ),
  liar(
    '/contract/pdf',
    async (ctx) => {
      ctx.type = 'application/json';
      ctx.body = { id: 'a', count: 1 };
    },
    { responses: { 200: { description: 'a PDF', contentType: 'application/pdf' } } },
  ),
];

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ extraRoutes: routes });
});
afterAll(async () => app.close());

describe('the contract check on every test answer', () => {
  it('passes an answer true to its documentation, and documented errors of deliberately wrong requests', async () => {
    expect((await app.request('GET', '/v1/contract/true')).body).toEqual({ id: 'a', count: 1 });
    expect((await app.request('GET', '/v1/contract/true?api_key=sla_x')).status).toBe(400);
    expect((await app.request('GET', '/v1/contract/true?unknown=1')).status).toBe(422);
    expect((await app.request('POST', '/v1/contract/true')).status).toBe(405);
    expect((await app.request('GET', '/v1/contract/none')).status).toBe(404);
  });

  it.each([
    ['/contract/wrong-type', /body breaks its schema[\s\S]*\/count/],
    ['/contract/extra-field', /body breaks its schema[\s\S]*additionalProperty/],
    ['/contract/undocumented-status', /status 202 is not documented/],
    ['/contract/wrong-content-type', /content type "text\/plain" is not documented/],
    ['/contract/missing-header', /required header Service-Label-Format is missing/],
    ['/contract/header-outside-schema', /header Service-Label-Format: "zpl" breaks its schema/],
    ['/contract/pdf', /content type "application\/json" is not documented \(documented: application\/pdf\)/],
  ])('fails the test on %s', async (path, message) => {
    const answer = app.request('GET', `/v1${path}`);
    await expect(answer).rejects.toThrow(ContractViolation);
    await expect(answer).rejects.toThrow(message);
  });
});

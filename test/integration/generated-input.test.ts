import fc from 'fast-check';
import { BUCKET_NAMES } from '../../src/domain/rate-limits';
import { servedContract } from '../helpers/contract';
import { draftWith, mutationsOf, operationsOf, toRawRequest, type Mutation } from '../helpers/generated-input';
import { encodeTarget, sendRaw, type RawResponse } from '../helpers/raw-http';
import { aStoreWithKey } from '../helpers/stores';
import { startTestApp, type TestApp } from '../helpers/test-app';

/**
 * Generated bad input on every route of the route table (spec "Errors": bad input is a 4xx with the error body, never a
 * 5xx): mutated path parameters, query parameters, headers and bodies (deep nesting, NUL, lone surrogates, huge strings,
 * wrong types, raw bytes, chunked and oversized bodies), sent with a valid key of a test store. Every answer must be
 * below 500, carry an `X-Request-Id`, be what the served OpenAPI document says, and every error must be the spec's
 * error body with `request_id` equal to `X-Request-Id`.
 */

const SEED = 20_261_125;
/** Each run sends, on every route, one request per input slot and class of hostile value: some 1,300 requests. */
const RUNS = 2;
const CONCURRENCY = 4;

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => app.close());

const excerpt = (text: string, max = 160) =>
  text.length > max ? `${text.slice(0, max)}… (${text.length} chars)` : text;

/** What is wrong with one answer; empty when it is what the spec and the document say. */
async function problemsOf(method: string, target: string, res: RawResponse): Promise<string[]> {
  const problems: string[] = [];
  if (res.status >= 500) problems.push(`answered ${res.status}`);
  const requestId = res.headers['x-request-id'];
  if (!requestId || !/^req_[A-Za-z0-9]{24}$/.test(requestId))
    problems.push(`X-Request-Id ${JSON.stringify(requestId)}`);
  if (res.status >= 400) {
    let error: Record<string, unknown> | undefined;
    try {
      error = (JSON.parse(res.text) as { error?: Record<string, unknown> }).error;
    } catch {
      problems.push(`error answer is not JSON (${res.headers['content-type'] ?? 'no content type'})`);
    }
    if (error) {
      const keys = Object.keys(error).sort();
      const expected = ['code', 'doc_url', 'message', 'request_id', ...('details' in error ? ['details'] : [])].sort();
      if (keys.join() !== expected.join()) problems.push(`error body keys ${keys.join(', ')}`);
      if (error.request_id !== requestId) problems.push(`request_id ${String(error.request_id)} is not X-Request-Id`);
      if (!String(error.doc_url).endsWith(`/v1/docs/errors#${String(error.code)}`))
        problems.push(`doc_url ${String(error.doc_url)}`);
    } else if (problems.length === 0) problems.push('error answer without the error body');
  }
  try {
    await servedContract(app.baseUrl)({
      method,
      url: `${app.baseUrl}${encodeTarget(target)}`,
      status: res.status,
      headers: new Headers(Object.entries(res.headers)),
      text: res.text,
    });
  } catch (error) {
    problems.push((error as Error).message.split('\n').slice(0, 3).join(' '));
  }
  return problems;
}

async function inPool<T>(items: T[], size: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: size }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
}

it('answers generated bad input on every route with a 4xx error body, never a 5xx', async () => {
  const document = (await (await fetch(`${app.baseUrl}/v1/openapi.json`)).json()) as Record<string, unknown>;
  const operations = operationsOf(document);
  // A few by name, to show the document was read; every route of the table is in it.
  expect(operations.map((o) => `${o.method} ${o.path}`)).toEqual(
    expect.arrayContaining(['POST /labels', 'GET /label-creations', 'PUT /orders/{order_id}/pickup-point']),
  );
  // A store of its own whose limits leave room: every request must reach validation and the handler.
  const shop = await aStoreWithKey(app.orm, {
    limits: Object.fromEntries(BUCKET_NAMES.map((bucket) => [bucket, 1_000_000_000])),
  });

  const failures: string[] = [];
  for (const operation of operations) {
    const property = fc.asyncProperty(fc.tuple(...mutationsOf(operation)), async (mutations: Mutation[]) => {
      const found: string[] = [];
      await inPool(mutations, CONCURRENCY, async (m) => {
        const { request, target } = toRawRequest(operation, draftWith(operation, shop.auth.authorization, [m]));
        let problems: string[];
        let answer = '';
        try {
          const res = await sendRaw(app.baseUrl, request);
          answer = `${res.status} ${excerpt(res.text)}`;
          problems = await problemsOf(operation.method, target, res);
        } catch (error) {
          problems = [(error as Error).message];
        }
        if (problems.length > 0)
          found.push(
            `  ${m.label}: ${operation.method} ${excerpt(encodeTarget(target), 100)} -> ${answer}\n    ${problems.join('\n    ')}`,
          );
      });
      if (found.length > 0) throw new Error(found.join('\n'));
    });
    // fc.check rather than fc.assert: the report names the failing requests, not 800 drawn values.
    const run = await fc.check(property, { seed: SEED, numRuns: RUNS, endOnFailure: true });
    if (run.failed) {
      const cause = run.errorInstance instanceof Error ? run.errorInstance.message : String(run.errorInstance);
      failures.push(`${operation.method} ${operation.path} (seed ${run.seed}, run ${run.numRuns})\n${cause}`);
    }
  }
  expect(failures).toEqual([]);
}, 180_000);

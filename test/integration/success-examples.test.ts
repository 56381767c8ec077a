import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { composeAdapters } from '../../src/adapters';
import { loadFixture } from '../../src/fixtures/load-fixture';
import { EXAMPLE_BASE_URL, type SuccessExamples } from '../../src/http/openapi';
import { randomToken } from '../../src/ids';
import { control, scriptFaults } from '../helpers/sandbox';
import { startTestApp, type TestApp, type TestResponse } from '../helpers/test-app';

/**
 * The examples of the document's success answers (src/api/success-examples.json) are answers the API gave: this suite
 * walks the demo store as a merchant would (the demo fixture, fresh demo orders, a label created, a creation left
 * unclear and resolved, pickup points) and compares each answer with its recorded example, field by field. With
 * UPDATE_EXAMPLES=1 it writes the answers as the new examples. Every example of the served document must validate
 * against its answer's schema, and every JSON success answer must have one.
 */
const root = join(__dirname, '..', '..');
const examplesPath = join(root, 'src', 'api', 'success-examples.json');

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => app.close());

type Json = Record<string, any>;

/** The demo fixture under a store and IDs of this run's own (its accounts are this run's in the shared sandbox). */
async function aDemoStore() {
  const suffix = randomToken(8);
  const domain = `demo-${suffix.toLowerCase()}.myshopify.com`;
  const text = readFileSync(join(root, 'src', 'sandbox', 'fixtures', 'demo-store.json'), 'utf8')
    .replace(/demo-store\.myshopify\.com/g, domain)
    .replace(/"(lbl|ca|lcr)_demo_/g, `"$1_${suffix}_`);
  const fixture = JSON.parse(text);
  const secret = `sla_live_${randomToken(40)}`;
  fixture.api_keys = [
    {
      name: 'Demo key',
      secret,
      scopes: ['labels:print', 'labels:write', 'label_creations:resolve', 'pickup_points:assign'],
    },
  ];
  const loaded = await loadFixture(
    {
      orm: app.orm,
      now: new Date(),
      sandboxUrl: app.config.sandboxUrl,
      carrierFor: composeAdapters(app.config, app.orm).carrierFor,
    },
    fixture,
  );
  // Written as the demo store's: the examples show what a newcomer's `npm run dev` shows.
  const asDemo = (value: unknown): unknown =>
    JSON.parse(
      JSON.stringify(value)
        .split(`${app.baseUrl}/v1`)
        .join(EXAMPLE_BASE_URL)
        .split(domain)
        .join('demo-store.myshopify.com')
        .split(`_${suffix}_`)
        .join('_demo_'),
    );
  return { domain, storeId: loaded.store_id, suffix, auth: { authorization: `Bearer ${secret}` }, asDemo };
}

/** Answers recorded by operation ID, status and example name. */
const recorded: SuccessExamples = {};

function keep(
  operationId: string,
  status: number,
  name: string,
  summary: string,
  res: TestResponse,
  asDemo: (v: unknown) => unknown,
) {
  if (res.status !== status) throw new Error(`${operationId} ${name}: ${res.status} ${res.text.slice(0, 500)}`);
  ((recorded[operationId] ??= {})[String(status)] ??= {})[name] = { summary, value: asDemo(res.body) };
}

/** How `actual` differs from `expected` in shape: keys present in one object and not the other, at any depth. */
function shapeDifferences(expected: unknown, actual: unknown, at = '$'): string[] {
  const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
  if (Array.isArray(expected) && Array.isArray(actual))
    return expected.length && actual.length ? shapeDifferences(expected[0], actual[0], `${at}[0]`) : [];
  if (!isObject(expected) || !isObject(actual)) return [];
  const problems: string[] = [];
  for (const key of Object.keys(actual)) if (!(key in expected)) problems.push(`${at}.${key} is not in the example`);
  for (const key of Object.keys(expected)) {
    if (!(key in actual)) problems.push(`${at}.${key} is no longer answered`);
    // A map keyed by values (carrier options, opening hours) may hold other keys from one answer to the next.
    else if (!/^(extras|options|opening_hours|rounding_by_currency|carrier_options|scopes_by_version)$/.test(key))
      problems.push(...shapeDifferences(expected[key], actual[key], `${at}.${key}`));
  }
  return problems;
}

it('records the success answers of every operation from the sandbox, as the examples show them', async () => {
  const demo = await aDemoStore();
  const { auth, asDemo } = demo;
  const save = (operationId: string, status: number, name: string, summary: string, res: TestResponse) =>
    keep(operationId, status, name, summary, res, asDemo);
  const get = (path: string, headers: Record<string, string> = {}) =>
    app.request('GET', `/v1${path}`, { headers: { ...auth, ...headers } });
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    app.request('POST', `/v1${path}`, { headers: { ...auth, ...headers }, body });

  const orderIds = async (kinds: string[]) =>
    (
      (await control('POST', `/_control/stores/${demo.domain}/demo-orders`, { kinds })).body.orders as Array<{
        order: { legacy_id: string };
      }>
    ).map((o) => o.order.legacy_id);
  const [home, pickup, cod] = await orderIds(['home', 'pickup_point', 'cod']);
  const [forProcessing, forAttention, forPickupPoint] = await orderIds(['home', 'home', 'pickup_point']);

  save('getShop', 200, 'shop', 'The demo store and this key', await get('/shop'));

  const page = await get('/labels?limit=2');
  save('listLabels', 200, 'page', 'The first page of two labels, newest first', page);
  const ready = (await get('/labels?status=ready&current=true&limit=50')).body.data.find(
    (l: Json) => l.document.availability === 'available' && l.kind === 'shipment' && l.source === 'api',
  );
  save(
    'getLabel',
    200,
    'ready',
    'A ready label created through the API, its PDF available',
    await get(`/labels/${ready.id}`),
  );
  save(
    'markLabelPrinted',
    200,
    'printed',
    'The label, its print counted (Idempotency-Key: auto)',
    await post(`/labels/${ready.id}/printed`, undefined, { 'Idempotency-Key': 'auto' }),
  );

  save(
    'createLabel',
    200,
    'dry_run',
    'Dry run: `validated`, what a creation would do (COD from the payment gateway)',
    await post('/labels', { order_id: cod, dry_run: true }),
  );
  // Not fulfilled (`fulfillment: none`, as the demo account does by default), so a second request finds the order still
  // to ship.
  const created = await post(
    '/labels',
    { order_id: home, fulfillment: 'none', client_reference: 'wms-42-7' },
    {
      'Idempotency-Key': `first-label-${home}`,
      Prefer: 'wait=30',
    },
  );
  save('createLabel', 201, 'created', 'A new label: `succeeded`, `created: true`', created);
  save(
    'createLabel',
    200,
    'existing',
    'Existing labels returned (`on_existing: return`, another key for the same order): `created: false`',
    await post(
      '/labels',
      { order_id: home, fulfillment: 'none' },
      { 'Idempotency-Key': `second-label-${home}`, Prefer: 'wait=30' },
    ),
  );
  save(
    'createLabel',
    202,
    'processing',
    'Not finished within `Prefer: wait` (here `wait=0`): `processing`; poll the creation, never create again',
    await post(
      '/labels',
      { order_id: forProcessing },
      { 'Idempotency-Key': `processing-${forProcessing}`, Prefer: 'wait=0' },
    ),
  );
  // That creation reaches the carrier before the fault below is scripted for the next one.
  const processing = recorded.createLabel!['202']!.processing!.value as { id: string };
  const settled = await get(`/label-creations/${processing.id}`, { Prefer: 'wait=30' });
  expect(settled.body.status).toBe('succeeded');
  await scriptFaults(`ca_${demo.suffix}_a`, [{ type: 'timeout_not_created', hold_ms: 5000 }]);
  const unclear = await post(
    '/labels',
    { order_id: forAttention },
    {
      'Idempotency-Key': `unclear-${forAttention}`,
      Prefer: 'wait=30',
    },
  );
  save(
    'createLabel',
    202,
    'needs_attention',
    'Outcome unknown (the carrier timed out): `needs_attention`; a person checks the carrier',
    unclear,
  );

  save(
    'listLabelCreations',
    200,
    'page',
    'The first page of two creations, newest first',
    await get('/label-creations?limit=2'),
  );
  save(
    'getLabelCreation',
    200,
    'succeeded',
    'A creation that made its label',
    await get(`/label-creations/${created.body.id}`),
  );
  save(
    'resolveLabelCreation',
    200,
    'shipment_exists',
    'Resolved `shipment_exists`: the creation is abandoned, its fulfillment order released',
    await post(`/label-creations/${unclear.body.id}/resolve`, {
      outcome: 'shipment_exists',
      note: 'Found in the carrier portal.',
    }),
  );

  const accounts = await get('/carrier-accounts');
  save('listCarrierAccounts', 200, 'accounts', "The store's carrier accounts", accounts);
  save(
    'getCarrierAccount',
    200,
    'carrier_a',
    'Carrier A: services, options, COD rounding, declared value',
    await get(`/carrier-accounts/ca_${demo.suffix}_a`),
  );
  save('getOrder', 200, 'with_label', 'An order with its current label', await get(`/orders/${home}`));
  save(
    'listOrderPickupPoints',
    200,
    'nearest',
    "The three nearest of carrier A's pickup points",
    await get(`/orders/${pickup}/pickup-points?carrier=carrier_a&limit=3`),
  );
  const points = await get(`/orders/${forPickupPoint}/pickup-points?carrier=carrier_a&limit=1`);
  save(
    'setOrderPickupPoint',
    200,
    'set',
    'The pickup point set on an order without a label',
    await app.request('PUT', `/v1/orders/${forPickupPoint}/pickup-point`, {
      headers: auth,
      body: { carrier: 'carrier_a', pickup_point_id: points.body.data[0].id },
    }),
  );

  const document = await app.request('GET', '/v1/openapi.json');
  const { openapi, info, servers, security } = document.body;
  ((recorded.getOpenApiDocument ??= {})['200'] ??= {}).document = {
    summary: 'The start of the document (its `paths` and `components` left out here)',
    value: { openapi, info, servers, security },
  };

  if (process.env.UPDATE_EXAMPLES === '1') writeFileSync(examplesPath, `${JSON.stringify(recorded, null, 2)}\n`);
  const kept = JSON.parse(readFileSync(examplesPath, 'utf8')) as SuccessExamples;
  const problems: string[] = [];
  for (const [operationId, statuses] of Object.entries(recorded))
    for (const [status, examples] of Object.entries(statuses))
      for (const [name, example] of Object.entries(examples)) {
        const where = `${operationId} ${status} ${name}`;
        const keptExample = kept[operationId]?.[status]?.[name];
        if (!keptExample) problems.push(`${where}: no example (run with UPDATE_EXAMPLES=1)`);
        else problems.push(...shapeDifferences(keptExample.value, example.value).map((p) => `${where}: ${p}`));
      }
  if (problems.length)
    throw new Error(`the examples differ from the answers (UPDATE_EXAMPLES=1 records them):\n${problems.join('\n')}`);
  expect(Object.keys(kept).sort()).toEqual(Object.keys(recorded).sort());
}, 120_000);

it('gives every JSON success answer of the document an example that validates against its schema', async () => {
  const document = (await app.request('GET', '/v1/openapi.json')).body;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  const missing: string[] = [];
  const invalid: string[] = [];
  let checked = 0;
  for (const [path, item] of Object.entries<Json>(document.paths))
    for (const [method, operation] of Object.entries<Json>(item))
      for (const [status, response] of Object.entries<Json>(operation.responses)) {
        const content = response.content?.['application/json'];
        if (!status.startsWith('2') || !content) continue;
        const where = `${method.toUpperCase()} ${path} ${status}`;
        const examples = Object.entries<Json>(content.examples ?? {});
        if (examples.length === 0) missing.push(where);
        const validate = ajv.compile(content.schema);
        for (const [name, example] of examples) {
          checked += 1;
          if (!validate(example.value)) invalid.push(`${where} ${name}: ${ajv.errorsText(validate.errors)}`);
        }
      }
  expect(missing).toEqual([]);
  expect(invalid).toEqual([]);
  // Every recorded example is one of the document's: an operation ID and status it has.
  const kept = JSON.parse(readFileSync(examplesPath, 'utf8')) as SuccessExamples;
  const answers = new Set(
    Object.values<Json>(document.paths).flatMap((item) =>
      Object.values<Json>(item).flatMap((op) => Object.keys(op.responses).map((s) => `${op.operationId} ${s}`)),
    ),
  );
  const unused = Object.entries(kept).flatMap(([id, statuses]) =>
    Object.keys(statuses)
      .map((status) => `${id} ${status}`)
      .filter((answer) => !answers.has(answer)),
  );
  expect(unused).toEqual([]);
  expect(checked).toBeGreaterThanOrEqual(18);

  const create = document.paths['/labels'].post.responses;
  expect(create['200'].content['application/json'].examples.dry_run.value).toMatchObject({
    id: null,
    status: 'validated',
    dry_run: true,
    would: 'create',
  });
  expect(create['201'].content['application/json'].examples.created.value).toMatchObject({
    status: 'succeeded',
    created: true,
  });
  expect(create['202'].content['application/json'].examples.processing.value).toMatchObject({
    status: 'processing',
    next_action: 'poll',
  });
  // The examples name the document's server, as the answers do.
  expect(JSON.stringify(document.paths)).not.toContain('127.0.0.1');
});

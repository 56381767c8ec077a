import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { composeAdapters } from '../../src/adapters';
import { loadFixture } from '../../src/fixtures/load-fixture';
import { randomToken } from '../../src/ids';
import { labelctl, labelctlJson, labelctlWith } from '../helpers/labelctl';
import { control } from '../helpers/sandbox';
import { startTestApp, type TestApp } from '../helpers/test-app';

/**
 * A demo that never runs dry (docs/sandbox.md, "Demo orders"): `labelctl demo orders add` and the sandbox control
 * behind it make fresh orders of every kind the demo shows, and each gets a label through the API with the demo's
 * carrier accounts and rules, whose PDF downloads: the README's quick start on a store of this test's own.
 */

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => app.close());

/** The demo fixture under a store, carrier account IDs and key of this test's own. */
async function aDemoStore() {
  const suffix = randomToken(8);
  const text = readFileSync(join(__dirname, '..', '..', 'src', 'sandbox', 'fixtures', 'demo-store.json'), 'utf8')
    .replace(/demo-store\.myshopify\.com/g, `demo-${suffix.toLowerCase()}.myshopify.com`)
    .replace(/"(lbl|ca|lcr)_demo_/g, `"$1_${suffix}_`);
  const fixture = JSON.parse(text);
  const secret = `sla_live_${randomToken(40)}`;
  fixture.api_keys = [{ name: 'demo key', secret, scopes: ['labels:print', 'labels:write'] }];
  const loaded = await loadFixture(
    {
      orm: app.orm,
      now: new Date(),
      sandboxUrl: app.config.sandboxUrl,
      carrierFor: composeAdapters(app.config, app.orm).carrierFor,
    },
    fixture,
  );
  return { domain: loaded.domain, suffix, auth: { authorization: `Bearer ${secret}` } };
}

interface Added {
  order_id: string;
  name: string;
  kind: string;
  fulfillment_order_ids: string[];
}

describe('labelctl demo orders add', () => {
  it('adds one order of each kind, and each gets a label whose PDF downloads', async () => {
    const store = await aDemoStore();
    const added: Added[] = await labelctlJson('demo', 'orders', 'add', '--store', store.domain);
    expect(added.map((o) => o.kind)).toEqual(['home', 'pickup_point', 'cod', 'two_fulfillment_orders']);
    // Names go on after the demo's #1012, as a shop's would.
    expect(added.map((o) => o.name)).toEqual(['#1013', '#1014', '#1015', '#1016']);

    const noCod = { decided: expect.objectContaining({ amount: '0.00', source: 'none' }) };
    const expected: Record<string, Record<string, unknown>> = {
      home: { carrier_account_id: `ca_${store.suffix}_a`, service_code: 'a_home', cod: noCod },
      pickup_point: { carrier_account_id: `ca_${store.suffix}_a`, service_code: 'a_pickup', cod: noCod },
      cod: {
        carrier_account_id: `ca_${store.suffix}_a`,
        service_code: 'a_home',
        cod: { decided: { amount: '899.00', currency: 'CZK', source: 'payment_gateway' } },
      },
      two_fulfillment_orders: { carrier_account_id: `ca_${store.suffix}_a`, service_code: 'a_home', cod: noCod },
    };
    for (const order of added) {
      const created = await app.request('POST', '/v1/labels', {
        headers: { ...store.auth, 'Idempotency-Key': `demo-${order.order_id}`, Prefer: 'wait=30' },
        body: { order_id: order.order_id },
      });
      expect([order.kind, created.status, created.body.error ?? null]).toEqual([order.kind, 201, null]);
      expect(created.body).toMatchObject({ status: 'succeeded', created: true, resolved: expected[order.kind] });
      const label = created.body.labels[0];
      expect(label.fulfillment_orders.map((f: { legacy_id: string }) => f.legacy_id)).toEqual(
        order.fulfillment_order_ids,
      );
      const pdf = await app.request('GET', `/v1/labels/${label.id}/document`, { headers: store.auth });
      expect(pdf.status).toBe(200);
      expect(pdf.bytes.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    }
    expect(added.find((o) => o.kind === 'two_fulfillment_orders')!.fulfillment_order_ids).toHaveLength(2);
  });

  it('answers another key for a labelled order with its label; a fulfilled one names the label it shipped with', async () => {
    const store = await aDemoStore();
    const [home, cod]: Added[] = await labelctlJson(
      'demo',
      'orders',
      'add',
      '2',
      '--kind',
      'home',
      'cod',
      '--store',
      store.domain,
    );
    const create = (orderId: string, key: string, body: Record<string, unknown> = {}) =>
      app.request('POST', '/v1/labels', {
        headers: { ...store.auth, 'Idempotency-Key': key, Prefer: 'wait=30' },
        body: { order_id: orderId, ...body },
      });
    // The demo account does not fulfil by default (decision 0037): the order still ships, covered by the label.
    const first = await create(home!.order_id, `first-${home!.order_id}`);
    expect(first.status).toBe(201);
    expect(first.body.resolved.fulfillment).toEqual({ mode: 'none', source: 'account_default' });
    const second = await create(home!.order_id, `second-${home!.order_id}`);
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({ status: 'succeeded', created: false, next_action: 'fetch_document' });
    expect(second.body.labels.map((l: { id: string }) => l.id)).toEqual([first.body.labels[0].id]);

    const fulfilled = await create(cod!.order_id, `first-${cod!.order_id}`, { fulfillment: 'fulfill' });
    expect(fulfilled.status).toBe(201);
    const label = fulfilled.body.labels[0].id;
    const again = await create(cod!.order_id, `second-${cod!.order_id}`);
    expect(again.status).toBe(422);
    expect(again.body.error).toMatchObject({
      code: 'order_not_eligible',
      details: { reason: 'nothing_to_ship', existing_label_ids: [label], retry: 'no', next_action: 'none' },
    });
    expect(again.body.error.message).toContain(label);
  });

  it('adds as many as asked, of the kinds asked, under IDs never given before', async () => {
    const store = await aDemoStore();
    const first: Added[] = await labelctlJson('demo', 'orders', 'add', '2', '--store', store.domain);
    const more: Added[] = await labelctlJson('demo', 'orders', 'add', '3', '--kind', 'cod', '--store', store.domain);
    expect(first.map((o) => o.kind)).toEqual(['home', 'pickup_point']);
    expect(more.map((o) => [o.kind, o.name])).toEqual([
      ['cod', '#1015'],
      ['cod', '#1016'],
      ['cod', '#1017'],
    ]);
    const ids = [...first, ...more].map((o) => o.order_id);
    expect(new Set(ids).size).toBe(5);
    // The orders are on the store platform the API reads.
    const order = await app.request('GET', `/v1/orders/${more[0]!.order_id}`, { headers: store.auth });
    expect(order.status).toBe(200);
    expect(order.body).toMatchObject({ name: '#1015', labels: [] });
  });

  it('prints a table a person reads, with what to do next', async () => {
    const store = await aDemoStore();
    const result = await labelctl('demo', 'orders', 'add', '1', '--store', store.domain);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(new RegExp(`^added 1 order to ${store.domain.replace(/\./g, '\\.')} \\(sandbox at `));
    expect(result.stdout).toMatch(/order_id\s+name\s+kind\s+fulfillment_order_ids\n\d+\s+#1013\s+home\s+\d+\n/);
    expect(result.stdout).toContain('POST /v1/labels');
  });

  it('says so when no sandbox answers, and refuses kinds it does not know', async () => {
    // Port 9 (discard) has no sandbox behind it.
    const down = await labelctlWith({ SANDBOX_URL: 'http://127.0.0.1:9' }, 'demo', 'orders', 'add');
    expect(down.code).toBe(2);
    expect(down.stderr).toMatch(
      /^labelctl: the sandbox at http:\/\/127\.0\.0\.1:9 does not answer \(.+\): is npm run dev or npm run cluster running\?\n$/,
    );
    const refused = await control('POST', '/_control/stores/x.myshopify.com/demo-orders', { kinds: ['parcel'] });
    expect(refused.status).toBe(400);
    const unknownKind = await labelctl('demo', 'orders', 'add', '--kind', 'parcel');
    expect(unknownKind.code).toBe(2);
    expect(unknownKind.stderr).toMatch(/--kind.*parcel.*home, pickup_point, cod, two_fulfillment_orders/s);
  });
});

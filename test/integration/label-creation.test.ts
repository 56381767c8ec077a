import { PDFDocument } from 'pdf-lib';
import { aCarrierAAccount, anOrderOnPlatform, aRule } from '../helpers/creation';
import { expectError } from '../helpers/errors';
import { control, ledger } from '../helpers/sandbox';
import { aStoreWithKey } from '../helpers/stores';
import { startTestApp, type TestApp } from '../helpers/test-app';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => app.close());

type Shop = Awaited<ReturnType<typeof aStoreWithKey>>;

async function aShopWithCarrierA(overrides: Parameters<typeof aCarrierAAccount>[2] = {}) {
  const shop = await aStoreWithKey(app.orm);
  const account = await aCarrierAAccount(app.orm, shop.storeId, overrides);
  await aRule(app.orm, shop.storeId, { priority: 1, carrierAccountId: account.id, serviceCode: 'a_home' });
  return { shop, account };
}

const create = (shop: Shop, key: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  app.request('POST', '/v1/labels', {
    headers: { ...shop.auth, 'Idempotency-Key': key, Prefer: 'wait=30', ...headers },
    body,
  });

describe('POST /v1/labels: a new label', () => {
  it('answers 201 with the label (final tracking number, stored PDF), Location and Content-Location', async () => {
    const { shop, account } = await aShopWithCarrierA();
    const order = await anOrderOnPlatform(shop.domain);
    const res = await create(shop, `key-${order.orderId}`, { order_id: order.orderId, client_reference: 'wms-1' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      id: expect.stringMatching(/^lcr_/),
      status: 'succeeded',
      phase: null,
      created: true,
      dry_run: false,
      next_action: 'fetch_document',
      order: { id: order.orderGid, legacy_id: order.orderId, name: order.name },
      client_reference: 'wms-1',
      error: null,
      attention: null,
      resolved: { carrier_account_id: account.id, service_code: 'a_home', cod: { to_carrier: { state: 'sent' } } },
      side_effects: { fulfillment: { mode: 'none', status: 'skipped' }, order_tags: { status: 'skipped' } },
    });
    const [label] = res.body.labels;
    expect(label).toMatchObject({
      status: 'ready',
      source: 'api',
      current: true,
      service: { code: 'a_home' },
      fulfillment_orders: [{ id: order.fulfillmentOrderGids[0] }],
      document: { availability: 'available', source: 'stored' },
    });
    expect(label.tracking_number).toMatch(/^Z\d{10}$/);
    expect(res.headers.get('location')).toBe(`${app.baseUrl}/v1/labels/${label.id}`);
    expect(res.headers.get('content-location')).toBe(`${app.baseUrl}/v1/label-creations/${res.body.id}`);
    expect(res.headers.get('preference-applied')).toBe('wait=30');
    const pdf = await app.request('GET', `/v1/labels/${label.id}/document`, { headers: shop.auth });
    expect(pdf.status).toBe(200);
    expect((await PDFDocument.load(pdf.bytes)).getPageCount()).toBe(1);
    const shipments = await ledger(account.id);
    expect(shipments).toHaveLength(1);
    expect(shipments[0]).toMatchObject({ reference: res.body.id, tracking_number: label.tracking_number });
  });
});

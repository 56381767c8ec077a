import { PDFDocument } from 'pdf-lib';
import { aCarrierAAccount, anOrderOnPlatform, aRule } from '../helpers/creation';
import { expectError } from '../helpers/errors';
import { aLabel } from '../helpers/labels';
import { aStoreWithKey } from '../helpers/stores';
import { startTestApp, type TestApp, type TestResponse } from '../helpers/test-app';

// `include: ["document"]` (spec `POST /labels`: "returns the PDF in the response"; idempotency: "original answer (201
// or 200) ... with include, PDF served again from storage"), metered as stored documents (decision 0121).

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => app.close());

type Shop = Awaited<ReturnType<typeof aStoreWithKey>>;

async function aShopWithCarrierA(limits: Record<string, number> = {}) {
  const shop = await aStoreWithKey(app.orm, { limits });
  const account = await aCarrierAAccount(app.orm, shop.storeId);
  await aRule(app.orm, shop.storeId, { priority: 1, carrierAccountId: account.id, serviceCode: 'a_home' });
  return shop;
}

const create = (shop: Shop, key: string, body: Record<string, unknown>) =>
  app.request('POST', '/v1/labels', {
    headers: { ...shop.auth, 'Idempotency-Key': key, Prefer: 'wait=30' },
    body,
  });

/** The answer's PDFs, each checked to be the label's one-page PDF. */
async function pdfsOf(res: TestResponse): Promise<string[]> {
  const documents = res.body.documents as Array<{ label_id: string; format: string; data_base64: string }>;
  for (const document of documents) {
    expect(document).toMatchObject({ format: 'label', content_type: 'application/pdf' });
    expect((await PDFDocument.load(Buffer.from(document.data_base64, 'base64'))).getPageCount()).toBe(1);
  }
  return documents.map((d) => d.label_id);
}

describe('include: ["document"] on every succeeded answer', () => {
  it('a 201 and its replay carry the new label’s PDF', async () => {
    const shop = await aShopWithCarrierA();
    const order = await anOrderOnPlatform(shop.domain);
    const made = await create(shop, `made-${order.orderId}`, { order_id: order.orderId, include: ['document'] });
    expect(made.status).toBe(201);
    const labelIds = made.body.labels.map((l: { id: string }) => l.id);
    expect(await pdfsOf(made)).toEqual(labelIds);
    const replay = await create(shop, `made-${order.orderId}`, { order_id: order.orderId, include: ['document'] });
    expect([replay.status, replay.headers.get('idempotency-replayed')]).toEqual([201, 'true']);
    expect(await pdfsOf(replay)).toEqual(labelIds);
  });

  it('a 200 with an existing label carries its stored PDF, and so does its replay', async () => {
    const shop = await aShopWithCarrierA();
    const order = await anOrderOnPlatform(shop.domain);
    const made = await create(shop, `first-${order.orderId}`, { order_id: order.orderId });
    expect(made.status).toBe(201);
    const label = made.body.labels[0];
    const body = { order_id: order.orderId, include: ['document'] };
    const returned = await create(shop, `again-${order.orderId}`, body);
    expect(returned.status).toBe(200);
    expect(returned.body).toMatchObject({ status: 'succeeded', created: false, labels: [{ id: label.id }] });
    expect(await pdfsOf(returned)).toEqual([label.id]);
    const replay = await create(shop, `again-${order.orderId}`, body);
    expect([replay.status, replay.headers.get('idempotency-replayed')]).toEqual([200, 'true']);
    expect(await pdfsOf(replay)).toEqual([label.id]);
  });

  it('leaves out an existing label whose PDF is rendered at the carrier: it is downloaded from its document endpoint', async () => {
    const shop = await aShopWithCarrierA();
    const order = await anOrderOnPlatform(shop.domain);
    const rendered = await aLabel(app.orm, shop.storeId, {
      orderId: order.orderId,
      orderName: order.name,
      fulfillmentOrderIds: order.fulfillmentOrderGids,
      carrierCode: 'carrier_e',
    });
    const returned = await create(shop, `rendered-${order.orderId}`, {
      order_id: order.orderId,
      include: ['document'],
    });
    expect(returned.status).toBe(200);
    expect(returned.body.labels).toEqual([
      expect.objectContaining({ id: rendered.id, document: expect.objectContaining({ source: 'carrier' }) }),
    ]);
    expect(returned.body.documents).toEqual([]);
  });
});

describe('metered as stored documents', () => {
  it('each PDF counts one in document_key_per_minute', async () => {
    const shop = await aShopWithCarrierA({ document_key_per_minute: 2 });
    const order = await anOrderOnPlatform(shop.domain);
    const served = await create(shop, `served-${order.orderId}`, { order_id: order.orderId, include: ['document'] });
    expect(served.status).toBe(201);
    expect(await pdfsOf(served)).toHaveLength(1);
    // The tightest bucket of the request: one of the two taken by its PDF.
    expect(served.headers.get('x-ratelimit-bucket')).toBe('document_key_per_minute');
    expect(served.headers.get('x-ratelimit-remaining')).toBe('1');
  });

  it('a spent document limit never refuses the creation: it answers without the PDF and names the bucket', async () => {
    const shop = await aShopWithCarrierA({ document_key_per_minute: 0 });
    const order = await anOrderOnPlatform(shop.domain);
    const spent = await create(shop, `spent-${order.orderId}`, { order_id: order.orderId, include: ['document'] });
    expect(spent.status).toBe(201);
    expect(spent.body).toMatchObject({ status: 'succeeded', created: true, next_action: 'fetch_document' });
    expect(spent.body.documents).toEqual([]);
    expect(spent.headers.get('x-ratelimit-bucket')).toBe('document_key_per_minute');
    expect(spent.headers.get('x-ratelimit-remaining')).toBe('0');
    // The label stays downloadable, under the same limit.
    const label = spent.body.labels[0];
    expect(label.document).toMatchObject({ availability: 'available', source: 'stored' });
    const download = await app.request('GET', `/v1/labels/${label.id}/document`, { headers: shop.auth });
    expectError(download, 429, 'rate_limited', expect.objectContaining({ bucket: 'document_key_per_minute' }));
  });
});

import { setLimitOverride } from '../../src/limits/overrides';
import { aCarrierAAccount, anOrderOnPlatform, aRule } from '../helpers/creation';
import { expectError } from '../helpers/errors';
import { ledger, scriptFaults } from '../helpers/sandbox';
import { aStoreWithKey } from '../helpers/stores';
import { startTestApp, type TestApp } from '../helpers/test-app';

// The creation limits of the spec's "Limits" as a merchant meets them over HTTP, through the live creation: daily
// units count only creations that reach the carrier, and the per-store write queue (docs/decisions/0404, 0405).

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => app.close());

type Shop = Awaited<ReturnType<typeof aStoreWithKey>>;

async function aShopWithCarrierA(limits: Record<string, number>) {
  const shop = await aStoreWithKey(app.orm);
  for (const [bucket, limit] of Object.entries(limits))
    await setLimitOverride(app.orm.em.fork(), { storeId: shop.storeId, bucket, limit, now: new Date() });
  const account = await aCarrierAAccount(app.orm, shop.storeId);
  await aRule(app.orm, shop.storeId, { priority: 1, carrierAccountId: account.id, serviceCode: 'a_home' });
  return { shop, account };
}

const create = (shop: Shop, key: string, body: Record<string, unknown>, wait = 30) =>
  app.request('POST', '/v1/labels', {
    headers: { ...shop.auth, 'Idempotency-Key': key, Prefer: `wait=${wait}` },
    body,
  });

describe('write_shop_per_day over HTTP', () => {
  it('counts only creations that reach the carrier: returned labels and refusals give their unit back', async () => {
    const { shop, account } = await aShopWithCarrierA({ write_shop_per_day: 2 });
    const a = await anOrderOnPlatform(shop.domain);
    expect((await create(shop, `first-${a.orderId}`, { order_id: a.orderId })).status).toBe(201);

    // Returns the existing label: no carrier call, the unit comes back.
    const again = await create(shop, `again-${a.orderId}`, { order_id: a.orderId });
    expect([again.status, again.body.created]).toEqual([200, false]);
    // Refused before the carrier: nothing counted.
    const refused = await create(shop, `refused-${a.orderId}`, {
      order_id: (await anOrderOnPlatform(shop.domain)).orderId,
      cod: { amount: '10', currency: 'EUR' },
    });
    expectError(refused, 422, 'currency_mismatch', expect.objectContaining({ field: 'cod' }));

    const b = await anOrderOnPlatform(shop.domain);
    expect((await create(shop, `second-${b.orderId}`, { order_id: b.orderId })).status).toBe(201);
    const c = await anOrderOnPlatform(shop.domain);
    const over = await create(shop, `third-${c.orderId}`, { order_id: c.orderId });
    expectError(
      over,
      429,
      'rate_limited',
      expect.objectContaining({ bucket: 'write_shop_per_day', scope: 'shop', limit: 2, window_seconds: 86_400 }),
    );
    // Until the end of the UTC day.
    const retryAfter = Number(over.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(86_400);
    expect(await ledger(account.id)).toHaveLength(2);
  });
});

describe('write_queue_depth over HTTP', () => {
  it('refuses a creation beyond the queue with 429 and Retry-After 5 to 120 s; a finished one frees its place', async () => {
    const { shop, account } = await aShopWithCarrierA({ write_queue_depth: 1 });
    // Slow, within the carrier timeout: the first creation stays in the queue meanwhile.
    await scriptFaults(account.id, [{ type: 'slow', delay_ms: 1500 }]);
    const a = await anOrderOnPlatform(shop.domain);
    const first = await create(shop, `queued-${a.orderId}`, { order_id: a.orderId }, 0);
    expect([first.status, first.body.status]).toEqual([202, 'processing']);

    const b = await anOrderOnPlatform(shop.domain);
    const over = await create(shop, `over-${b.orderId}`, { order_id: b.orderId });
    expectError(
      over,
      429,
      'rate_limited',
      expect.objectContaining({ bucket: 'write_queue_depth', scope: 'shop', limit: 1, window_seconds: null }),
    );
    const retryAfter = Number(over.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(5);
    expect(retryAfter).toBeLessThanOrEqual(120);

    const done = await app.request('GET', `/v1/label-creations/${first.body.id}`, {
      headers: { ...shop.auth, Prefer: 'wait=30' },
    });
    expect(done.body.status).toBe('succeeded');
    expect((await create(shop, `over-${b.orderId}`, { order_id: b.orderId })).status).toBe(201);
  });
});

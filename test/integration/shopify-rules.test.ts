import { randomToken } from '../../src/ids';
import { adminSchemaManifest } from '../../src/platform/shopify-fake/admin-schema';
import { REQUIRED_SHOPIFY_SCOPES } from '../../src/platform/shopify/scopes';
import { aCarrierAAccount, anOrderOnPlatform, aRule } from '../helpers/creation';
import { expectError } from '../helpers/errors';
import { aCarrierAccount, aPlatformId } from '../helpers/labels';
import { sampleValue } from '../helpers/prometheus';
import { control, ledger } from '../helpers/sandbox';
import { connectToFakeShopify, fakeShopifyRequests, type FakeGrants } from '../helpers/shopify';
import { aStoreWithKey } from '../helpers/stores';
import { startTestApp, type TestApp } from '../helpers/test-app';

/**
 * Shopify's documented rules, end to end over HTTP on stores connected to the fake Shopify, which takes them from
 * Shopify's own schema (access scopes, protected customer data) and its documentation (holds, one location per
 * fulfilment, the 60-day window, versions): docs/shopify.md, decisions 0705 and 0706.
 */
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => app.close());

const czk = (amount: string) => ({ amount, currency: 'CZK' });
const DAY = 86_400_000;
const PRAHA_ADDRESS = { name: 'Jana Nováková', street: 'Dlouhá 12', city: 'Praha', postcode: '110 00', country: 'CZ' };

/** A store on the fake Shopify whose installation holds `grants`, creating at carrier A. */
async function aShopifyStore(grants: FakeGrants = {}) {
  const shop = await aStoreWithKey(app.orm, { platform: 'sandbox' });
  await connectToFakeShopify(app.orm, shop, grants);
  const account = await aCarrierAAccount(app.orm, shop.storeId);
  await aRule(app.orm, shop.storeId, { priority: 1, carrierAccountId: account.id, serviceCode: 'a_home' });
  return shop;
}

type Shop = Awaited<ReturnType<typeof aShopifyStore>>;

const create = (shop: Shop, body: Record<string, unknown>, key = `rule-${randomToken(10)}`) =>
  app.request('POST', '/v1/labels', {
    headers: { ...shop.auth, 'Idempotency-Key': key, Prefer: 'wait=30' },
    body: { fulfillment: 'fulfill', ...body },
  });

const fulfillments = async (domain: string) =>
  (await control('GET', `/_control/stores/${domain}/fulfillments`)).body.fulfillments as Array<{
    fulfillment_order_ids: string[];
  }>;

describe('access scopes: a store whose installation lacks one', () => {
  it.each([
    // Shopify names the scope a field needs; for a type's it names only the field (at its path).
    ['write_orders', 'access to order'],
    ['read_locations', 'assignedLocation.location'],
  ])(
    'without %s a creation fails shopify_unavailable at once, naming what it needs: retry after_fix, not an outage',
    async (missing, named) => {
      const shop = await aShopifyStore({ scopes: REQUIRED_SHOPIFY_SCOPES.filter((s) => s !== missing) });
      const order = await anOrderOnPlatform(shop.domain);
      const before = await fakeShopifyRequests(shop.domain);
      const res = await create(shop, { order_id: order.orderId });
      expectError(
        res,
        503,
        'shopify_unavailable',
        expect.objectContaining({
          what: 'order',
          throttled: false,
          access: expect.stringContaining(named),
          retry: 'after_fix',
          next_action: 'fix_and_retry',
        }),
      );
      // Read once, by the checks on arrival, which answer it (decision 0120): never the reads of a platform that is
      // down, and nothing stored.
      expect((await fakeShopifyRequests(shop.domain)) - before).toBe(1);
      expect(res.body.error.details.label_creation_id).toBeUndefined();
      const metrics = (await app.request('GET', '/metrics')).text;
      expect(metrics).toContain('shipping_label_platform_access_denied_total');
    },
  );

  it('without write_merchant_managed_fulfillment_orders Shopify hides the merchant’s fulfillment orders: the order has none ready', async () => {
    const shop = await aShopifyStore({
      scopes: REQUIRED_SHOPIFY_SCOPES.filter((s) => s !== 'write_merchant_managed_fulfillment_orders'),
    });
    const order = await anOrderOnPlatform(shop.domain);
    expectError(
      await create(shop, { order_id: order.orderId }),
      422,
      'order_not_eligible',
      expect.objectContaining({ reason: 'fulfillment_orders_not_ready' }),
    );
  });

  it('without read_third_party_fulfillment_orders Shopify leaves a fulfillment service’s fulfillment order out without a word; with it, it is seen and never a target', async () => {
    const seed = (domain: string) =>
      anOrderOnPlatform(domain, {
        fulfillment_orders: [
          {
            id: aPlatformId(),
            assigned_location: { id: 9, name: 'Warehouse Co', fulfillment_service: 'Warehouse Co' },
            line_items: [{ id: 1, quantity: 1, total_after_discounts: czk('499.00'), weight_grams: 1200 }],
          },
        ],
      });
    const blind = await aShopifyStore({
      scopes: REQUIRED_SHOPIFY_SCOPES.filter((s) => s !== 'read_third_party_fulfillment_orders'),
    });
    const unseen = await seed(blind.domain);
    const read = await app.request('GET', `/v1/orders/${unseen.orderId}`, { headers: blind.auth });
    expect(read.body.delivery.fulfillment_orders).toEqual([]);

    const sighted = await aShopifyStore();
    const seen = await seed(sighted.domain);
    const shown = await app.request('GET', `/v1/orders/${seen.orderId}`, { headers: sighted.auth });
    expect(shown.body.delivery.fulfillment_orders).toHaveLength(1);
    expectError(
      await create(sighted, { order_id: seen.orderId }),
      422,
      'order_not_eligible',
      expect.objectContaining({ reason: 'nothing_to_ship' }),
    );
  });
});

describe('protected customer data', () => {
  it.each([
    [1, 'without approval for name, address, phone and e-mail'],
    [0, 'without approval for customer data at all'],
  ] as const)(
    'level %i (%s): a creation fails shopify_unavailable after_fix, naming the approval',
    async (level, _what) => {
      const shop = await aShopifyStore({ customerDataLevel: level });
      const order = await anOrderOnPlatform(shop.domain);
      expectError(
        await create(shop, { order_id: order.orderId }),
        503,
        'shopify_unavailable',
        expect.objectContaining({ access: 'protected customer data approval', retry: 'after_fix' }),
      );
    },
  );
});

describe('fulfilment', () => {
  it('a label across locations is fulfilled one location at a time: every fulfillment order closes', async () => {
    const shop = await aShopifyStore();
    const line = [{ id: 1, quantity: 1, total_after_discounts: czk('499.00'), weight_grams: 600 }];
    const order = await anOrderOnPlatform(shop.domain, {
      fulfillment_orders: [
        { id: aPlatformId(), assigned_location: { id: 1, name: 'Praha' }, line_items: line },
        { id: aPlatformId(), assigned_location: { id: 2, name: 'Brno' }, line_items: line },
      ],
    });
    const res = await create(shop, { order_id: order.orderId, all_locations: true });
    expect(res.status).toBe(201);
    expect(res.body.side_effects.fulfillment).toEqual({ mode: 'fulfill', status: 'succeeded' });
    const made = await fulfillments(shop.domain);
    expect(made.map((f) => f.fulfillment_order_ids)).toEqual([
      [order.fulfillmentOrderGids[0]],
      [order.fulfillmentOrderGids[1]],
    ]);
  });
});

describe('fulfilment that converges: a retry fulfils what is still open, never twice', () => {
  const line = [{ id: 1, quantity: 1, total_after_discounts: czk('499.00'), weight_grams: 600 }];
  const anOrderAtTwoLocations = (shop: Shop) =>
    anOrderOnPlatform(shop.domain, {
      fulfillment_orders: [
        { id: aPlatformId(), assigned_location: { id: 1, name: 'Praha' }, line_items: line },
        { id: aPlatformId(), assigned_location: { id: 2, name: 'Brno' }, line_items: line },
      ],
    });
  const fulfillmentCreateFault = async (shop: Shop, fault: Record<string, unknown>) => {
    const res = await control('POST', `/_control/shopify/${shop.domain}/faults`, {
      faults: [{ type: 'mutation', mutation: 'fulfillmentCreate', ...fault }],
    });
    expect(res.status).toBe(201);
  };

  it.each([
    ['the second location’s call fails once (503)', { after: 1, outcome: 'unavailable' }],
    // Past SHOPIFY_TIMEOUT (10 s, the worker's default): the activity gives up on an answer Shopify committed.
    ['the first call times out after Shopify committed it', { outcome: 'late_answer', delay_ms: 12_000 }],
  ])('%s: fulfilled, one fulfilment per location', async (_what, fault) => {
    const shop = await aShopifyStore();
    const order = await anOrderAtTwoLocations(shop);
    await fulfillmentCreateFault(shop, fault);
    const res = await create(shop, { order_id: order.orderId, all_locations: true });
    expect(res.status).toBe(201);
    expect(res.body.side_effects.fulfillment).toEqual({ mode: 'fulfill', status: 'succeeded' });
    const made = await fulfillments(shop.domain);
    expect(made.map((f) => f.fulfillment_order_ids)).toEqual([
      [order.fulfillmentOrderGids[0]],
      [order.fulfillmentOrderGids[1]],
    ]);
  });
});

describe('the recipient’s phone', () => {
  it('a carrier C pickup-point label for an order whose phone is only on the shipping address is created', async () => {
    const shop = await aStoreWithKey(app.orm, { platform: 'sandbox' });
    await connectToFakeShopify(app.orm, shop);
    const account = await aCarrierAccount(app.orm, shop.storeId, {
      carrierCode: 'carrier_c',
      services: [{ code: 'c_pickup', name: 'Pickup point', codSupported: true, pickupPointRequired: true }],
      sender: { name: 'Shop s.r.o.', countryCode: 'CZ', iban: 'CZ6508000000192000145399' },
    });
    await aRule(app.orm, shop.storeId, { priority: 1, carrierAccountId: account.id, serviceCode: 'c_pickup' });
    const order = await anOrderOnPlatform(shop.domain, {
      phone: null,
      shipping_address: { ...PRAHA_ADDRESS, phone: '+420601234567' },
      delivery_method: { type: 'pickup', pickup_point: { id: 'CZ10001', carrier_code: 'carrier_c', country: 'CZ' } },
    });
    const res = await create(shop, { order_id: order.orderId, fulfillment: 'none' });
    expect([res.status, res.body.error ?? null]).toEqual([201, null]);
    expect(await ledger(account.id)).toEqual([expect.objectContaining({ reference: res.body.id })]);
  });
});

describe('holds', () => {
  it('a fulfillment order the merchant holds is held (creation_in_progress, held_by unknown), not "not ready"', async () => {
    const shop = await aShopifyStore();
    const order = await anOrderOnPlatform(shop.domain);
    await control('POST', `/_control/stores/${shop.domain}/fulfillment-orders/${order.fulfillmentOrderIds[0]}/hold`, {
      reason: 'checking the address',
      by: 'merchant',
    });
    const read = await app.request('GET', `/v1/orders/${order.orderId}`, { headers: shop.auth });
    expect(read.body.delivery.fulfillment_orders[0]).toMatchObject({ status: 'on_hold', held_by: 'unknown' });
    expectError(
      await create(shop, { order_id: order.orderId, on_existing: 'reject' }),
      409,
      'creation_in_progress',
      expect.objectContaining({ held_by: 'unknown', retry: 'later' }),
    );
    await control('POST', `/_control/stores/${shop.domain}/fulfillment-orders/${order.fulfillmentOrderIds[0]}/release`);
    expect((await create(shop, { order_id: order.orderId, on_existing: 'reject' })).status).toBe(201);
  });
});

describe('what ships', () => {
  it('a partly fulfilled line weighs and costs what remains to ship (remainingQuantity)', async () => {
    const shop = await aShopifyStore();
    const order = await anOrderOnPlatform(shop.domain, {
      payment_gateways: ['Cash on Delivery (COD)'],
      total_outstanding: czk('300.00'),
      fulfillment_orders: [
        {
          id: aPlatformId(),
          status: 'in_progress',
          line_items: [
            { id: 1, quantity: 1, fulfilled_quantity: 2, total_after_discounts: czk('300.00'), weight_grams: 500 },
          ],
        },
      ],
    });
    const dryRun = await app.request('POST', '/v1/labels', {
      headers: shop.auth,
      body: { order_id: order.orderId, dry_run: true },
    });
    expect(dryRun.status).toBe(200);
    expect(dryRun.body.resolved.parcels).toEqual([{ weight_grams: 500, source: 'order' }]);
  });
});

describe('the 60-day window', () => {
  it('an order older than 60 days is readable only with read_all_orders', async () => {
    const old = (domain: string) =>
      anOrderOnPlatform(domain, { created_at: new Date(Date.now() - 61 * DAY).toISOString() });
    const recent = await aShopifyStore();
    const unseen = await old(recent.domain);
    expectError(
      await create(recent, { order_id: unseen.orderId }),
      422,
      'order_not_eligible',
      expect.objectContaining({ reason: 'order_not_found' }),
    );
    const all = await aShopifyStore({ scopes: [...REQUIRED_SHOPIFY_SCOPES, 'read_all_orders'] });
    const seen = await old(all.domain);
    expect((await create(all, { order_id: seen.orderId })).status).toBe(201);
  });
});

describe('API versions', () => {
  it('a pinned version past its support is served the oldest supported one: a metric and a warning say so', async () => {
    const stale = await startTestApp({ env: { SHOPIFY_API_VERSION: '2025-10' } });
    try {
      const shop = await aStoreWithKey(stale.orm, { platform: 'sandbox' });
      await connectToFakeShopify(stale.orm, shop);
      const order = await anOrderOnPlatform(shop.domain);
      expect((await stale.request('GET', `/v1/orders/${order.orderId}`, { headers: shop.auth })).status).toBe(200);
      const metrics = (await stale.request('GET', '/metrics')).text;
      const served = adminSchemaManifest().pinned;
      expect(sampleValue(metrics, 'shipping_label_shopify_version_mismatch_total', { served })).toBeGreaterThanOrEqual(
        1,
      );
    } finally {
      await stale.close();
    }
  });
});

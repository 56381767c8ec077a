import { aCarrierAAccount, aCreationRecord, anOrderOnPlatform, aRule, aStoreCodRule } from '../helpers/creation';
import { expectError } from '../helpers/errors';
import { aCarrierAccount, aLabel, aPlatformId } from '../helpers/labels';
import { control, ledger } from '../helpers/sandbox';
import { storesOnShopify } from '../helpers/shopify';
import { aStoreWithKey } from '../helpers/stores';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { DAY, isoSeconds } from '../helpers/time';

// An export's hold is one on the sandbox platform; Shopify tells only that the hold is not this app's (decision 0705).
const EXPORT_HOLDER = storesOnShopify() ? 'unknown' : 'export';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => app.close());

type Shop = Awaited<ReturnType<typeof aStoreWithKey>>;

/**
 * These tests send dry runs back to back, faster than the spec's 2 per second per key: their stores get room (the
 * dry-run buckets at their spec limits are tested in rate-limits.test.ts).
 */
const ROOMY = { limits: { dry_run_key_per_second: 1000, dry_run_key_per_minute: 1000, dry_run_shop_per_minute: 1000 } };
const aShop = (options: Parameters<typeof aStoreWithKey>[1] = {}) => aStoreWithKey(app.orm, { ...ROOMY, ...options });

async function dryRun(shop: Shop, body: Record<string, unknown>, headers: Record<string, string> = {}) {
  return app.request('POST', '/v1/labels', {
    headers: { ...shop.auth, ...headers },
    body: { dry_run: true, ...body },
  });
}

/** A store whose rules send every order to a carrier A account's home service. */
async function aShopWithCarrierA(overrides: Parameters<typeof aCarrierAAccount>[2] = {}) {
  const shop = await aShop();
  const account = await aCarrierAAccount(app.orm, shop.storeId, overrides);
  await aRule(app.orm, shop.storeId, { priority: 1, carrierAccountId: account.id, serviceCode: 'a_home' });
  return { shop, account };
}

async function creationCount(storeId: string): Promise<number> {
  const [row] = await app.orm.em
    .fork()
    .execute<Array<{ n: string }>>('select count(*) as n from label_creations where store_id = ?', [storeId]);
  return Number(row!.n);
}

describe('POST /v1/labels dry run: would create', () => {
  it('answers 200 validated with the resolved decision, creating nothing, binding no key and calling no carrier', async () => {
    const { shop, account } = await aShopWithCarrierA();
    const order = await anOrderOnPlatform(shop.domain, {
      payment_gateways: ['Cash on Delivery (COD)'],
      total_outstanding: { amount: '499.50', currency: 'CZK' },
    });
    const res = await dryRun(shop, { order_id: order.orderId, client_reference: 'ref-1' }, { 'Idempotency-Key': 'x' });
    expect(res.status).toBe(200);
    expect(res.headers.get('location')).toBeNull();
    expect(res.headers.get('content-location')).toBeNull();
    expect(res.body).toMatchObject({
      id: null,
      status: 'validated',
      phase: null,
      next_action: 'none',
      created: false,
      dry_run: true,
      would: 'create',
      order: { id: order.orderGid, legacy_id: order.orderId, name: order.name },
      labels: [],
      error: null,
      attention: null,
      url: null,
      client_reference: 'ref-1',
      requested: { order_id: order.orderGid, cod: null, on_existing: 'return', fulfillment: 'account_default' },
      resolved: {
        selection: 'auto',
        carrier_account_id: account.id,
        service_code: 'a_home',
        parcels: [{ weight_grams: 1200, source: 'order' }],
        fulfillment: { mode: 'none', source: 'account_default' },
        cod: {
          decided: { amount: '499.50', currency: 'CZK', source: 'payment_gateway' },
          to_carrier: { amount: '500.00', currency: 'CZK', state: 'predicted' },
          derivation: { matched_gateway: 'Cash on Delivery (COD)', split: null },
        },
        declared_value: {
          decided: { amount: '499.00', currency: 'CZK', source: 'order' },
          to_carrier: { amount: '499.00', currency: 'CZK' },
        },
      },
    });
    expect(res.body.resolved.matched_rule).toEqual({ id: expect.stringMatching(/^cr_/), priority: 1 });
    expect(res.body.warnings.map((w: { code: string }) => w.code)).toEqual(['cod_adjusted']);
    expect(await creationCount(shop.storeId)).toBe(0);
    expect(await ledger(account.id)).toEqual([]);
    const [keys] = await app.orm.em
      .fork()
      .execute<Array<{ n: string }>>('select count(*) as n from idempotency_keys where store_id = ?', [shop.storeId]);
    expect(Number(keys!.n)).toBe(0);
  });

  it('finds the order by name with `#` and case ignored, and splits an automatic COD for one fulfillment order', async () => {
    const { shop } = await aShopWithCarrierA();
    const order = await anOrderOnPlatform(shop.domain, {
      metafields: { 'service.cod_value': '1000.00' },
      fulfillment_orders: [
        {
          id: 71001,
          line_items: [
            { id: 1, quantity: 1, total_after_discounts: { amount: '300.00', currency: 'CZK' }, weight_grams: 500 },
          ],
        },
        {
          id: 71002,
          line_items: [
            { id: 2, quantity: 1, total_after_discounts: { amount: '700.00', currency: 'CZK' }, weight_grams: 900 },
          ],
        },
      ],
    });
    const res = await dryRun(shop, {
      order_name: order.name.replace('#', '').toUpperCase(),
      fulfillment_order_ids: [order.fulfillmentOrderGids[1]],
    });
    expect(res.status).toBe(200);
    expect(res.body.requested.fulfillment_order_ids).toEqual([order.fulfillmentOrderGids[1]]);
    expect(res.body.resolved.cod).toMatchObject({
      decided: { amount: '700.00', source: 'order_metafield' },
      derivation: {
        raw_metafield: '1000.00',
        base: { amount: '1000.00', currency: 'CZK' },
        split: {
          label_goods_value: { amount: '700.00' },
          order_goods_value: { amount: '1000.00' },
          fulfillment_order_ids: [order.fulfillmentOrderGids[1]],
        },
      },
    });
    expect(res.body.resolved.parcels).toEqual([{ weight_grams: 900, source: 'order' }]);
  });

  it('applies the store COD rule and warns of a missing phone', async () => {
    const { shop } = await aShopWithCarrierA();
    await aStoreCodRule(app.orm, shop.storeId, 'order_total');
    const order = await anOrderOnPlatform(shop.domain, { payment_gateways: [], phone: null });
    const res = await dryRun(shop, { order_id: order.orderGid });
    expect(res.status).toBe(200);
    expect(res.body.resolved.cod.decided).toEqual({ amount: '499.00', currency: 'CZK', source: 'shop_rule' });
    expect(res.body.warnings.map((w: { code: string }) => w.code)).toEqual(['missing_phone']);
  });
});

describe('POST /v1/labels dry run: existing labels', () => {
  it('would return a ready covering label, and warns when carrier_options would not apply', async () => {
    const { shop, account } = await aShopWithCarrierA();
    const order = await anOrderOnPlatform(shop.domain);
    const label = await aLabel(app.orm, shop.storeId, {
      orderId: order.orderId,
      orderName: order.name,
      fulfillmentOrderIds: order.fulfillmentOrderGids,
      carrierCode: 'carrier_a',
      carrierAccountId: account.id,
    });
    const res = await dryRun(shop, { order_id: order.orderId, carrier_options: { consign_password: true } });
    expect(res.status).toBe(200);
    expect(res.body.would).toBe('return_existing');
    expect(res.body.labels.map((l: { id: string }) => l.id)).toEqual([label.id]);
    expect(res.body.labels[0]).toMatchObject({ status: 'ready', document: { availability: expect.any(String) } });
    expect(res.body.warnings).toEqual([
      expect.objectContaining({ code: 'request_parameters_not_applied', details: { parameters: ['carrier_options'] } }),
    ]);
    expect(res.body.resolved.carrier_account_id).toBeNull();

    const reject = await dryRun(shop, { order_id: order.orderId, on_existing: 'reject' });
    expectError(
      reject,
      409,
      'label_exists',
      expect.objectContaining({
        reason: 'existing_label_ready',
        existing_label_ids: [label.id],
        retry: 'no',
      }),
    );

    const differs = await dryRun(shop, { order_id: order.orderId, carrier_account_id: 'ca_other0000' });
    expectError(
      differs,
      409,
      'label_exists',
      expect.objectContaining({
        reason: 'existing_label_differs',
        differences: [{ field: 'carrier_account_id', requested: 'ca_other0000', existing: account.id }],
      }),
    );

    const replaced = await dryRun(shop, { order_id: order.orderId, on_existing: 'create_new', replaces: [] });
    expectError(replaced, 409, 'precondition_failed', expect.objectContaining({ current_blocking: [label.id] }));
    const creates = await dryRun(shop, { order_id: order.orderId, on_existing: 'create_new', replaces: [label.id] });
    expect(creates.status).toBe(200);
    expect(creates.body.would).toBe('create');
  });

  it('would wait for a covering label pending under 10 minutes, and for an export holding the fulfillment order', async () => {
    const { shop } = await aShopWithCarrierA();
    const order = await anOrderOnPlatform(shop.domain);
    const pending = await aLabel(app.orm, shop.storeId, {
      orderId: order.orderId,
      orderName: order.name,
      fulfillmentOrderIds: order.fulfillmentOrderGids,
      carrierCode: 'carrier_b',
      status: 'pending',
    });
    const res = await dryRun(shop, { order_id: order.orderId });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      would: 'wait_for_existing',
      waiting_for: { reason: 'label_pending', label_id: pending.id },
      labels: [{ id: pending.id, status: 'pending' }],
    });
    expectError(
      await dryRun(shop, { order_id: order.orderId, on_existing: 'reject' }),
      409,
      'label_exists',
      expect.objectContaining({
        reason: 'existing_label_pending',
      }),
    );

    const other = await anOrderOnPlatform(shop.domain);
    await control('POST', `/_control/stores/${shop.domain}/fulfillment-orders/${other.fulfillmentOrderIds[0]}/hold`, {
      reason: 'automation export',
    });
    const held = await dryRun(shop, { order_id: other.orderId });
    expect(held.status).toBe(200);
    expect(held.body).toMatchObject({
      would: 'wait_for_existing',
      waiting_for: { reason: 'fulfillment_order_held', held_by: EXPORT_HOLDER, label_creation_id: null },
    });
    const refused = await dryRun(shop, { order_id: other.orderId, on_existing: 'reject' });
    expectError(
      refused,
      409,
      'creation_in_progress',
      expect.objectContaining({ held_by: EXPORT_HOLDER, retry: 'later' }),
    );
    expect(refused.headers.get('retry-after')).toBe('5');
  });

  it('refuses while an earlier creation needs attention, and names an abandoned one', async () => {
    const { shop } = await aShopWithCarrierA();
    const order = await anOrderOnPlatform(shop.domain);
    const stuck = await aCreationRecord(app.orm, {
      storeId: shop.storeId,
      orderGid: order.orderGid,
      fulfillmentOrderGids: order.fulfillmentOrderGids,
      status: 'needs_attention',
    });
    for (const mode of ['return', 'reject', 'create_new'])
      expectError(
        await dryRun(shop, {
          order_id: order.orderId,
          on_existing: mode,
          ...(mode === 'create_new' ? { replaces: [] } : {}),
        }),
        409,
        'unresolved_creation',
        expect.objectContaining({ label_creation_id: stuck, retry: 'manual', next_action: 'manual_check' }),
      );

    const other = await anOrderOnPlatform(shop.domain);
    const abandoned = await aCreationRecord(app.orm, {
      storeId: shop.storeId,
      orderGid: other.orderGid,
      fulfillmentOrderGids: other.fulfillmentOrderGids,
      status: 'abandoned',
    });
    expectError(
      await dryRun(shop, { order_id: other.orderId }),
      409,
      'label_exists',
      expect.objectContaining({
        reason: 'shipment_outside_globe',
        label_creation_id: abandoned,
      }),
    );
    const replacing = await dryRun(shop, { order_id: other.orderId, on_existing: 'create_new', replaces: [abandoned] });
    expect(replacing.body.would).toBe('create');
  });
});

describe('POST /v1/labels dry run: refusals a live call would get', () => {
  it('order and target: not found, ambiguous name, cancelled, several locations', async () => {
    const { shop } = await aShopWithCarrierA();
    expectError(
      await dryRun(shop, { order_name: '#nope' }),
      422,
      'order_not_eligible',
      expect.objectContaining({
        reason: 'order_not_found',
        order_name: 'nope',
      }),
    );
    const a = await anOrderOnPlatform(shop.domain);
    await anOrderOnPlatform(shop.domain, { name: a.name.toLowerCase() });
    expectError(
      await dryRun(shop, { order_name: a.name }),
      422,
      'order_ambiguous',
      expect.objectContaining({ order_name: a.name.slice(1) }),
    );
    const cancelled = await anOrderOnPlatform(shop.domain, { cancelled_at: isoSeconds(Date.now() - DAY) });
    expectError(
      await dryRun(shop, { order_id: cancelled.orderId }),
      422,
      'order_not_eligible',
      expect.objectContaining({
        reason: 'order_cancelled',
      }),
    );
    const split = await anOrderOnPlatform(shop.domain, {
      fulfillment_orders: [
        { id: 72001, assigned_location: { id: 1, name: 'Praha' } },
        { id: 72002, assigned_location: { id: 2, name: 'Brno' } },
      ],
    });
    const res = await dryRun(shop, { order_id: split.orderId });
    expectError(res, 422, 'fulfillment_order_required');
    expect(
      res.body.error.details.fulfillment_orders.map(
        (f: { assigned_location_name: string }) => f.assigned_location_name,
      ),
    ).toEqual(['Praha', 'Brno']);
  });

  it('too_many_fulfillment_orders counts every fulfillment order of the order, not only the shippable ones', async () => {
    const { shop } = await aShopWithCarrierA();
    const aLine = {
      id: 1,
      quantity: 1,
      total_after_discounts: { amount: '499.00', currency: 'CZK' },
      weight_grams: 1200,
    };
    // One open parcel fulfillment order and 20 closed ones: 21 on the order (spec "Limits": at most 20 per order).
    const crowded = await anOrderOnPlatform(shop.domain, {
      fulfillment_orders: [
        { id: aPlatformId(), line_items: [aLine] },
        ...Array.from({ length: 20 }, () => ({ id: aPlatformId(), status: 'closed' })),
      ],
    });
    const refusal = { reason: 'too_many_fulfillment_orders', order_id: crowded.orderGid };
    expectError(
      await dryRun(shop, { order_id: crowded.orderId }),
      422,
      'order_not_eligible',
      expect.objectContaining(refusal),
    );
    expectError(
      await dryRun(shop, { order_id: crowded.orderId, fulfillment_order_ids: [crowded.fulfillmentOrderIds[0]] }),
      422,
      'order_not_eligible',
      expect.objectContaining(refusal),
    );
    // A live request gets the same answer and no label.
    const live = await app.request('POST', '/v1/labels', {
      headers: { ...shop.auth, 'Idempotency-Key': `crowded-${crowded.orderId}`, Prefer: 'wait=30' },
      body: { order_id: crowded.orderId },
    });
    expectError(live, 422, 'order_not_eligible', expect.objectContaining(refusal));

    // 20 on the order, one of them shippable: within the limit.
    const full = await anOrderOnPlatform(shop.domain, {
      fulfillment_orders: [
        { id: aPlatformId(), line_items: [aLine] },
        ...Array.from({ length: 19 }, () => ({ id: aPlatformId(), status: 'closed' })),
      ],
    });
    const allowed = await dryRun(shop, { order_id: full.orderId });
    expect(allowed.status).toBe(200);
    expect(allowed.body.would).toBe('create');
  });

  it('carrier selection, options, currency and pre-carrier checks', async () => {
    const bare = await aShop();
    const order = await anOrderOnPlatform(bare.domain);
    expectError(
      await dryRun(bare, { order_id: order.orderId }),
      422,
      'carrier_selection_failed',
      expect.objectContaining({
        reason: 'no_carrier_accounts',
      }),
    );

    const { shop, account } = await aShopWithCarrierA();
    const o = await anOrderOnPlatform(shop.domain);
    expectError(
      await dryRun(shop, { order_id: o.orderId, carrier_options: { nope: 1 } }),
      422,
      'unsupported_parameter',
      expect.objectContaining({
        parameter: 'carrier_options.nope',
        carrier_account_id: account.id,
      }),
    );
    expectError(
      await dryRun(shop, { order_id: o.orderId, cod: { amount: '10', currency: 'EUR' } }),
      422,
      'currency_mismatch',
      expect.objectContaining({ field: 'cod', expected_currency: 'CZK' }),
    );
    const c = await aCarrierAccount(app.orm, shop.storeId, {
      carrierCode: 'carrier_c',
      services: [{ code: 'c_pickup', name: 'Pickup', codSupported: false, pickupPointRequired: true }],
      sender: { name: 'Shop', countryCode: 'CZ' },
    });
    const pickup = await anOrderOnPlatform(shop.domain, {
      phone: null,
      delivery_method: { type: 'pickup', pickup_point: { id: 'CZ10001', carrier_code: 'carrier_c', country: 'CZ' } },
    });
    const res = await dryRun(shop, {
      order_id: pickup.orderId,
      carrier_account_id: c.id,
      cod: { amount: '100', currency: 'CZK' },
      declared_value: null,
    });
    expectError(res, 422, 'label_validation_failed', expect.objectContaining({ retry: 'after_fix' }));
    expect(res.body.error.details.issues).toEqual([
      { code: 'missing_phone', field: 'phone' },
      { code: 'cod_not_supported' },
    ]);
  });

  it('request validation: unknown field, include with dry_run, amount limits, service without account', async () => {
    const { shop } = await aShopWithCarrierA();
    expectError(
      await dryRun(shop, { order_id: '1', colour: 'red' }),
      422,
      'validation_error',
      expect.objectContaining({ parameter: 'colour' }),
    );
    expectError(
      await dryRun(shop, { order_id: '1', include: ['document'] }),
      422,
      'validation_error',
      expect.objectContaining({
        parameter: 'include',
      }),
    );
    expectError(
      await dryRun(shop, { order_id: '1', cod: { amount: '10000000.00', currency: 'CZK' } }),
      422,
      'validation_error',
      expect.objectContaining({ parameter: 'cod.amount', received: '10000000.00', max: '9999999.99' }),
    );
    expectError(
      await dryRun(shop, { order_id: '1', cod: { amount: '1.234', currency: 'CZK' } }),
      422,
      'validation_error',
      expect.objectContaining({
        parameter: 'cod.amount',
      }),
    );
    expectError(
      await dryRun(shop, { order_id: '1', service_code: 'a_home' }),
      422,
      'validation_error',
      expect.objectContaining({
        parameter: 'service_code',
      }),
    );
    expectError(
      await dryRun(shop, { order_id: '1', parcels: [{ weight_grams: 0 }] }),
      422,
      'validation_error',
      expect.objectContaining({
        parameter: 'parcels.0.weight_grams',
      }),
    );
    expectError(
      await dryRun(shop, { order_id: '1', on_existing: 'create_new' }),
      422,
      'validation_error',
      expect.objectContaining({
        parameter: 'replaces',
      }),
    );
    expectError(
      await dryRun(shop, { order_id: '1' }, { Prefer: 'wait=61' }),
      422,
      'validation_error',
      expect.objectContaining({
        header: 'Prefer',
      }),
    );
  });

  it('answers shopify_unavailable with Retry-After 5 when the platform throttles the order read', async () => {
    const { shop } = await aShopWithCarrierA();
    const order = await anOrderOnPlatform(shop.domain);
    await control('POST', `/_control/stores/${shop.domain}/faults`, {
      faults: [{ type: 'throttled', retry_after_seconds: 17 }],
    });
    const res = await dryRun(shop, { order_id: order.orderId });
    expectError(
      res,
      503,
      'shopify_unavailable',
      expect.objectContaining({ what: 'order', throttled: true, retry: 'later' }),
    );
    expect(res.headers.get('retry-after')).toBe('5');
  });

  it('needs labels:write and write access', async () => {
    const readOnly = await aShop({ scopes: ['labels:print'] });
    expectError(
      await dryRun(readOnly, { order_id: '1' }),
      403,
      'insufficient_scope',
      expect.objectContaining({
        required_scope: 'labels:write',
      }),
    );
    const noWrite = await aShop({ gates: { writeAccess: false } });
    expectError(await dryRun(noWrite, { order_id: '1' }), 403, 'write_access_required');
  });
});

describe('POST /v1/labels live requests', () => {
  it('validates the request and its headers first, then hands it to the live creation', async () => {
    const { shop } = await aShopWithCarrierA();
    const post = (body: unknown, headers: Record<string, string> = {}) =>
      app.request('POST', '/v1/labels', { headers: { ...shop.auth, ...headers }, body });
    expectError(
      await post({ order_id: '1', colour: 'red' }, { 'Idempotency-Key': 'key-12345' }),
      422,
      'validation_error',
      expect.objectContaining({
        parameter: 'colour',
      }),
    );
    expectError(
      await post({ order_id: '1' }),
      422,
      'validation_error',
      expect.objectContaining({ header: 'Idempotency-Key' }),
    );
    expectError(
      await post({ order_id: '1' }, { 'Idempotency-Key': 'auto' }),
      422,
      'validation_error',
      expect.objectContaining({
        header: 'Idempotency-Key',
      }),
    );
    expectError(
      await post({ order_id: '1' }, { 'Idempotency-Key': 'short' }),
      422,
      'validation_error',
      expect.objectContaining({
        header: 'Idempotency-Key',
        min: 8,
      }),
    );
    const writer = await aShop({ scopes: ['labels:write'] });
    const withoutPrint = await app.request('POST', '/v1/labels', {
      headers: { ...writer.auth, 'Idempotency-Key': 'key-12345' },
      body: { order_id: '1', include: ['document'] },
    });
    expectError(withoutPrint, 403, 'insufficient_scope', expect.objectContaining({ required_scope: 'labels:print' }));
    // Reached the live creation, which refuses it on arrival (decision 0120: the order is not on the platform): no
    // record exists, so none is named.
    const reached = await post({ order_id: '1' }, { 'Idempotency-Key': 'key-12345', Prefer: 'wait=30' });
    expectError(reached, 422, 'order_not_eligible', expect.objectContaining({ reason: 'order_not_found' }));
    expect(reached.body.error.details.label_creation_id).toBeUndefined();
    expect(await creationCount(shop.storeId)).toBe(0);
  });
});

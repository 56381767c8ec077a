import { createApiKey } from '../../src/access/api-keys';
import { SandboxPlatformAdapter } from '../../src/platform/sandbox-adapter';
import { aCarrierAAccount, aCreationRecord, aRule } from '../helpers/creation';
import { expectError } from '../helpers/errors';
import { aLabel, aPlatformId, aStoredDocument } from '../helpers/labels';
import {
  aCustomProvider,
  aPickupStore,
  aPlatformOrder,
  networkPoints,
  PRAHA,
  providerRequests,
  scriptProviderFaults,
  setProviderPoints,
} from '../helpers/pickup';
import { control, sandboxUrl, scriptFaults } from '../helpers/sandbox';
import { storesOnShopify } from '../helpers/shopify';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { DAY, isoSeconds } from '../helpers/time';

// An export's hold is one on the sandbox platform; Shopify tells only that the hold is not this app's (decision 0705).
const EXPORT_HOLDER = storesOnShopify() ? 'unknown' : 'export';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ env: { PICKUP_PROVIDER_TIMEOUT: '400ms', PICKUP_POINT_CACHE_TTL: '0ms' } });
});
afterAll(async () => app.close());

const pickupStore = (carriers?: Parameters<typeof aPickupStore>[1]) => aPickupStore(app.orm, carriers);
const platform = () => new SandboxPlatformAdapter({ baseUrl: sandboxUrl(), timeoutMs: 5_000 });

const put = (orderId: string, auth: Record<string, string>, body: unknown) =>
  app.request('PUT', `/v1/orders/${encodeURIComponent(orderId)}/pickup-point`, { headers: auth, body });

describe('GET /v1/orders/{order_id}', () => {
  it('shows pickup point, delivery, reminders, COD facts and labels through the label serializer', async () => {
    const store = await pickupStore();
    const order = await aPlatformOrder(store.domain, {
      pickupPoint: { id: '1001', carrier_code: 'carrier_a', name: 'Carrier A point', country: 'CZ' },
      extra: {
        payment_gateways: ['Cash on Delivery (COD)'],
        metafields: { 'service/cod_value': '1290.00', 'service/currency': 'CZK' },
        total_outstanding: { amount: '1290', currency: 'CZK' },
      },
    });
    const label = await aLabel(app.orm, store.storeId, { orderId: order.id, status: 'pending' });
    await aStoredDocument(app.orm, label.id);
    const byId = await app.request('GET', `/v1/orders/${order.id}`, { headers: store.auth });
    expect(byId.status).toBe(200);
    const byGid = await app.request('GET', `/v1/orders/${encodeURIComponent(order.gid)}`, { headers: store.auth });
    expect(byGid.body).toEqual(byId.body);
    const labelRes = await app.request('GET', `/v1/labels/${label.id}`, { headers: store.auth });
    expect(byId.body).toMatchObject({
      id: order.gid,
      legacy_id: order.id,
      currency: 'CZK',
      cancelled_at: null,
      delivery_method: { type: 'pickup', title: 'Pickup point', pickup_point_method: true },
      pickup_point: {
        id: '1001',
        carrier: { code: 'carrier_a', name: 'Carrier A' },
        name: 'Carrier A point',
        country: 'CZ',
        customer_id_set: false,
      },
      delivery: {
        status: 'label_created',
        shipping_country: 'CZ',
        fulfillment_orders: [
          {
            id: `gid://shopify/FulfillmentOrder/${order.fulfillmentOrderIds[0]}`,
            legacy_id: order.fulfillmentOrderIds[0],
            status: 'open',
            delivery_method_type: 'shipping',
            held_by: null,
            label_creation_id: null,
          },
        ],
      },
      reminders: [{ code: 'label_pending', label_ids: [label.id] }],
      cod: {
        payment_gateways: ['Cash on Delivery (COD)'],
        cod_value_metafield: '1290.00',
        currency_metafield: 'CZK',
        order_currency: 'CZK',
        total_price: { amount: '1290.00', currency: 'CZK' },
        total_outstanding: { amount: '1290.00', currency: 'CZK' },
      },
    });
    expect(byId.body.labels).toEqual([labelRes.body]);
    // No recipient data: the label object's rule holds for the order object too.
    expect(byId.text).not.toMatch(/Nováková|Dlouhá|50\.0755/);
  });

  it('reminds of a missing pickup point and label, and shows who holds a fulfillment order', async () => {
    const store = await pickupStore();
    const order = await aPlatformOrder(store.domain);
    await control('POST', `/_control/stores/${store.domain}/fulfillment-orders/${order.fulfillmentOrderIds[0]}/hold`, {
      reason: 'automation export',
    });
    const res = await app.request('GET', `/v1/orders/${order.id}`, { headers: store.auth });
    expect(res.body.pickup_point).toBeNull();
    expect(res.body.delivery.status).toBe('awaiting_label');
    expect(res.body.reminders.map((r: any) => r.code)).toEqual(['pickup_point_missing', 'label_missing']);
    expect(res.body.delivery.fulfillment_orders[0]).toMatchObject({ held_by: EXPORT_HOLDER, label_creation_id: null });
    expect(res.body.labels).toEqual([]);
  });

  it('answers 404 for another store, a malformed and an unknown ID; 503 when the platform is down', async () => {
    const store = await pickupStore();
    const other = await pickupStore();
    const order = await aPlatformOrder(store.domain);
    for (const id of [order.id, 'lbl_x', 'gid://shopify/Product/1', '0', '12345678901']) {
      const res = await app.request('GET', `/v1/orders/${encodeURIComponent(id)}`, {
        headers: id === order.id ? other.auth : store.auth,
      });
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
    await control('POST', `/_control/stores/${store.domain}/faults`, { faults: [{ type: 'throttled' }] });
    const down = await app.request('GET', `/v1/orders/${order.id}`, { headers: store.auth });
    expect(down.status).toBe(503);
    expect(down.body.error).toMatchObject({ code: 'shopify_unavailable', details: { what: 'order', throttled: true } });
    expect(down.headers.get('retry-after')).toBe('5');
  });
});

describe('PUT /v1/orders/{order_id}/pickup-point', () => {
  it('sets a carrier point, writes it to the store platform and shows it on the order', async () => {
    const store = await pickupStore();
    const order = await aPlatformOrder(store.domain);
    const point = networkPoints('carrier_a', PRAHA, (p) => p.kind === 'pickup_point')[3]!;
    const res = await put(order.id, store.auth, { carrier: 'carrier_a', pickup_point_id: point.id });
    expect(res.status).toBe(200);
    expect(res.body.pickup_point).toEqual({
      id: point.id,
      carrier: { code: 'carrier_a', name: 'Carrier A' },
      name: point.name,
      country: 'CZ',
      customer_id_set: false,
    });
    expect(res.body.reminders.map((r: any) => r.code)).toEqual(['label_missing']);
    // The next label creation reads the point from the order on the platform.
    const onPlatform = await platform().getOrder(store.domain, order.id);
    expect(onPlatform!.deliveryMethod.pickupPoint).toEqual({
      id: point.id,
      carrierCode: 'carrier_a',
      name: point.name,
      country: 'CZ',
      customerId: null,
    });
    const again = await put(order.gid, store.auth, { carrier: 'carrier_a', pickup_point_id: point.id });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(res.body);
  });

  it('is the point the next label creation decides with', async () => {
    const store = await pickupStore(['carrier_a']);
    // An account complete enough to create with (sender and all), whose pickup service the rules pick.
    const account = await aCarrierAAccount(app.orm, store.storeId);
    await aRule(app.orm, store.storeId, { priority: 1, carrierAccountId: account.id, serviceCode: 'a_pickup' });
    const order = await aPlatformOrder(store.domain);
    const dryRun = () =>
      app.request('POST', '/v1/labels', {
        headers: store.auth,
        body: { order_id: order.id, parcels: [{ weight_grams: 1000 }], dry_run: true },
      });
    const before = await dryRun();
    expectError(before, 422, 'label_validation_failed', expect.objectContaining({ retry: 'after_fix' }));
    expect(before.body.error.details.issues).toContainEqual(expect.objectContaining({ code: 'pickup_point_required' }));

    const point = networkPoints('carrier_a', PRAHA, (p) => p.kind === 'pickup_point')[0]!;
    expect((await put(order.id, store.auth, { carrier: 'carrier_a', pickup_point_id: point.id })).status).toBe(200);
    const after = await dryRun();
    expect([after.status, after.body.error ?? null]).toEqual([200, null]);
    expect(after.body).toMatchObject({
      status: 'validated',
      would: 'create',
      resolved: { carrier_account_id: account.id, service_code: 'a_pickup' },
    });
  });

  it('changes to a point of a custom provider', async () => {
    const store = await pickupStore(['carrier_a']);
    const provider = await aCustomProvider(app.orm, app.config, store.storeId);
    const order = await aPlatformOrder(store.domain, {
      pickupPoint: { id: '1001', carrier_code: 'carrier_a', name: 'Old point', country: 'CZ' },
    });
    const res = await put(order.id, store.auth, { carrier: provider.network, pickup_point_id: 'shop-praha-1' });
    expect(res.status).toBe(200);
    expect(res.body.pickup_point).toMatchObject({
      id: 'shop-praha-1',
      carrier: { code: provider.network, name: 'Our shops' },
      name: 'Our shop Národní',
    });
    expect(res.text).not.toContain(provider.secret);
  });

  it('records the customer ID a point for registered recipients needs, and never shows it', async () => {
    const store = await pickupStore(['carrier_d']);
    const order = await aPlatformOrder(store.domain);
    const locker = networkPoints('carrier_d', PRAHA, (p) => p.requires_customer_id)[0]!;
    expectError(
      await put(order.id, store.auth, { carrier: 'carrier_d', pickup_point_id: locker.id }),
      422,
      'pickup_point_not_available',
      expect.objectContaining({
        reason: 'requires_customer_id',
        carriers: ['carrier_d'],
        retry: 'after_fix',
      }),
    );
    const res = await put(order.id, store.auth, {
      carrier: 'carrier_d',
      pickup_point_id: locker.id,
      customer_id: 'PN-77412093',
    });
    expect(res.status).toBe(200);
    expect(res.body.pickup_point).toMatchObject({ id: locker.id, customer_id_set: true });
    expect(res.text).not.toContain('PN-77412093');
    expect((await platform().getOrder(store.domain, order.id))!.deliveryMethod.pickupPoint!.customerId).toBe(
      'PN-77412093',
    );
  });

  describe('pickup_point_not_available', () => {
    it('carrier_not_offered: a network the delivery method does not allow', async () => {
      const store = await pickupStore(['carrier_a', 'carrier_d']);
      const order = await aPlatformOrder(store.domain);
      for (const carrier of ['carrier_c', 'carrier_b', 'custom:nope']) {
        // One second apart: the key may change pickup points twice a second (spec "Limits").
        app.clock.set(new Date(app.clock.now().getTime() + 1000));
        expectError(
          await put(order.id, store.auth, { carrier, pickup_point_id: networkPoints('carrier_c')[0]!.id }),
          422,
          'pickup_point_not_available',
          expect.objectContaining({ reason: 'carrier_not_offered', carriers: ['carrier_a', 'carrier_d'] }),
        );
      }
      app.clock.reset();
    });

    it('not_found: an ID the carrier does not know', async () => {
      const store = await pickupStore();
      const order = await aPlatformOrder(store.domain);
      for (const id of ['999999', 'CZ10001']) {
        expectError(
          await put(order.id, store.auth, { carrier: 'carrier_a', pickup_point_id: id }),
          422,
          'pickup_point_not_available',
          expect.objectContaining({
            reason: 'not_found',
            carriers: ['carrier_a', 'carrier_c', 'carrier_d'],
          }),
        );
      }
    });

    it('not_found_nearby: a real point that is not among the 50 nearest', async () => {
      const store = await pickupStore();
      const order = await aPlatformOrder(store.domain);
      const nearest = networkPoints('carrier_a');
      // The 51st nearest exists, but is not among the 50 nearest.
      const far = nearest[50]!;
      expectError(
        await put(order.id, store.auth, { carrier: 'carrier_a', pickup_point_id: far.id }),
        422,
        'pickup_point_not_available',
        expect.objectContaining({
          reason: 'not_found_nearby',
        }),
      );
      expect((await put(order.id, store.auth, { carrier: 'carrier_a', pickup_point_id: nearest[49]!.id })).status).toBe(
        200,
      );
    });

    it('not_found_nearby: a custom point not in the answer to a search near the address', async () => {
      const store = await pickupStore(['carrier_a']);
      const provider = await aCustomProvider(app.orm, app.config, store.storeId);
      const order = await aPlatformOrder(store.domain);
      for (const id of ['shop-bratislava-1', 'no-such-shop']) {
        expectError(
          await put(order.id, store.auth, { carrier: provider.network, pickup_point_id: id }),
          422,
          'pickup_point_not_available',
          expect.objectContaining({
            reason: 'not_found_nearby',
            carriers: ['carrier_a', provider.network],
          }),
        );
      }
    });

    it('a custom point among the 50 nearest to the customer, searched from the true location, not a rounded one', async () => {
      const store = await pickupStore(['carrier_a']);
      const provider = await aCustomProvider(app.orm, app.config, store.storeId);
      // Rounded to three decimals this location would be 50.076, 14.438: about 55 m north and 15 m east of it.
      const customer = { latitude: 50.07551, longitude: 14.43779 };
      const shop = (id: string, latitude: number, longitude: number) => ({
        id,
        latitude,
        longitude,
        name: `Shop ${id}`,
        street: 'Dlouhá 1',
        city: 'Praha',
        zip: '110 00',
        country: 'CZ',
      });
      // 50 shops about 60 m north of the rounded point (about 115 m from the customer), and one 50 m south of the
      // customer: the nearest to the customer, but the 51st from the rounded point.
      await setProviderPoints(provider.sandboxName, [
        ...Array.from({ length: 50 }, (_, i) => shop(`north-${i}`, 50.07654, 14.438 + i * 0.00001)),
        shop('south', 50.07506, 14.43779),
      ]);
      const order = await aPlatformOrder(store.domain, { location: customer });
      const listed = await app.request(
        'GET',
        `/v1/orders/${order.id}/pickup-points?carrier=${encodeURIComponent(provider.network)}&limit=50`,
        { headers: store.auth },
      );
      expect(listed.status).toBe(200);
      expect(listed.body.data[0]).toMatchObject({ id: 'south', distance_meters: 50 });
      const changed = await put(order.id, store.auth, { carrier: provider.network, pickup_point_id: 'south' });
      expect(changed.status).toBe(200);
      expect(changed.body.pickup_point).toMatchObject({ id: 'south', carrier: { code: provider.network } });
      // The provider was asked with the customer's location as it is.
      const asked = (await providerRequests(provider.sandboxName)).map((r) => [r.body.latitude, r.body.longitude]);
      expect(asked).toEqual([
        [customer.latitude, customer.longitude],
        [customer.latitude, customer.longitude],
      ]);
    });

    it('type_not_allowed: a locker where the service delivers to pickup points only', async () => {
      const store = await pickupStore(['carrier_c']);
      const order = await aPlatformOrder(store.domain);
      const locker = networkPoints('carrier_c', PRAHA, (p) => p.kind === 'locker')[0]!;
      expectError(
        await put(order.id, store.auth, { carrier: 'carrier_c', pickup_point_id: locker.id }),
        422,
        'pickup_point_not_available',
        expect.objectContaining({
          reason: 'type_not_allowed',
          carriers: ['carrier_c'],
        }),
      );
    });

    it('a network that cannot be asked answers 503 carrier_unavailable, never a guess', async () => {
      const store = await pickupStore(['carrier_a']);
      const provider = await aCustomProvider(app.orm, app.config, store.storeId);
      const order = await aPlatformOrder(store.domain);
      await scriptFaults(store.accounts.carrier_a!, [{ type: 'server_error', operation: 'pickup_points' }]);
      const carrierDown = await put(order.id, store.auth, { carrier: 'carrier_a', pickup_point_id: '1001' });
      expectError(carrierDown, 503, 'carrier_unavailable', expect.objectContaining({ reason: 'carrier_error' }));
      expect(carrierDown.headers.get('retry-after')).toBe('5');
      await scriptProviderFaults(provider.sandboxName, [{ type: 'server_error', times: 2 }]);
      const providerDown = await put(order.id, store.auth, {
        carrier: provider.network,
        pickup_point_id: 'shop-praha-1',
      });
      expectError(providerDown, 503, 'carrier_unavailable', expect.objectContaining({ reason: 'carrier_error' }));
      expect(providerDown.text).not.toContain('Scripted');
    });
  });

  describe('order refusals', () => {
    it('label_exists (order_has_label) with label_ids', async () => {
      const store = await pickupStore();
      const order = await aPlatformOrder(store.domain);
      const failed = await aLabel(app.orm, store.storeId, {
        orderId: order.id,
        status: 'failed',
        failureReason: 'not_finalized',
      });
      const ready = await aLabel(app.orm, store.storeId, { orderId: order.id });
      const res = await put(order.id, store.auth, { carrier: 'carrier_a', pickup_point_id: '1001' });
      expectError(
        res,
        409,
        'label_exists',
        expect.objectContaining({ reason: 'order_has_label', label_ids: [ready.id], retry: 'no' }),
      );
      expect(res.body.error.details.label_ids).not.toContain(failed.id);
    });

    it('creation_in_progress while an export holds a fulfillment order, then succeeds once released', async () => {
      const store = await pickupStore();
      const order = await aPlatformOrder(store.domain, {
        fulfillmentOrders: [{ id: aPlatformId() }, { id: aPlatformId() }],
      });
      const held = order.fulfillmentOrderIds[1]!;
      await control('POST', `/_control/stores/${store.domain}/fulfillment-orders/${held}/hold`, { reason: 'export' });
      const res = await put(order.id, store.auth, { carrier: 'carrier_a', pickup_point_id: '1001' });
      expectError(
        res,
        409,
        'creation_in_progress',
        expect.objectContaining({
          held_by: EXPORT_HOLDER,
          label_creation_id: null,
          retry: 'later',
          next_action: 'retry_later',
        }),
      );
      expect(res.headers.get('retry-after')).toBe('5');
      await control('POST', `/_control/stores/${store.domain}/fulfillment-orders/${held}/release`);
      expect((await put(order.id, store.auth, { carrier: 'carrier_a', pickup_point_id: '1001' })).status).toBe(200);
    });

    it('creation_in_progress while a label creation holds a fulfillment order; a dead holder does not count', async () => {
      const store = await pickupStore();
      const order = await aPlatformOrder(store.domain);
      const foGid = `gid://shopify/FulfillmentOrder/${order.fulfillmentOrderIds[0]}`;
      const holder = await aCreationRecord(app.orm, {
        storeId: store.storeId,
        orderGid: order.gid,
        fulfillmentOrderGids: [foGid],
        status: 'processing',
      });
      const em = app.orm.em.fork();
      await em.execute(
        'insert into fulfillment_order_locks (store_id, fulfillment_order_gid, label_creation_id, workflow_id) values (?, ?, ?, ?)',
        [store.storeId, foGid, holder, `label-creation/${store.storeId}/held`],
      );
      const res = await put(order.id, store.auth, { carrier: 'carrier_a', pickup_point_id: '1001' });
      expectError(res, 409, 'creation_in_progress', {
        held_by: 'creation',
        label_creation_id: holder,
        retry: 'later',
        next_action: 'retry_later',
      });
      expect(res.headers.get('retry-after')).toBe('5');

      // The holder stopped moving (its worker and workflow are gone): its lock is stale and the change goes through.
      await em.execute(`update label_creations set updated_at = now() - interval '20 minutes' where id = ?`, [holder]);
      expect((await put(order.id, store.auth, { carrier: 'carrier_a', pickup_point_id: '1001' })).status).toBe(200);
    });

    it.each([
      ['no_pickup_point_method', { deliveryType: 'shipping' as const }],
      ['order_fulfilled', { fulfillmentOrders: [{ id: aPlatformId(), status: 'closed' }] }],
      ['order_cancelled', { extra: { cancelled_at: isoSeconds(Date.now() - DAY) } }],
    ])('order_not_eligible (%s)', async (reason, options) => {
      const store = await pickupStore();
      const order = await aPlatformOrder(store.domain, options);
      expectError(
        await put(order.id, store.auth, { carrier: 'carrier_a', pickup_point_id: '1001' }),
        422,
        'order_not_eligible',
        expect.objectContaining({
          reason,
          order_id: order.gid,
          retry: 'after_fix',
        }),
      );
    });

    it('checks eligibility before labels, and labels before who holds the order', async () => {
      const store = await pickupStore();
      const order = await aPlatformOrder(store.domain, { deliveryType: 'shipping' });
      await aLabel(app.orm, store.storeId, { orderId: order.id });
      expect((await put(order.id, store.auth, { carrier: 'carrier_a', pickup_point_id: '1001' })).body.error.code).toBe(
        'order_not_eligible',
      );
      const held = await aPlatformOrder(store.domain);
      await aLabel(app.orm, store.storeId, { orderId: held.id });
      await control(
        'POST',
        `/_control/stores/${store.domain}/fulfillment-orders/${held.fulfillmentOrderIds[0]}/hold`,
        {},
      );
      expect((await put(held.id, store.auth, { carrier: 'carrier_a', pickup_point_id: '1001' })).body.error.code).toBe(
        'label_exists',
      );
    });
  });

  describe('access and validation', () => {
    it('needs pickup_points:assign, and not write access (spec "Authentication" 6 names the write endpoints)', async () => {
      const store = await pickupStore();
      const order = await aPlatformOrder(store.domain);
      const em = app.orm.em.fork();
      const { secret } = await createApiKey(em, {
        storeId: store.storeId,
        name: 'read only',
        scopes: [],
        now: new Date(),
      });
      const readOnly = { authorization: `Bearer ${secret}` };
      expect((await app.request('GET', `/v1/orders/${order.id}`, { headers: readOnly })).status).toBe(200);
      expect((await app.request('GET', `/v1/orders/${order.id}/pickup-points`, { headers: readOnly })).status).toBe(
        200,
      );
      expectError(
        await put(order.id, readOnly, { carrier: 'carrier_a', pickup_point_id: '1001' }),
        403,
        'insufficient_scope',
        expect.objectContaining({
          required_scope: 'pickup_points:assign',
        }),
      );
      // The store's write switch gates `POST /labels` (dry runs too), mark printed and resolve, not this change.
      const noWrites = await pickupStore();
      await em.execute('update stores set write_access = false where id = ?', [noWrites.storeId]);
      const other = await aPlatformOrder(noWrites.domain);
      const point = networkPoints('carrier_a', PRAHA, (p) => p.kind === 'pickup_point')[0]!;
      const changed = await put(other.id, noWrites.auth, { carrier: 'carrier_a', pickup_point_id: point.id });
      expect(changed.status).toBe(200);
      expect(changed.body.pickup_point).toMatchObject({ id: point.id, carrier: { code: 'carrier_a' } });
      expectError(
        await app.request('POST', '/v1/labels', {
          headers: noWrites.auth,
          body: { order_id: other.id, dry_run: true },
        }),
        403,
        'write_access_required',
      );
      const openapi = await app.request('GET', '/v1/openapi.json');
      const responses = openapi.body.paths['/orders/{order_id}/pickup-point'].put.responses;
      expect(JSON.stringify(responses['403'])).not.toContain('write_access_required');
    });

    it.each([
      [{}, 'carrier'],
      [{ carrier: 'carrier_a' }, 'pickup_point_id'],
      [{ carrier: 'carrier_a', pickup_point_id: '' }, 'pickup_point_id'],
      [{ carrier: 'carrier_a', pickup_point_id: 1001 }, 'pickup_point_id'],
      [{ carrier: 'carrier_a', pickup_point_id: '1001', note: 'x' }, 'note'],
      [{ carrier: 'carrier_a', pickup_point_id: '1001', customer_id: '' }, 'customer_id'],
    ])('refuses %j with validation_error on %s', async (body, parameter) => {
      const store = await pickupStore();
      const order = await aPlatformOrder(store.domain);
      expectError(
        await put(order.id, store.auth, body),
        422,
        'validation_error',
        expect.objectContaining({ parameter }),
      );
    });
  });
});

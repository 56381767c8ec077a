import { anOrderOnPlatform, aRule } from '../helpers/creation';
import { expectError } from '../helpers/errors';
import { aCarrierAccount } from '../helpers/labels';
import { PRAHA } from '../helpers/pickup';
import { ledger, scriptFaults } from '../helpers/sandbox';
import { aStoreWithKey } from '../helpers/stores';
import { startTestApp, type TestApp } from '../helpers/test-app';

// A pickup point set through the API is one the label creation and the carrier take, at every carrier with a
// network of its own: each network's IDs are in that carrier's format (decision 0201).
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => app.close());

const PICKUP_SERVICES = { carrier_a: 'a_pickup', carrier_c: 'c_pickup', carrier_d: 'd_pickup' } as const;
type NetworkCarrier = keyof typeof PICKUP_SERVICES;

/** A store whose one account of `carrier` delivers to pickup points (the rules pick that service). */
async function aPickupPointShop(carrier: NetworkCarrier) {
  const shop = await aStoreWithKey(app.orm);
  const service = PICKUP_SERVICES[carrier];
  const account = await aCarrierAccount(app.orm, shop.storeId, {
    carrierCode: carrier,
    services: [{ code: service, name: 'Pickup point', codSupported: true, pickupPointRequired: true }],
    sender: { name: 'Shop s.r.o.', countryCode: 'CZ', iban: 'CZ6508000000192000145399' },
  });
  await aRule(app.orm, shop.storeId, { priority: 1, carrierAccountId: account.id, serviceCode: service });
  return { shop, account, service };
}

/** An order to a pickup point, geocoded in Praha, with a phone (carrier C needs one) and no point set yet. */
const aPickupOrder = (domain: string) =>
  anOrderOnPlatform(domain, {
    delivery_method: { type: 'pickup', title: 'Pickup point', pickup_point: null },
    shipping_address: {
      name: 'Jana Nováková',
      street: 'Dlouhá 12',
      city: 'Praha',
      postcode: '110 00',
      country: 'CZ',
      ...PRAHA,
    },
  });

describe('a pickup point from GET /orders/{id}/pickup-points, set by PUT, gets a label', () => {
  it.each<[NetworkCarrier, RegExp]>([
    ['carrier_a', /^\d{1,10}$/],
    ['carrier_c', /^CZ\d{5}$/],
    ['carrier_d', /^KM\d{8}$/],
  ])('%s (IDs like %s)', async (carrier, idFormat) => {
    const { shop, account, service } = await aPickupPointShop(carrier);
    const order = await aPickupOrder(shop.domain);

    const listed = await app.request('GET', `/v1/orders/${order.orderId}/pickup-points?carrier=${carrier}`, {
      headers: shop.auth,
    });
    expect(listed.status).toBe(200);
    const point = listed.body.data.find((p: { requires_customer_id: boolean }) => !p.requires_customer_id);
    expect(point).toMatchObject({ carrier: { code: carrier, account_id: account.id }, country: 'CZ' });
    expect(point.id).toMatch(idFormat);

    const set = await app.request('PUT', `/v1/orders/${order.orderId}/pickup-point`, {
      headers: shop.auth,
      body: { carrier, pickup_point_id: point.id },
    });
    expect(set.status).toBe(200);
    expect(set.body.pickup_point).toMatchObject({ id: point.id, carrier: { code: carrier } });

    const created = await app.request('POST', '/v1/labels', {
      headers: { ...shop.auth, 'Idempotency-Key': `pickup-${order.orderId}`, Prefer: 'wait=30' },
      body: { order_id: order.orderId },
    });
    expect([created.status, created.body.error ?? null]).toEqual([201, null]);
    expect(created.body).toMatchObject({
      status: 'succeeded',
      created: true,
      resolved: { carrier_account_id: account.id, service_code: service },
    });
    expect(created.body.labels).toEqual([
      expect.objectContaining({ status: 'ready', carrier: expect.objectContaining({ code: carrier }) }),
    ]);
    // The carrier received the point that was set.
    expect(await ledger(account.id)).toEqual([
      expect.objectContaining({
        reference: created.body.id,
        service_code: service,
        pickup_point: { id: point.id, country: 'CZ' },
      }),
    ]);
  });
});

describe('PUT /orders/{id}/pickup-point with an ID outside the network’s format', () => {
  it.each<[NetworkCarrier, string[]]>([
    ['carrier_a', ['CZ10001', 'KM10000001']],
    ['carrier_c', ['1001', 'KM10000001']],
    ['carrier_d', ['1001', 'CZ10001']],
  ])('%s answers not_found for %s without asking the carrier', async (carrier, ids) => {
    const { shop, account } = await aPickupPointShop(carrier);
    const order = await aPickupOrder(shop.domain);
    // Were the carrier asked, this outage would answer 503 carrier_unavailable.
    await scriptFaults(account.id, [{ type: 'server_error', operation: 'pickup_points', times: ids.length }]);
    for (const id of ids) {
      app.clock.set(new Date(app.clock.now().getTime() + 1000)); // the key may set points twice a second
      expectError(
        await app.request('PUT', `/v1/orders/${order.orderId}/pickup-point`, {
          headers: shop.auth,
          body: { carrier, pickup_point_id: id },
        }),
        422,
        'pickup_point_not_available',
        { reason: 'not_found', carriers: [carrier], retry: 'after_fix', next_action: 'fix_and_retry' },
      );
    }
    app.clock.reset();
  });
});

import { randomToken } from '../../src/ids';
import { PlatformRequestError, PlatformUnavailableError, type StorePlatformPort } from '../../src/platform/port';
import { control, FAULT_HOLD_MS } from './sandbox';
import { DAY, isoSeconds } from './time';

/**
 * The store-platform port's contract: what every adapter does for the service, checked against the orders the sandbox
 * platform's control API holds (the fake Shopify serves the same). `connect` gives the adapter for a new store domain,
 * with a short time box (`timeoutMs`) for the timeout case.
 */
export interface PortUnderTest {
  port: StorePlatformPort;
  /** The same adapter with a time box well below FAULT_HOLD_MS. */
  impatient: StorePlatformPort;
  /** How an admin or automation export's hold reads: the sandbox knows it; Shopify tells only that it is not ours. */
  exportHoldsShowAs: 'export' | 'other';
}

const czk = (amount: string) => ({ amount, currency: 'CZK' });
export const aShopDomain = () => `test-${randomToken(10).toLowerCase()}.myshopify.com`;

function anOrder(overrides: Record<string, unknown> = {}) {
  return {
    id: 1001,
    name: '#1001',
    currency: 'CZK',
    total_price: czk('1290.00'),
    subtotal_price: czk('1200.00'),
    total_outstanding: czk('1290.00'),
    payment_gateways: ['Cash on Delivery (COD)'],
    metafields: { 'service.cod_value': '1290.00', 'service.currency': 'CZK', 'custom.packet_value': '1200' },
    shipping_address: {
      name: 'Jana Nováková',
      company: 'Firma s.r.o.',
      street: 'Dlouhá 12',
      city: 'Praha',
      postcode: '110 00',
      country: 'CZ',
      latitude: 50.09,
      longitude: 14.42,
    },
    phone: '+420600111222',
    email: 'jana@example.com',
    tags: ['vip'],
    delivery_method: {
      type: 'pickup',
      title: 'Pickup point',
      pickup_point: { id: '4410', carrier_code: 'carrier_a', name: 'Trafika', country: 'CZ' },
    },
    fulfillment_orders: [
      {
        id: 501,
        assigned_location: { id: 1, name: 'Praha' },
        line_items: [{ id: 1, sku: 'MUG', quantity: 2, total_after_discounts: czk('1200.00'), weight_grams: 350 }],
      },
      { id: 502, assigned_location: { id: 2, name: 'Brno' }, status: 'in_progress' },
    ],
    ...overrides,
  };
}

async function seed(domain: string, order: Record<string, unknown>): Promise<void> {
  const res = await control('PUT', `/_control/stores/${domain}/orders`, order);
  if (res.status !== 200) throw new Error(`seeding failed: ${JSON.stringify(res.body)}`);
}

const refusal = async (promise: Promise<unknown>) => {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  return error;
};

export function describePlatformPortContract(name: string, connect: (domain: string) => Promise<PortUnderTest>): void {
  describe(`store-platform port contract: ${name}`, () => {
    let domain: string;
    let port: StorePlatformPort;
    let impatient: StorePlatformPort;
    let exportHoldsShowAs: PortUnderTest['exportHoldsShowAs'];
    beforeEach(async () => {
      domain = aShopDomain();
      ({ port, impatient, exportHoldsShowAs } = await connect(domain));
    });

    it('reads an order by numeric ID or GID with every field the service uses; an unknown one is null', async () => {
      await seed(domain, anOrder());
      const byId = await port.getOrder(domain, '1001');
      expect(await port.getOrder(domain, 'gid://shopify/Order/1001')).toEqual(byId);
      expect(byId).toEqual({
        id: 'gid://shopify/Order/1001',
        legacyId: '1001',
        name: '#1001',
        currency: 'CZK',
        totalPrice: czk('1290.00'),
        subtotalPrice: czk('1200.00'),
        totalOutstanding: czk('1290.00'),
        paymentGateways: ['Cash on Delivery (COD)'],
        metafields: { 'service.cod_value': '1290.00', 'service.currency': 'CZK', 'custom.packet_value': '1200' },
        shippingAddress: {
          name: 'Jana Nováková',
          company: 'Firma s.r.o.',
          street: 'Dlouhá 12',
          city: 'Praha',
          postcode: '110 00',
          country: 'CZ',
          latitude: 50.09,
          longitude: 14.42,
        },
        phone: '+420600111222',
        email: 'jana@example.com',
        deliveryMethod: {
          type: 'pickup',
          title: 'Pickup point',
          pickupPoint: { id: '4410', carrierCode: 'carrier_a', name: 'Trafika', country: 'CZ', customerId: null },
        },
        tags: ['vip'],
        cancelledAt: null,
      });
      expect(await port.getOrder(domain, '999')).toBeNull();
    });

    it('reads a plain shipping order without address, pickup point or metafields', async () => {
      const cancelledAt = isoSeconds(Date.now() - DAY);
      await seed(
        domain,
        anOrder({
          metafields: {},
          shipping_address: null,
          delivery_method: { type: 'shipping', title: null, pickup_point: null },
          cancelled_at: cancelledAt,
        }),
      );
      expect(await port.getOrder(domain, '1001')).toMatchObject({
        metafields: {},
        shippingAddress: null,
        deliveryMethod: { type: 'shipping', title: null, pickupPoint: null },
        cancelledAt: expect.stringMatching(new RegExp(`^${cancelledAt.slice(0, 19)}`)),
      });
    });

    it('finds orders by exact name, `#` optional and any case; several are all returned', async () => {
      await seed(domain, anOrder({ id: 2001, name: '#A-1001' }));
      await seed(domain, anOrder({ id: 2002, name: '#a-1001', fulfillment_orders: [] }));
      await seed(domain, anOrder({ id: 2003, name: '#A-10010', fulfillment_orders: [] }));
      expect((await port.findOrdersByName(domain, 'a-1001')).map((o) => o.legacyId).sort()).toEqual(['2001', '2002']);
      expect((await port.findOrdersByName(domain, '#A-10010')).map((o) => o.legacyId)).toEqual(['2003']);
      expect(await port.findOrdersByName(domain, '#nope')).toEqual([]);
    });

    it('lists fulfillment orders with status, location, method, lines and holds; an unknown order has none', async () => {
      await seed(domain, anOrder());
      const fos = await port.listFulfillmentOrders(domain, 'gid://shopify/Order/1001');
      expect(fos).toEqual([
        expect.objectContaining({
          id: 'gid://shopify/FulfillmentOrder/501',
          legacyId: '501',
          orderId: 'gid://shopify/Order/1001',
          status: 'open',
          assignedLocation: { id: expect.any(String), name: 'Praha', fulfillmentService: null },
          deliveryMethodType: 'shipping',
          lineItems: [
            { id: expect.any(String), sku: 'MUG', quantity: 2, totalAfterDiscounts: czk('1200.00'), weightGrams: 350 },
          ],
          holds: [],
        }),
        expect.objectContaining({ legacyId: '502', status: 'in_progress', lineItems: [] }),
      ]);
      expect(await port.listFulfillmentOrders(domain, '999')).toEqual([]);
    });

    it('pages through many fulfillment orders and many lines', async () => {
      const line = (i: number) => ({ id: i, quantity: 1, total_after_discounts: czk('10.00'), weight_grams: i });
      await seed(
        domain,
        anOrder({
          fulfillment_orders: Array.from({ length: 12 }, (_, i) => ({
            id: 600 + i,
            line_items: Array.from({ length: i === 0 ? 45 : 1 }, (_, j) => line(j + 1)),
          })),
        }),
      );
      const fos = await port.listFulfillmentOrders(domain, '1001');
      expect(fos.map((f) => f.legacyId)).toEqual(Array.from({ length: 12 }, (_, i) => String(600 + i)));
      expect(fos[0]!.lineItems.map((l) => l.weightGrams)).toEqual(Array.from({ length: 45 }, (_, j) => j + 1));
      // Read with the order, the same pages come after the first.
      const withOrder = await port.getOrderWithFulfillmentOrders(domain, '1001');
      expect(withOrder!.fulfillmentOrders).toEqual(fos);
    });

    it('reads an order with its fulfillment orders in one read: what the two reads answer; an unknown one is null', async () => {
      await seed(domain, anOrder());
      const both = await port.getOrderWithFulfillmentOrders(domain, 'gid://shopify/Order/1001');
      expect(both).toEqual({
        order: await port.getOrder(domain, '1001'),
        fulfillmentOrders: await port.listFulfillmentOrders(domain, '1001'),
      });
      expect(both!.fulfillmentOrders.map((f) => f.legacyId)).toEqual(['501', '502']);
      expect(await port.getOrderWithFulfillmentOrders(domain, '1001')).toEqual(both);
      expect(await port.getOrderWithFulfillmentOrders(domain, '999')).toBeNull();
    });

    it('fulfils with tracking: the fulfillment orders close; a closed, held or unknown one is refused', async () => {
      await seed(domain, anOrder());
      const fulfillment = await port.fulfill(domain, {
        fulfillmentOrderIds: ['501'],
        trackingNumber: 'Z123',
        trackingUrl: 'https://track.example/Z123',
        carrierName: 'Carrier A',
        notifyCustomer: true,
      });
      expect(fulfillment).toMatchObject({
        id: expect.stringMatching(/^gid:\/\/shopify\/Fulfillment\//),
        fulfillmentOrderIds: ['gid://shopify/FulfillmentOrder/501'],
        trackingNumber: 'Z123',
        trackingUrl: 'https://track.example/Z123',
        notifyCustomer: true,
      });
      const recorded = (await control('GET', `/_control/stores/${domain}/fulfillments`)).body.fulfillments;
      expect(recorded).toEqual([
        expect.objectContaining({ tracking_number: 'Z123', carrier_name: 'Carrier A', notify_customer: true }),
      ]);
      expect((await port.listFulfillmentOrders(domain, '1001'))[0]!.status).toBe('closed');
      const request = { trackingNumber: null, trackingUrl: null, carrierName: null, notifyCustomer: false };
      const again = await refusal(port.fulfill(domain, { ...request, fulfillmentOrderIds: ['501'] }));
      expect(again).toBeInstanceOf(PlatformRequestError);
      expect((again as PlatformRequestError).code).toBe('not_open');
      await control('POST', `/_control/stores/${domain}/fulfillment-orders/502/hold`, { reason: 'export' });
      const held = await refusal(port.fulfill(domain, { ...request, fulfillmentOrderIds: ['502'] }));
      expect((held as PlatformRequestError).code).toBe('on_hold');
      const unknown = await refusal(port.fulfill(domain, { ...request, fulfillmentOrderIds: ['77'] }));
      expect((unknown as PlatformRequestError).code).toBe('not_found');
    });

    it('adds tags once and answers the order’s tags; an unknown order is refused', async () => {
      await seed(domain, anOrder());
      expect(await port.addOrderTags(domain, '1001', ['label-printed', 'vip'])).toEqual(['vip', 'label-printed']);
      expect(await port.addOrderTags(domain, 'gid://shopify/Order/1001', ['label-printed'])).toEqual([
        'vip',
        'label-printed',
      ]);
      expect(await refusal(port.addOrderTags(domain, '999', ['x']))).toBeInstanceOf(PlatformRequestError);
    });

    it('sets the order’s pickup point, which the next read returns', async () => {
      await seed(domain, anOrder({ delivery_method: { type: 'pickup', title: 'Pickup point', pickup_point: null } }));
      const point = { id: 'CZ10001', carrierCode: 'carrier_c', name: 'Box', country: 'CZ', customerId: 'R-7' };
      const order = await port.setOrderPickupPoint(domain, '1001', point);
      expect(order.deliveryMethod.pickupPoint).toEqual(point);
      expect((await port.getOrder(domain, '1001'))!.deliveryMethod).toEqual({
        type: 'pickup',
        title: 'Pickup point',
        pickupPoint: point,
      });
      expect(await refusal(port.setOrderPickupPoint(domain, '999', point))).toBeInstanceOf(PlatformRequestError);
    });

    it('holds fulfillment orders by handle, idempotently; closed and unknown ones are reported', async () => {
      await seed(domain, anOrder({ fulfillment_orders: [{ id: 501 }, { id: 502, status: 'closed' }] }));
      const hold = { reason: 'label creation lcr_1 unresolved', handle: 'lcr_1' };
      expect(await port.holdFulfillmentOrders(domain, ['501', '502', '77'], hold)).toEqual([
        { fulfillmentOrderId: '501', outcome: 'done' },
        { fulfillmentOrderId: '502', outcome: 'closed' },
        { fulfillmentOrderId: '77', outcome: 'not_found' },
      ]);
      expect(await port.holdFulfillmentOrders(domain, ['501'], hold)).toEqual([
        { fulfillmentOrderId: '501', outcome: 'done' },
      ]);
      await port.holdFulfillmentOrders(domain, ['501'], { reason: 'another creation', handle: 'lcr_2' });
      const holds = (await port.listFulfillmentOrders(domain, '1001'))[0]!.holds;
      expect(holds).toEqual([
        { heldBy: 'app', reason: hold.reason, handle: 'lcr_1' },
        { heldBy: 'app', reason: 'another creation', handle: 'lcr_2' },
      ]);
      const refused = await refusal(
        port.fulfill(domain, {
          fulfillmentOrderIds: ['501'],
          trackingNumber: null,
          trackingUrl: null,
          carrierName: null,
          notifyCustomer: false,
        }),
      );
      expect((refused as PlatformRequestError).code).toBe('on_hold');
    });

    it('releases only its handle’s hold; a hold already gone is done, an unknown order not_found', async () => {
      await seed(domain, anOrder({ fulfillment_orders: [{ id: 501 }] }));
      await port.holdFulfillmentOrders(domain, ['501'], { reason: 'one', handle: 'lcr_1' });
      await port.holdFulfillmentOrders(domain, ['501'], { reason: 'two', handle: 'lcr_2' });
      expect(await port.releaseFulfillmentOrderHolds(domain, ['501', '77'], 'lcr_1')).toEqual([
        { fulfillmentOrderId: '501', outcome: 'done' },
        { fulfillmentOrderId: '77', outcome: 'not_found' },
      ]);
      expect(await port.releaseFulfillmentOrderHolds(domain, ['501'], 'lcr_1')).toEqual([
        { fulfillmentOrderId: '501', outcome: 'done' },
      ]);
      expect((await port.listFulfillmentOrders(domain, '1001'))[0]!.holds).toEqual([
        { heldBy: 'app', reason: 'two', handle: 'lcr_2' },
      ]);
      // An export's hold shows as one and stays.
      await port.releaseFulfillmentOrderHolds(domain, ['501'], 'lcr_2');
      await control('POST', `/_control/stores/${domain}/fulfillment-orders/501/hold`, { reason: 'automation export' });
      await port.releaseFulfillmentOrderHolds(domain, ['501'], 'lcr_2');
      expect((await port.listFulfillmentOrders(domain, '1001'))[0]!.holds).toEqual([
        { heldBy: exportHoldsShowAs, reason: 'automation export' },
      ]);
    });

    it('shows a held fulfillment order on_hold, and open again once every hold is released; the merchant’s hold is another’s', async () => {
      await seed(domain, anOrder());
      const status = async () => (await port.listFulfillmentOrders(domain, '1001'))[0]!.status;
      await port.holdFulfillmentOrders(domain, ['501'], { reason: 'unresolved', handle: 'lcr_1' });
      expect(await status()).toBe('on_hold');
      await control('POST', `/_control/stores/${domain}/fulfillment-orders/501/hold`, {
        reason: 'check',
        by: 'merchant',
      });
      await port.releaseFulfillmentOrderHolds(domain, ['501'], 'lcr_1');
      // Another's hold keeps it on hold.
      const [held] = await port.listFulfillmentOrders(domain, '1001');
      expect(held).toMatchObject({ status: 'on_hold', holds: [{ heldBy: 'other', reason: 'check' }] });
      await control('POST', `/_control/stores/${domain}/fulfillment-orders/501/release`);
      expect(await status()).toBe('open');
    });

    it('counts what still ships: a partly fulfilled line’s remaining units, their value and weight', async () => {
      await seed(
        domain,
        anOrder({
          fulfillment_orders: [
            {
              id: 501,
              status: 'in_progress',
              line_items: [
                {
                  id: 1,
                  sku: 'MUG',
                  quantity: 1,
                  fulfilled_quantity: 2,
                  total_after_discounts: czk('400.00'),
                  weight_grams: 350,
                },
              ],
            },
          ],
        }),
      );
      const [fo] = await port.listFulfillmentOrders(domain, '1001');
      expect(fo!.lineItems).toEqual([
        { id: expect.any(String), sku: 'MUG', quantity: 1, totalAfterDiscounts: czk('400.00'), weightGrams: 350 },
      ]);
    });

    it('names the fulfillment service of a fulfillment order assigned to its location', async () => {
      await seed(
        domain,
        anOrder({
          fulfillment_orders: [
            { id: 501, assigned_location: { id: 1, name: 'Praha' } },
            { id: 503, assigned_location: { id: 9, name: 'Warehouse Co', fulfillment_service: 'Warehouse Co' } },
          ],
        }),
      );
      const fos = await port.listFulfillmentOrders(domain, '1001');
      expect(fos.map((fo) => [fo.legacyId, fo.assignedLocation.fulfillmentService])).toEqual([
        ['501', null],
        ['503', 'Warehouse Co'],
      ]);
    });

    it.each([
      ['throttled', true],
      ['unavailable', false],
      ['unauthorized', false],
    ] as const)('is unavailable when the platform answers %s (throttled: %s)', async (type, throttled) => {
      await seed(domain, anOrder());
      await control('POST', `/_control/stores/${domain}/faults`, { faults: [{ type }] });
      const error = await refusal(port.getOrder(domain, '1001'));
      expect(error).toBeInstanceOf(PlatformUnavailableError);
      expect((error as PlatformUnavailableError).throttled).toBe(throttled);
      if (throttled) expect((error as PlatformUnavailableError).retryAfterSeconds).toBeGreaterThanOrEqual(1);
      expect(await port.getOrder(domain, '1001')).not.toBeNull();
    });

    it('is unavailable when the platform does not answer in time', async () => {
      await seed(domain, anOrder());
      await control('POST', `/_control/stores/${domain}/faults`, {
        faults: [{ type: 'slow', delay_ms: FAULT_HOLD_MS }],
      });
      const error = await refusal(impatient.listFulfillmentOrders(domain, '1001'));
      expect(error).toBeInstanceOf(PlatformUnavailableError);
      expect((error as PlatformUnavailableError).throttled).toBe(false);
    });
  });
}

import { randomToken } from '../../src/ids';
import { PlatformRequestError, PlatformUnavailableError } from '../../src/platform/port';
import { SandboxPlatformAdapter } from '../../src/platform/sandbox-adapter';
import { control, sandboxUrl } from '../helpers/sandbox';

const aDomain = () => `test-${randomToken(10).toLowerCase()}.myshopify.com`;
const czk = (amount: string) => ({ amount, currency: 'CZK' });

function anOrder(overrides: Record<string, unknown> = {}) {
  return {
    id: 1001,
    name: '#1001',
    currency: 'CZK',
    total_price: czk('1290.00'),
    total_outstanding: czk('1290.00'),
    payment_gateways: ['Cash on Delivery (COD)'],
    metafields: { 'service.cod_value': '1290.00', 'service.currency': 'CZK', 'custom.packet_value': '1200' },
    shipping_address: { name: 'Jana Nováková', street: 'Dlouhá 12', city: 'Praha', postcode: '110 00', country: 'CZ' },
    phone: '+420600111222',
    email: 'jana@example.com',
    delivery_method: {
      type: 'pickup',
      title: 'Pickup point',
      pickup_point: { id: '4410', carrier_code: 'carrier_a', country: 'CZ' },
    },
    fulfillment_orders: [
      {
        id: 501,
        assigned_location: { id: 1, name: 'Praha' },
        line_items: [{ id: 1, quantity: 2, total_after_discounts: czk('1200.00') }],
      },
      { id: 502, assigned_location: { id: 2, name: 'Brno' }, status: 'in_progress' },
    ],
    ...overrides,
  };
}

describe('store-platform sandbox', () => {
  const platform = new SandboxPlatformAdapter({ baseUrl: sandboxUrl(), timeoutMs: 300 });

  it('reads an order by numeric ID or GID, with metafields, COD gateway and pickup point', async () => {
    const domain = aDomain();
    expect((await control('PUT', `/_control/stores/${domain}/orders`, anOrder())).status).toBe(200);
    const byId = await platform.getOrder(domain, '1001');
    const byGid = await platform.getOrder(domain, 'gid://shopify/Order/1001');
    expect(byGid).toEqual(byId);
    expect(byId).toMatchObject({
      id: 'gid://shopify/Order/1001',
      legacyId: '1001',
      paymentGateways: ['Cash on Delivery (COD)'],
      metafields: { 'service.cod_value': '1290.00' },
      deliveryMethod: { type: 'pickup', pickupPoint: { id: '4410', carrierCode: 'carrier_a' } },
      cancelledAt: null,
    });
    expect(await platform.getOrder(domain, '999')).toBeNull();
    expect(await platform.getOrder(aDomain(), '1001')).toBeNull();
  });

  it('finds orders by exact name with `#` optional and any case, and shows several matches', async () => {
    const domain = aDomain();
    await control('PUT', `/_control/stores/${domain}/orders`, anOrder({ id: 1, name: '#CZ1001' }));
    await control('PUT', `/_control/stores/${domain}/orders`, anOrder({ id: 2, name: '#cz1001' }));
    await control('PUT', `/_control/stores/${domain}/orders`, anOrder({ id: 3, name: '#CZ10011' }));
    expect((await platform.findOrdersByName(domain, 'cz1001')).map((o) => o.legacyId).sort()).toEqual(['1', '2']);
    expect((await platform.findOrdersByName(domain, '#CZ10011')).map((o) => o.legacyId)).toEqual(['3']);
    expect(await platform.findOrdersByName(domain, 'CZ100')).toEqual([]);
  });

  it('lists fulfillment orders, fulfils with notification and adds tags once', async () => {
    const domain = aDomain();
    await control('PUT', `/_control/stores/${domain}/orders`, anOrder());
    const fos = await platform.listFulfillmentOrders(domain, 'gid://shopify/Order/1001');
    expect(fos.map((f) => [f.legacyId, f.status, f.assignedLocation.name])).toEqual([
      ['501', 'open', 'Praha'],
      ['502', 'in_progress', 'Brno'],
    ]);
    expect(fos[0]!.lineItems[0]!.totalAfterDiscounts).toEqual(czk('1200.00'));
    const fulfillment = await platform.fulfill(domain, {
      fulfillmentOrderIds: ['gid://shopify/FulfillmentOrder/501'],
      trackingNumber: 'Z1',
      trackingUrl: null,
      carrierName: 'Carrier A',
      notifyCustomer: true,
    });
    expect(fulfillment).toMatchObject({
      fulfillmentOrderIds: ['gid://shopify/FulfillmentOrder/501'],
      notifyCustomer: true,
    });
    expect((await platform.listFulfillmentOrders(domain, '1001'))[0]!.status).toBe('closed');
    await expect(
      platform.fulfill(domain, {
        fulfillmentOrderIds: ['501'],
        trackingNumber: null,
        trackingUrl: null,
        carrierName: null,
        notifyCustomer: false,
      }),
    ).rejects.toBeInstanceOf(PlatformRequestError);
    expect(await platform.addOrderTags(domain, '1001', ['label-printed'])).toEqual(['label-printed']);
    expect(await platform.addOrderTags(domain, '1001', ['label-printed', 'x'])).toEqual(['label-printed', 'x']);
  });

  it('an order edit replaces a fulfillment order; an export hold blocks fulfilment until released', async () => {
    const domain = aDomain();
    await control('PUT', `/_control/stores/${domain}/orders`, anOrder());
    const edit = await control('POST', `/_control/stores/${domain}/orders/1001/edits`, {
      replace: [{ fulfillment_order_id: '501', new: { id: 601 } }],
    });
    expect(edit.status).toBe(200);
    const fos = await platform.listFulfillmentOrders(domain, '1001');
    expect(fos.find((f) => f.legacyId === '501')).toMatchObject({
      status: 'closed',
      replacedBy: ['gid://shopify/FulfillmentOrder/601'],
    });
    expect(fos.find((f) => f.legacyId === '601')).toMatchObject({ status: 'open' });

    await control('POST', `/_control/stores/${domain}/fulfillment-orders/601/hold`, { reason: 'automation export' });
    expect((await platform.listFulfillmentOrders(domain, '1001')).find((f) => f.legacyId === '601')!.holds).toEqual([
      { heldBy: 'export', reason: 'automation export' },
    ]);
    await expect(
      platform.fulfill(domain, {
        fulfillmentOrderIds: ['601'],
        trackingNumber: null,
        trackingUrl: null,
        carrierName: null,
        notifyCustomer: false,
      }),
    ).rejects.toMatchObject({ code: 'on_hold' });
    await control('POST', `/_control/stores/${domain}/fulfillment-orders/601/release`);
    await expect(
      platform.fulfill(domain, {
        fulfillmentOrderIds: ['601'],
        trackingNumber: null,
        trackingUrl: null,
        carrierName: null,
        notifyCustomer: false,
      }),
    ).resolves.toMatchObject({ notifyCustomer: false });
  });

  it('throttled, unavailable and slow faults surface as PlatformUnavailableError, then the port recovers', async () => {
    const domain = aDomain();
    await control('PUT', `/_control/stores/${domain}/orders`, anOrder());
    await control('POST', `/_control/stores/${domain}/faults`, {
      faults: [{ type: 'throttled', retry_after_seconds: 3 }, { type: 'unavailable' }, { type: 'slow', delay_ms: 600 }],
    });
    await expect(platform.getOrder(domain, '1001')).rejects.toMatchObject({
      name: 'PlatformUnavailableError',
      throttled: true,
      retryAfterSeconds: 3,
    });
    await expect(platform.getOrder(domain, '1001')).rejects.toMatchObject({ throttled: false });
    const slow = await platform.getOrder(domain, '1001').catch((e: unknown) => e);
    expect(slow).toBeInstanceOf(PlatformUnavailableError);
    expect(await platform.getOrder(domain, '1001')).toMatchObject({ legacyId: '1001' });
  });

  it('refuses a malformed order and resets one store only', async () => {
    const domain = aDomain();
    const other = aDomain();
    expect((await control('PUT', `/_control/stores/${domain}/orders`, { id: 1 })).status).toBe(400);
    await control('PUT', `/_control/stores/${domain}/orders`, anOrder());
    await control('PUT', `/_control/stores/${other}/orders`, anOrder());
    await control('POST', `/_control/stores/${domain}/reset`);
    expect(await platform.getOrder(domain, '1001')).toBeNull();
    expect(await platform.getOrder(other, '1001')).not.toBeNull();
  });
});

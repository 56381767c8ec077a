import { PlatformAccessError, PlatformRequestError, PlatformUnavailableError } from '../../src/platform/port';
import { ShopifyQueryError } from '../../src/platform/shopify/graphql-client';
import { aShopDomain } from '../helpers/platform-port-contract';
import { control } from '../helpers/sandbox';
import { adminSchemaManifest } from '../../src/platform/shopify-fake/admin-schema';
import { CUSTOMER_PHONE_SCOPE, REQUIRED_SHOPIFY_SCOPES } from '../../src/platform/shopify/scopes';
import { anAccessToken, fakeShopifyRequests, shopifyAdapter } from '../helpers/shopify';

// What only the Shopify adapter has: access tokens, the cost bucket (THROTTLED with real cost extensions, 429), user
// errors of mutations and the schema the fake validates documents against. The port's shared contract is in
// platform-port-contract.test.ts.
const czk = (amount: string) => ({ amount, currency: 'CZK' });

async function aShopWithAnOrder() {
  const domain = aShopDomain();
  const token = await anAccessToken(domain);
  const res = await control('PUT', `/_control/stores/${domain}/orders`, {
    id: 1001,
    name: '#1001',
    total_price: czk('100.00'),
    fulfillment_orders: [{ id: 501, line_items: [{ id: 1, quantity: 3, total_after_discounts: czk('99.99') }] }],
  });
  expect(res.status).toBe(200);
  return { domain, token };
}

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (e: unknown) => e,
  );

const setBucket = (domain: string, currentlyAvailable: number) =>
  control('PUT', `/_control/shopify/${domain}/bucket`, {
    maximum_available: 2000,
    currently_available: currentlyAvailable,
    restore_rate: 100,
  });

describe('ShopifyPlatform on the fake Shopify', () => {
  it('sends the store’s token: a revoked or missing one is unavailable, a missing one without a request', async () => {
    const { domain, token } = await aShopWithAnOrder();
    expect(await shopifyAdapter(token).platform.getOrder(domain, '1001')).toMatchObject({ name: '#1001' });
    const wrong = await failure(shopifyAdapter('shpat_revoked_token_0000').platform.getOrder(domain, '1001'));
    expect(wrong).toBeInstanceOf(PlatformUnavailableError);
    expect((wrong as PlatformUnavailableError).throttled).toBe(false);
    const before = await fakeShopifyRequests(domain);
    const none = await failure(shopifyAdapter(null).platform.getOrder(domain, '1001'));
    expect(none).toBeInstanceOf(PlatformUnavailableError);
    expect(await fakeShopifyRequests(domain)).toBe(before);
  });

  it('is throttled when the bucket lacks the query’s cost, with a Retry-After from the restore rate', async () => {
    const { domain, token } = await aShopWithAnOrder();
    const { platform } = shopifyAdapter(token);
    await setBucket(domain, 10);
    const error = await failure(platform.listFulfillmentOrders(domain, '1001'));
    expect(error).toBeInstanceOf(PlatformUnavailableError);
    expect(error).toMatchObject({ what: 'fulfillment_orders', throttled: true });
    // The page of fulfillment orders is requested at several hundred points: seconds at 100 points a second.
    expect((error as PlatformUnavailableError).retryAfterSeconds).toBeGreaterThanOrEqual(3);
  });

  it('keeps a view of the store’s bucket: a call that cannot be afforded soon is refused without a request', async () => {
    const { domain, token } = await aShopWithAnOrder();
    const { platform } = shopifyAdapter(token);
    await platform.listFulfillmentOrders(domain, '1001');
    await setBucket(domain, 0);
    expect(await failure(platform.getOrder(domain, '1001'))).toMatchObject({ throttled: true });
    const sent = await fakeShopifyRequests(domain);
    // The bucket it was told is empty refills at 100 points a second: the fulfillment orders' page is seconds away.
    const error = await failure(platform.listFulfillmentOrders(domain, '1001'));
    expect(error).toMatchObject({ what: 'fulfillment_orders', throttled: true });
    expect(await fakeShopifyRequests(domain)).toBe(sent);
  });

  it('maps HTTP 429 to throttled with the answer’s Retry-After, 5xx to unavailable', async () => {
    const { domain, token } = await aShopWithAnOrder();
    const { platform } = shopifyAdapter(token);
    await control('POST', `/_control/shopify/${domain}/faults`, {
      faults: [{ type: 'http_429', retry_after_seconds: 7 }],
    });
    expect(await failure(platform.getOrder(domain, '1001'))).toMatchObject({
      throttled: true,
      retryAfterSeconds: 7,
    });
    await control('POST', `/_control/stores/${domain}/faults`, { faults: [{ type: 'unavailable' }] });
    expect(await failure(platform.getOrder(domain, '1001'))).toMatchObject({ throttled: false });
    expect(await platform.getOrder(domain, '1001')).not.toBeNull();
  });

  it('turns user errors of mutations into PlatformRequestError with stable codes, changing nothing', async () => {
    const { domain, token } = await aShopWithAnOrder();
    const { platform } = shopifyAdapter(token);
    await control('POST', `/_control/shopify/${domain}/faults`, {
      faults: [{ type: 'user_error', message: 'Tracking number is invalid' }],
    });
    const request = {
      fulfillmentOrderIds: ['501'],
      trackingNumber: 'Z1',
      trackingUrl: null,
      carrierName: 'Carrier A',
      notifyCustomer: false,
    };
    const refused = await failure(platform.fulfill(domain, request));
    expect(refused).toBeInstanceOf(PlatformRequestError);
    expect(refused).toMatchObject({ code: 'refused', message: 'Tracking number is invalid' });
    expect((await platform.listFulfillmentOrders(domain, '1001'))[0]!.status).toBe('open');
    await control('POST', `/_control/shopify/${domain}/faults`, {
      faults: [{ type: 'user_error', message: 'Hold limit reached', code: 'FULFILLMENT_ORDER_HOLD_LIMIT_REACHED' }],
    });
    expect(
      await failure(platform.holdFulfillmentOrders(domain, ['501'], { reason: 'r', handle: 'lcr_1' })),
    ).toMatchObject({
      code: 'hold_refused',
    });
    expect(await platform.fulfill(domain, request)).toMatchObject({ trackingNumber: 'Z1' });
  });

  it('reads a line’s total from its unit price after discounts times its quantity, exactly', async () => {
    const { domain, token } = await aShopWithAnOrder();
    const [fo] = await shopifyAdapter(token).platform.listFulfillmentOrders(domain, '1001');
    expect(fo!.lineItems[0]).toMatchObject({ quantity: 3, totalAfterDiscounts: czk('99.99') });
  });

  it('refuses a document the pinned Admin API version does not have, as Shopify does', async () => {
    const { domain, token } = await aShopWithAnOrder();
    const { client } = shopifyAdapter(token);
    const misspelled = 'query { order(id: "gid://shopify/Order/1001") { grandTotal } }';
    const error = await failure(client.request('order', domain, token, { text: misspelled }, {}));
    expect(error).toBeInstanceOf(ShopifyQueryError);
    expect((error as Error).message).toMatch(/Cannot query field "grandTotal" on type "Order"/);
    const tooCostly = 'query { orders(first: 250) { nodes { fulfillmentOrders(first: 250) { nodes { id } } } } }';
    expect(await failure(client.request('order', domain, token, { text: tooCostly }, {}))).toBeInstanceOf(
      ShopifyQueryError,
    );
  });

  it('writes need their scopes: holds the merchant-managed write, tags write_orders (ACCESS_DENIED, nothing changed)', async () => {
    const { domain } = await aShopWithAnOrder();
    const readOnly = await anAccessToken(domain, {
      scopes: ['read_orders', 'read_merchant_managed_fulfillment_orders', 'read_locations'],
    });
    const { platform } = shopifyAdapter(readOnly);
    const held = await failure(platform.holdFulfillmentOrders(domain, ['501'], { reason: 'r', handle: 'lcr_1' }));
    expect(held).toBeInstanceOf(PlatformAccessError);
    expect((held as PlatformAccessError).access).toMatch(/write_merchant_managed_fulfillment_orders/);
    const tagged = await failure(platform.addOrderTags(domain, '1001', ['x']));
    expect(tagged).toBeInstanceOf(PlatformAccessError);
    const [fo] = await platform.listFulfillmentOrders(domain, '1001');
    expect(fo).toMatchObject({ status: 'open', holds: [] });
    expect((await platform.getOrder(domain, '1001'))!.tags).toEqual([]);
  });

  it('tells its observer the version Shopify served and the deprecated fields a document used', async () => {
    const { domain, token } = await aShopWithAnOrder();
    const served: string[] = [];
    const deprecated: string[] = [];
    const observer = {
      versionServed: (_shop: string, version: string) => void served.push(version),
      deprecated: (_shop: string, reason: string) => void deprecated.push(reason),
      accessDenied: () => undefined,
    };
    // An expired version falls forward to the oldest supported one, as Shopify does.
    const expired = shopifyAdapter(token, 5_000, undefined, { apiVersion: '2025-10', observer });
    expect(await expired.platform.getOrder(domain, '1001')).not.toBeNull();
    expect(served).toEqual([adminSchemaManifest().pinned]);
    const pinned = shopifyAdapter(token, 5_000, undefined, { observer });
    // The fake keeps no value for that field; the answer's header names it all the same.
    await failure(
      pinned.client.request(
        'order',
        domain,
        token,
        { text: 'query { order(id: "gid://shopify/Order/1001") { totalPrice } }' },
        {},
      ),
    );
    expect(deprecated).toEqual(['Order.totalPrice']);
    expect(served).toHaveLength(1);
  });
});

/** An order with one fulfillment order at each of two locations (Praha, Brno). */
async function aShopWithAnOrderAtTwoLocations() {
  const domain = aShopDomain();
  const token = await anAccessToken(domain);
  const line = [{ id: 1, quantity: 1, total_after_discounts: czk('100.00') }];
  const res = await control('PUT', `/_control/stores/${domain}/orders`, {
    id: 2001,
    name: '#2001',
    fulfillment_orders: [
      { id: 601, assigned_location: { id: 1, name: 'Praha' }, line_items: line },
      { id: 602, assigned_location: { id: 2, name: 'Brno' }, line_items: line },
    ],
  });
  expect(res.status).toBe(200);
  return { domain, token };
}

const labelFulfilment = (trackingNumber: string) => ({
  fulfillmentOrderIds: ['601', '602'],
  trackingNumber,
  trackingUrl: null,
  carrierName: 'Carrier A',
  notifyCustomer: false,
});

const fulfilmentsMade = async (domain: string) =>
  (await control('GET', `/_control/stores/${domain}/fulfillments`)).body.fulfillments as Array<{
    id: string;
    fulfillment_order_ids: string[];
    tracking_number: string | null;
  }>;

const fulfillmentCreateFault = (domain: string, fault: Record<string, unknown>) =>
  control('POST', `/_control/shopify/${domain}/faults`, {
    faults: [{ type: 'mutation', mutation: 'fulfillmentCreate', ...fault }],
  });

describe('fulfilment that converges (fulfillmentCreate has no idempotency key)', () => {
  it('the second location’s call fails once: the retry fulfils only that location', async () => {
    const { domain, token } = await aShopWithAnOrderAtTwoLocations();
    const { platform } = shopifyAdapter(token);
    expect((await fulfillmentCreateFault(domain, { after: 1, outcome: 'unavailable' })).status).toBe(201);
    expect(await failure(platform.fulfill(domain, labelFulfilment('Z100')))).toBeInstanceOf(PlatformUnavailableError);
    expect((await fulfilmentsMade(domain)).map((f) => f.fulfillment_order_ids)).toEqual([
      ['gid://shopify/FulfillmentOrder/601'],
    ]);
    const retried = await platform.fulfill(domain, labelFulfilment('Z100'));
    const made = await fulfilmentsMade(domain);
    expect(made.map((f) => [f.fulfillment_order_ids, f.tracking_number])).toEqual([
      [['gid://shopify/FulfillmentOrder/601'], 'Z100'],
      [['gid://shopify/FulfillmentOrder/602'], 'Z100'],
    ]);
    // The first location's fulfilment, the one the earlier attempt made.
    expect(retried).toMatchObject({ id: `gid://shopify/Fulfillment/${made[0]!.id}`, trackingNumber: 'Z100' });
    expect((await platform.listFulfillmentOrders(domain, '2001')).map((fo) => fo.status)).toEqual(['closed', 'closed']);
  });

  it('the first call times out after Shopify committed it: the retry finds it done and fulfils the rest', async () => {
    const { domain, token } = await aShopWithAnOrderAtTwoLocations();
    const { platform } = shopifyAdapter(token, 1_000);
    await fulfillmentCreateFault(domain, { outcome: 'late_answer', delay_ms: 3_000 });
    const timedOut = await failure(platform.fulfill(domain, labelFulfilment('Z200')));
    expect(timedOut).toBeInstanceOf(PlatformUnavailableError);
    expect((await fulfilmentsMade(domain)).map((f) => f.fulfillment_order_ids)).toEqual([
      ['gid://shopify/FulfillmentOrder/601'],
    ]);
    await platform.fulfill(domain, labelFulfilment('Z200'));
    expect((await fulfilmentsMade(domain)).map((f) => f.fulfillment_order_ids)).toEqual([
      ['gid://shopify/FulfillmentOrder/601'],
      ['gid://shopify/FulfillmentOrder/602'],
    ]);
    // Everything done already: a further retry sends no fulfillmentCreate at all.
    await platform.fulfill(domain, labelFulfilment('Z200'));
    expect(await fulfilmentsMade(domain)).toHaveLength(2);
  });

  it('a fulfillment order another fulfilment closed (not this label’s number) is still refused not_open', async () => {
    const { domain, token } = await aShopWithAnOrderAtTwoLocations();
    const { platform } = shopifyAdapter(token);
    await platform.fulfill(domain, { ...labelFulfilment('OTHER-1'), fulfillmentOrderIds: ['601'] });
    const refused = await failure(platform.fulfill(domain, labelFulfilment('Z300')));
    expect(refused).toBeInstanceOf(PlatformRequestError);
    expect(refused).toMatchObject({ code: 'not_open' });
    expect((await fulfilmentsMade(domain)).map((f) => f.tracking_number)).toEqual(['OTHER-1']);
  });
});

describe('the recipient’s phone and the delivery method', () => {
  const address = { name: 'Jana Nováková', street: 'Dlouhá 12', city: 'Praha', postcode: '110 00', country: 'CZ' };
  async function anOrder(domain: string, order: Record<string, unknown>) {
    const res = await control('PUT', `/_control/stores/${domain}/orders`, { id: 3001, name: '#3001', ...order });
    expect(res.status).toBe(200);
  }

  it('reads the shipping address’s phone first, then the order’s', async () => {
    const domain = aShopDomain();
    const { platform } = shopifyAdapter(await anAccessToken(domain));
    await anOrder(domain, { shipping_address: { ...address, phone: '+420601000001' }, phone: '+420602000002' });
    expect((await platform.getOrder(domain, '3001'))!.phone).toBe('+420601000001');
    await anOrder(domain, { shipping_address: address, phone: '+420602000002' });
    expect((await platform.getOrder(domain, '3001'))!.phone).toBe('+420602000002');
  });

  it('the customer’s phone last, where the installation holds read_customers; without it the order reads all the same', async () => {
    const domain = aShopDomain();
    await anOrder(domain, { shipping_address: address, phone: null, customer: { phone: '+420603000003' } });
    const withoutScope = shopifyAdapter(await anAccessToken(domain)).platform;
    expect(await withoutScope.getOrder(domain, '3001')).toMatchObject({ name: '#3001', phone: null });
    const withScope = shopifyAdapter(
      await anAccessToken(domain, { scopes: [...REQUIRED_SHOPIFY_SCOPES, CUSTOMER_PHONE_SCOPE] }),
    ).platform;
    expect((await withScope.getOrder(domain, '3001'))!.phone).toBe('+420603000003');
    expect((await withScope.findOrdersByName(domain, '#3001'))[0]!.phone).toBe('+420603000003');
  });

  it('takes the delivery method from displayable fulfillment orders: one merged or moved away (closed) is not', async () => {
    const domain = aShopDomain();
    const { platform } = shopifyAdapter(await anAccessToken(domain));
    const line = [{ id: 1, quantity: 1, total_after_discounts: czk('100.00') }];
    await anOrder(domain, {
      shipping_address: address,
      fulfillment_orders: [{ id: 701, delivery_method_type: 'pickup', line_items: line }],
    });
    expect((await platform.getOrder(domain, '3001'))!.deliveryMethod.type).toBe('retail');
    // The merchant moves it to a new fulfillment order that ships: Shopify closes the old one and hides it.
    const edit = await control('POST', `/_control/stores/${domain}/orders/3001/edits`, {
      replace: [{ fulfillment_order_id: '701', new: { id: 702, delivery_method_type: 'shipping', line_items: line } }],
    });
    expect(edit.status).toBe(200);
    expect(
      (await platform.listFulfillmentOrders(domain, '3001')).map((fo) => [fo.status, fo.deliveryMethodType]),
    ).toEqual([
      ['closed', 'pickup'],
      ['open', 'shipping'],
    ]);
    expect((await platform.getOrder(domain, '3001'))!.deliveryMethod.type).toBe('shipping');
    expect((await platform.getOrderWithFulfillmentOrders(domain, '3001'))!.order.deliveryMethod.type).toBe('shipping');
  });
});

import { CostBuckets } from '../../src/platform/shopify/bucket';
import {
  fulfillmentOrderMethod,
  gidOf,
  orderMethod,
  orderNameQuery,
  pickupPointOf,
  recipientPhone,
  times,
  toHold,
  toLine,
} from '../../src/platform/shopify/mapping';
import { fulfillmentRefusalCode } from '../../src/platform/shopify/user-errors';

describe('Shopify answers as the port’s values', () => {
  it.each([
    [['+420 601 111 111', '+420 602 222 222', '+420 603 333 333'], '+420 601 111 111'],
    [[null, '+420 602 222 222', '+420 603 333 333'], '+420 602 222 222'],
    [['  ', null, '+420 603 333 333'], '+420 603 333 333'],
    [[undefined, null, undefined], null],
  ] as const)('the recipient’s phone of (address, order, customer) %j is %j', (candidates, expected) => {
    expect(recipientPhone(...candidates)).toBe(expected);
  });

  it.each([
    [['PICKUP_POINT'], 'pickup'],
    [['SHIPPING', 'PICKUP_POINT'], 'pickup'],
    [['SHIPPING'], 'shipping'],
    [['LOCAL'], 'local'],
    [['PICK_UP'], 'retail'],
    [['RETAIL'], 'retail'],
    [['NONE'], 'retail'],
    [[], 'shipping'],
  ] as const)('an order whose fulfillment orders are %j is delivered by %s', (types, expected) => {
    expect(orderMethod(types)).toBe(expected);
  });

  it.each([
    ['SHIPPING', 'shipping'],
    ['PICKUP_POINT', 'shipping'],
    ['PICK_UP', 'pickup'],
    ['LOCAL', 'local'],
    ['RETAIL', 'retail'],
    ['NONE', 'retail'],
  ] as const)('a %s fulfillment order is %s', (type, expected) => {
    expect(fulfillmentOrderMethod(type)).toBe(expected);
  });

  it.each([
    ['33.33', 3, '99.99'],
    ['12.0', 2, '24.00'],
    ['0.05', 7, '0.35'],
    ['1290', 1, '1290.00'],
  ])('multiplies %s by %i exactly', (amount, quantity, expected) => {
    expect(times(amount, quantity)).toBe(expected);
  });

  it('converts a unit weight to grams, rounded; no weight stays unknown', () => {
    const line = (weight: { unit: 'GRAMS' | 'KILOGRAMS' | 'OUNCES' | 'POUNDS'; value: number } | null) =>
      toLine({
        id: 'gid://shopify/FulfillmentOrderLineItem/1',
        sku: null,
        remainingQuantity: 1,
        weight,
        lineItem: {
          discountedUnitPriceAfterAllDiscountsSet: { presentmentMoney: { amount: '1.00', currencyCode: 'EUR' } },
        },
      }).weightGrams;
    expect(line({ unit: 'KILOGRAMS', value: 1.2 })).toBe(1200);
    expect(line({ unit: 'POUNDS', value: 1 })).toBe(454);
    expect(line({ unit: 'OUNCES', value: 2 })).toBe(57);
    expect(line(null)).toBeNull();
  });

  it('counts what still ships: the remaining quantity, its value and weight', () => {
    const partlyFulfilled = toLine({
      id: 'gid://shopify/FulfillmentOrderLineItem/1',
      sku: 'A',
      remainingQuantity: 2,
      weight: { unit: 'GRAMS', value: 300 },
      lineItem: {
        discountedUnitPriceAfterAllDiscountsSet: { presentmentMoney: { amount: '12.50', currencyCode: 'EUR' } },
      },
    });
    expect(partlyFulfilled).toEqual({
      id: 'gid://shopify/FulfillmentOrderLineItem/1',
      sku: 'A',
      quantity: 2,
      totalAfterDiscounts: { amount: '25.00', currency: 'EUR' },
      weightGrams: 300,
    });
  });

  it('reads the app metafield’s pickup point; anything not a point is none', () => {
    expect(pickupPointOf('{"id":"4410","carrier_code":"carrier_a","country":"CZ"}')).toEqual({
      id: '4410',
      carrierCode: 'carrier_a',
      name: null,
      country: 'CZ',
      customerId: null,
    });
    expect(pickupPointOf('{"id":4410}')).toBeNull();
    expect(pickupPointOf('not json')).toBeNull();
    expect(pickupPointOf(null)).toBeNull();
  });

  it('tells this app’s holds (by handle) from every other hold', () => {
    const base = { id: 'h', reason: 'OTHER' as const, reasonNotes: 'why' };
    expect(toHold({ ...base, handle: 'lcr_1', heldByRequestingApp: true })).toEqual({
      heldBy: 'app',
      reason: 'why',
      handle: 'lcr_1',
    });
    expect(toHold({ ...base, handle: 'theirs', heldByRequestingApp: false })).toEqual({
      heldBy: 'other',
      reason: 'why',
    });
    expect(toHold({ ...base, handle: null, heldByRequestingApp: false })).toEqual({ heldBy: 'other', reason: 'why' });
  });

  it('builds GIDs and name searches', () => {
    expect(gidOf('Order', '1001')).toBe('gid://shopify/Order/1001');
    expect(gidOf('Order', 'gid://shopify/Order/1001')).toBe('gid://shopify/Order/1001');
    expect(orderNameQuery('#A "1"')).toBe('name:"a \\"1\\""');
  });

  it.each([
    [['Fulfillment order does not exist.'], 'not_found'],
    [['Fulfillment order 5 is on hold.'], 'on_hold'],
    [['Fulfillment order 5 has an unfulfillable status= closed.'], 'not_open'],
    [['Tracking number is invalid'], 'refused'],
  ])('reads %j as the stable code %s', (messages, code) => {
    expect(fulfillmentRefusalCode(messages)).toBe(code);
  });
});

describe('the adapter’s view of a store’s cost bucket', () => {
  const at = (start: number) => {
    let now = start;
    return { now: () => now, advance: (ms: number) => (now += ms) };
  };

  it('lets calls of an unknown store through and takes points from a known one', () => {
    const clock = at(0);
    const buckets = new CostBuckets(clock.now, 2_000);
    expect(buckets.admit('a', 500)).toEqual({ wait: 0 });
    buckets.report('a', { maximumAvailable: 2000, currentlyAvailable: 600, restoreRate: 100 });
    expect(buckets.admit('a', 500)).toEqual({ wait: 0 });
    // 100 points left: the next 500 are 4 seconds away, past the longest wait.
    expect(buckets.admit('a', 500)).toEqual({ refuse: true, retryAfterSeconds: 4 });
    clock.advance(3_000);
    expect(buckets.admit('a', 500)).toEqual({ wait: 1_000 });
  });

  it('refills at the restore rate up to the maximum and answers a Retry-After of at least one second', () => {
    const clock = at(0);
    const buckets = new CostBuckets(clock.now);
    buckets.report('a', { maximumAvailable: 1000, currentlyAvailable: 0, restoreRate: 50 });
    expect(buckets.retryAfterSeconds('a', 120)).toBe(3);
    clock.advance(60_000);
    expect(buckets.retryAfterSeconds('a', 120)).toBe(1);
    expect(buckets.admit('a', 1000)).toEqual({ wait: 0 });
    expect(buckets.retryAfterSeconds('b', 120)).toBe(1);
  });
});

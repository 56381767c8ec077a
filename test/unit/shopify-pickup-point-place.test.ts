import { orderPickupPoint, pickupPointToMove, type WireOrder } from '../../src/platform/shopify/mapping';
import {
  createDefinition,
  mayAccess,
  resolveNamespace,
  surfaceValue,
  type Definitions,
} from '../../src/platform/shopify-fake/metafields';

/** Where the order's pickup point is read from (decision 0719), and the fake's ownership rules it is tested against. */
const point = (id: string) => JSON.stringify({ id, carrier_code: 'carrier_a', name: id, country: 'CZ' });
const wire = (shared: string | null, old: string | null) =>
  ({ sharedPickupPoint: shared ? { value: shared } : null, pickupPoint: old ? { value: old } : null }) as WireOrder;

describe('the order’s pickup point: the shared metafield first, the app-reserved one before it', () => {
  it.each([
    ['both', wire(point('new'), point('old')), 'new', null],
    ['only the shared one', wire(point('new'), null), 'new', null],
    ['only the old one', wire(null, point('old')), 'old', 'old'],
    ['a shared value that is no point', wire('{"x":1}', point('old')), 'old', 'old'],
    ['neither', wire(null, null), null, null],
  ])('%s', (_, order, read, moved) => {
    expect(orderPickupPoint(order)?.id ?? null).toBe(read);
    expect(pickupPointToMove(order)?.id ?? null).toBe(moved);
  });
});

describe('the fake’s metafield ownership', () => {
  it.each([
    [null, 'app--a1'],
    ['$app', 'app--a1'],
    ['$app:points', 'app--a1--points'],
    ['shipping_label', 'shipping_label'],
  ])('%s resolves to %s for app a1', (namespace, resolved) => {
    expect(resolveNamespace(namespace, 'a1')).toBe(resolved);
  });

  it('lets another app into a reserved namespace only as its definition allows', () => {
    const definitions: Definitions = new Map();
    expect(mayAccess(definitions, 'b2', 'app--a1', 'pickup_point', false)).toBe(false);
    expect(mayAccess(definitions, 'a1', 'app--a1', 'pickup_point', true)).toBe(true);
    expect(mayAccess(definitions, 'b2', 'shipping_label', 'pickup_point', true)).toBe(true);
    createDefinition(definitions, 'a1', {
      name: 'Point',
      namespace: '$app',
      key: 'pickup_point',
      type: 'json',
      ownerType: 'ORDER',
      access: { admin: 'PUBLIC_READ' },
    });
    expect(mayAccess(definitions, 'b2', 'app--a1', 'pickup_point', false)).toBe(true);
    expect(mayAccess(definitions, 'b2', 'app--a1', 'pickup_point', true)).toBe(false);
  });

  it('refuses what Shopify refuses when defining, and grants surfaces as defined', () => {
    const definitions: Definitions = new Map();
    const input = { name: 'Point', namespace: 'shipping_label', key: 'pickup_point', type: 'json', ownerType: 'ORDER' };
    expect(createDefinition(definitions, 'a1', { ...input, access: { admin: 'PUBLIC_READ' } })).toMatchObject({
      code: 'ADMIN_ACCESS_INPUT_NOT_ALLOWED',
    });
    expect(createDefinition(definitions, 'a1', { ...input, namespace: 'app--b2' })).toMatchObject({
      code: 'RESERVED_NAMESPACE_KEY',
    });
    expect(createDefinition(definitions, 'a1', { ...input, access: { storefront: 'PUBLIC_READ' } })).toMatchObject({
      admin: 'PUBLIC_READ_WRITE',
      storefront: 'PUBLIC_READ',
      customerAccount: 'NONE',
    });
    expect(createDefinition(definitions, 'b2', input)).toMatchObject({ code: 'TAKEN' });
    const order = {
      metafields: {},
      delivery_method: { type: 'pickup', title: null, pickup_point: null },
    } as unknown as Parameters<typeof surfaceValue>[1];
    expect(surfaceValue(definitions, order, 'shipping_label', 'pickup_point', 'storefront')).toEqual({ value: null });
    expect(surfaceValue(definitions, order, 'shipping_label', 'pickup_point', 'customer_account')).toBeNull();
  });
});

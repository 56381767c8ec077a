import type { StoreState, StoredFulfillmentOrder, StoredHold } from '../sandbox/state';
import { legacyIdOf, normalizeOrderName, shownStatus } from '../sandbox/state';
import type { OrderInput } from '../sandbox/schemas';
import { ALL_ORDERS_SCOPE } from '../shopify/scopes';
import { holdsAny, type AppGrants } from './access';
import { mayAccess, resolveNamespace, storedValue, type Definitions } from './metafields';

/**
 * The fake's resolvers over the sandbox platform's store state (the same orders, fulfillment orders, holds and
 * fulfillments the sandbox platform serves and the tests seed through its control API), shaped as Shopify's Admin API
 * objects. graphql-js calls a function-valued field with its arguments.
 */
type Order = Omit<OrderInput, 'fulfillment_orders'>;
type Money = { amount: string; currency: string };
export interface UserErrorFault {
  message: string;
  code: string | null;
}
export interface FakeContext {
  store: StoreState;
  nextId: () => string;
  /** A scripted user error: the next mutation refuses with it and changes nothing. */
  userError: UserErrorFault | null;
  /** What the app's installation was granted (its session on the fake). */
  grants: AppGrants;
  /** The calling app (its `$app` namespace is `app--<appId>`) and the shop's metafield definitions. */
  appId: string;
  definitions: Definitions;
  nowMs: number;
  /** The shop's own name and its owner's e-mail. */
  shop: { name: string; email: string };
}

/** Without `read_all_orders` an app reads only orders created in the last 60 days (Shopify's access-scope rules). */
const ORDER_WINDOW_MS = 60 * 86_400_000;

function readable(ctx: FakeContext, order: Order): boolean {
  if (holdsAny(ctx.grants, [ALL_ORDERS_SCOPE])) return true;
  return !order.created_at || Date.parse(order.created_at) >= ctx.nowMs - ORDER_WINDOW_MS;
}

/**
 * Shopify returns only the fulfillment orders the app's scopes reach, without a word about the others: those at the
 * merchant's locations with the merchant-managed scopes, those at a fulfillment service's with the third-party ones.
 */
export function visible(ctx: FakeContext, fo: StoredFulfillmentOrder): boolean {
  const kind = fo.assigned_location.fulfillment_service ? 'third_party' : 'merchant_managed';
  return holdsAny(ctx.grants, [`read_${kind}_fulfillment_orders`]);
}

const gid = (type: string, id: string) => `gid://shopify/${type}/${id}`;
const bag = (m: Money) => {
  const money = { amount: m.amount, currencyCode: m.currency };
  return { shopMoney: money, presentmentMoney: money };
};

/** Cursor pages over a list, with Shopify's connection shape. */
function connection<T>(items: readonly T[], args: { first?: number | null; after?: string | null }) {
  const start = args.after ? Number(Buffer.from(args.after, 'base64').toString('utf8')) + 1 : 0;
  const page = items.slice(start, start + (args.first ?? items.length));
  const cursor = (i: number) => Buffer.from(String(start + i)).toString('base64');
  return {
    nodes: page,
    edges: page.map((node, i) => ({ cursor: cursor(i), node })),
    pageInfo: {
      hasNextPage: start + page.length < items.length,
      hasPreviousPage: start > 0,
      startCursor: page.length ? cursor(0) : null,
      endCursor: page.length ? cursor(page.length - 1) : null,
    },
  };
}

/** A stable numeric ID for a hold (the sandbox keeps holds by handle). */
function holdId(fo: StoredFulfillmentOrder, hold: StoredHold): string {
  const key = hold.held_by === 'app' ? hold.handle : '';
  let hash = 2166136261;
  for (const ch of `${fo.id}/${key}`) hash = Math.imul(hash ^ ch.charCodeAt(0), 16777619) >>> 0;
  return gid('FulfillmentHold', String(hash));
}

/** Unit price from the stored line total, in cents (Shopify stores the unit price; the sandbox the total). */
function unitPrice(total: Money, quantity: number): Money {
  const [whole = '0', fraction = ''] = total.amount.split('.');
  const cents = (Number(whole) * 100 + Number(`${fraction}00`.slice(0, 2))) / quantity;
  const unit = Math.floor(cents);
  return { amount: `${Math.floor(unit / 100)}.${String(unit % 100).padStart(2, '0')}`, currency: total.currency };
}

/** The sandbox's kinds in Shopify's words; a parcel to a pickup point is `PICKUP_POINT` on a pickup-point order. */
function methodType(order: Order, type: StoredFulfillmentOrder['delivery_method_type']): string {
  if (type === 'shipping') return order.delivery_method.type === 'pickup' ? 'PICKUP_POINT' : 'SHIPPING';
  return { pickup: 'PICK_UP', local: 'LOCAL', retail: 'RETAIL' }[type];
}

/** A stored fulfilment as Shopify's `Fulfillment` (the fake's are all in effect). */
function fulfillmentView(f: StoreState['fulfillments'][number]) {
  return {
    __typename: 'Fulfillment',
    id: gid('Fulfillment', f.id),
    status: 'SUCCESS',
    createdAt: f.created_at,
    trackingInfo: ({ first }: { first?: number | null }) =>
      [{ number: f.tracking_number, url: f.tracking_url, company: f.carrier_name }].slice(0, first ?? undefined),
  };
}

/** The fulfilments that closed (part of) a fulfillment order, oldest first. */
const fulfillmentsOf = (store: StoreState, fo: StoredFulfillmentOrder) =>
  store.fulfillments.filter((f) => f.fulfillment_order_ids.includes(gid('FulfillmentOrder', fo.id)));

/**
 * Shopify hides from the merchant (and from `displayable: true`) a fulfillment order closed because it was merged into
 * another or moved to another location: here, one an edit replaced (closed, pointing to its replacement). One closed
 * by fulfilling it stays displayable; the seeds say "fulfilled" with a closed status and no fulfilment.
 */
const displayable = (fo: StoredFulfillmentOrder): boolean => !(fo.status === 'closed' && fo.replaced_by.length > 0);

function fulfillmentOrderView(store: StoreState, fo: StoredFulfillmentOrder) {
  const order = store.orders.get(fo.orderId)!;
  const service = fo.assigned_location.fulfillment_service;
  return {
    __typename: 'FulfillmentOrder',
    id: gid('FulfillmentOrder', fo.id),
    orderId: gid('Order', fo.orderId),
    // A hold moves an open fulfillment order to ON_HOLD; releasing the last one moves it back (Shopify's holds).
    status: shownStatus(fo).toUpperCase(),
    assignedLocation: {
      name: fo.assigned_location.name,
      location: {
        __typename: 'Location',
        id: gid('Location', fo.assigned_location.id),
        name: fo.assigned_location.name,
        isFulfillmentService: service !== null,
        fulfillmentService: service
          ? { id: gid('FulfillmentService', fo.assigned_location.id), serviceName: service, handle: service }
          : null,
      },
    },
    deliveryMethod: { id: gid('DeliveryMethod', fo.id), methodType: methodType(order, fo.delivery_method_type) },
    fulfillmentHolds: fo.holds.map((h) => ({
      id: holdId(fo, h),
      handle: h.held_by === 'app' ? h.handle : null,
      heldByRequestingApp: h.held_by === 'app',
      reason: 'OTHER',
      reasonNotes: h.reason,
      displayReason: 'Other',
    })),
    fulfillments: (args: { first?: number; after?: string }) =>
      connection(fulfillmentsOf(store, fo).map(fulfillmentView), args),
    lineItems: (args: { first?: number; after?: string }) =>
      connection(
        fo.line_items.map((l) => ({
          id: gid('FulfillmentOrderLineItem', `${fo.id}${l.id}`),
          sku: l.sku,
          // Shopify's total counts the units already fulfilled; what is left is `remainingQuantity`.
          totalQuantity: l.quantity + l.fulfilled_quantity,
          remainingQuantity: fo.status === 'closed' ? 0 : l.quantity,
          weight: l.weight_grams === null ? null : { unit: 'GRAMS', value: l.weight_grams },
          productTitle: l.sku ?? 'Product',
          lineItem: {
            id: gid('LineItem', l.id),
            sku: l.sku,
            quantity: l.quantity,
            name: l.sku ?? 'Product',
            discountedUnitPriceAfterAllDiscountsSet: bag(unitPrice(l.total_after_discounts, l.quantity)),
          },
        })),
        args,
      ),
  };
}

function orderView(ctx: FakeContext, order: Order) {
  const { store } = ctx;
  const zero = { amount: '0.00', currency: order.currency };
  const total = order.total_price ?? zero;
  const a = order.shipping_address;
  return {
    __typename: 'Order',
    id: gid('Order', order.id),
    legacyResourceId: order.id,
    name: order.name,
    createdAt: order.created_at ?? null,
    currencyCode: order.currency,
    presentmentCurrencyCode: order.currency,
    totalPriceSet: bag(total),
    subtotalPriceSet: bag(order.subtotal_price ?? total),
    totalOutstandingSet: bag(order.total_outstanding ?? zero),
    paymentGatewayNames: order.payment_gateways,
    // Shopify's ownership rules (metafields.ts): `$app` is the calling app's own namespace; another app's only as its
    // definition grants; a metafield the app may not read is null.
    metafield: ({ namespace, key }: { namespace?: string | null; key: string }) => {
      const resolved = resolveNamespace(namespace, ctx.appId);
      if (!mayAccess(ctx.definitions, ctx.appId, resolved, key, false)) return null;
      const value = storedValue(order, resolved, key);
      return value === undefined
        ? null
        : { id: gid('Metafield', `${order.id}`), namespace: resolved, key, value, type: 'json' };
    },
    shippingAddress: a
      ? {
          id: gid('MailingAddress', order.id),
          name: a.name,
          company: a.company,
          address1: a.street,
          address2: null,
          city: a.city,
          zip: a.postcode,
          countryCodeV2: a.country,
          latitude: a.latitude,
          longitude: a.longitude,
          phone: a.phone,
        }
      : null,
    phone: order.phone,
    // Behind `read_customers` (its type's scope, from the schema) and protected customer data (the phone).
    customer: order.customer
      ? {
          __typename: 'Customer',
          id: gid('Customer', order.id),
          defaultPhoneNumber: order.customer.phone ? { phoneNumber: order.customer.phone } : null,
        }
      : null,
    email: order.email,
    shippingLine: order.delivery_method.title ? { title: order.delivery_method.title } : null,
    fulfillmentOrders: (args: { first?: number; after?: string; displayable?: boolean | null }) =>
      connection(
        [...store.fulfillmentOrders.values()]
          .filter((fo) => fo.orderId === order.id && visible(ctx, fo))
          .filter((fo) => !args.displayable || displayable(fo))
          .map((fo) => fulfillmentOrderView(store, fo)),
        args,
      ),
    tags: order.tags,
    cancelledAt: order.cancelled_at,
  };
}

const byGid = (type: string, id: string) => {
  const match = new RegExp(`^gid://shopify/${type}/(\\d+)$`).exec(id);
  return match ? match[1]! : null;
};

/** `name:#1001`, `name:"1001"`: the order names the search matches (Shopify's search is broader; exact is enough). */
function nameOf(query: string | null | undefined): string | null {
  const match = /name:(?:"((?:[^"\\]|\\.)*)"|(\S+))/.exec(query ?? '');
  if (!match) return null;
  return (match[1] ?? match[2]!).replace(/\\(.)/g, '$1');
}

export function queryRoot(ctx: FakeContext) {
  const { store } = ctx;
  const fulfillmentOrder = (id: string) => {
    const legacy = byGid('FulfillmentOrder', id);
    const fo = legacy ? store.fulfillmentOrders.get(legacy) : undefined;
    return fo && visible(ctx, fo) ? fulfillmentOrderView(store, fo) : null;
  };
  return {
    // An order outside the app's window reads as no order at all, as an unknown ID does.
    order: ({ id }: { id: string }) => {
      const legacy = byGid('Order', id);
      const order = legacy ? store.orders.get(legacy) : undefined;
      return order && readable(ctx, order) ? orderView(ctx, order) : null;
    },
    orders: (args: { first?: number; after?: string; query?: string }) => {
      const name = nameOf(args.query);
      const orders = [...store.orders.values()].filter(
        (o) => readable(ctx, o) && (name === null || normalizeOrderName(o.name) === normalizeOrderName(name)),
      );
      return connection(
        orders.map((o) => orderView(ctx, o)),
        args,
      );
    },
    fulfillmentOrder: ({ id }: { id: string }) => fulfillmentOrder(id),
    nodes: ({ ids }: { ids: string[] }) =>
      ids.map((id) => (id.includes('/FulfillmentOrder/') ? fulfillmentOrder(id) : null)),
    shop: { __typename: 'Shop', name: ctx.shop.name, email: ctx.shop.email },
    currentAppInstallation: {
      __typename: 'AppInstallation',
      id: gid('AppInstallation', '1'),
      accessScopes: ctx.grants.scopes.map((handle) => ({ handle, description: handle })),
    },
  };
}

export { legacyIdOf, orderView, fulfillmentOrderView, gid, byGid, holdId };

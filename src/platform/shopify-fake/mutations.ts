import { accessDenied, holdsAny } from './access';
import { createDefinition, mayAccess, resolveNamespace, storeValue, type DefinitionInput } from './metafields';
import { byGid, fulfillmentOrderView, gid, holdId, orderView, visible, type FakeContext } from './resolvers';

/**
 * The fake's mutations, with Shopify's refusals as `userErrors` (codes where the mutation's error type has them): a
 * fulfillment of a held, closed or missing fulfillment order, or of fulfillment orders of several orders or locations
 * in one call; a hold on a closed one, a handle this app already uses, more than 10 holds; tags or metafields on a
 * missing order. Changing an order (tags, metafields) needs `write_orders`, as changing its owner does; the scopes of
 * the fulfillment mutations are checked from the schema (access.ts). The texts Shopify does not document are the
 * fake's (docs/shopify.md).
 */
interface FulfillmentInput {
  lineItemsByFulfillmentOrder: Array<{ fulfillmentOrderId: string }>;
  trackingInfo?: { number?: string | null; url?: string | null; company?: string | null } | null;
  notifyCustomer?: boolean | null;
}

const MAX_APP_HOLDS = 10;

/**
 * What the mutations share: the store, the refusal a test scripted (`forced`), the fulfillment orders this app sees,
 * and the scope that changing an order needs.
 */
function mutationKit(ctx: FakeContext) {
  const { store } = ctx;
  const forced = (withCode: boolean) =>
    ctx.userError
      ? [{ field: null, message: ctx.userError.message, ...(withCode ? { code: ctx.userError.code } : {}) }]
      : null;
  const foOf = (id: string) => {
    const legacy = byGid('FulfillmentOrder', id);
    const fo = legacy ? store.fulfillmentOrders.get(legacy) : undefined;
    return fo && visible(ctx, fo) ? fo : undefined;
  };
  const mayChangeOrders = (mutation: string) => {
    if (!holdsAny(ctx.grants, ['write_orders'])) throw accessDenied(mutation);
  };
  return { store, forced, foOf, mayChangeOrders };
}

export function mutationRoot(ctx: FakeContext) {
  const { store, forced, foOf, mayChangeOrders } = mutationKit(ctx);

  return {
    fulfillmentCreate: (args: Parameters<typeof fulfillmentCreate>[1]) => fulfillmentCreate(ctx, args),

    tagsAdd: ({ id, tags }: { id: string; tags: string[] }) => {
      const userErrors = forced(false);
      if (userErrors) return { node: null, userErrors };
      mayChangeOrders('tagsAdd');
      const legacy = byGid('Order', id);
      const order = legacy ? store.orders.get(legacy) : undefined;
      if (!order) return { node: null, userErrors: [{ field: ['id'], message: 'Order does not exist' }] };
      for (const tag of tags) if (!order.tags.includes(tag)) order.tags.push(tag);
      return { node: orderView(ctx, order), userErrors: [] };
    },

    metafieldsSet: (args: Parameters<typeof metafieldsSet>[1]) => metafieldsSet(ctx, args),

    metafieldDefinitionCreate: ({ definition }: { definition: DefinitionInput }) => {
      const userErrors = forced(true);
      if (userErrors) return { createdDefinition: null, userErrors };
      const created = createDefinition(ctx.definitions, ctx.appId, definition);
      return 'code' in created
        ? { createdDefinition: null, userErrors: [{ ...created, elementIndex: null, elementKey: null }] }
        : {
            createdDefinition: { id: gid('MetafieldDefinition', `${created.namespace}.${created.key}`) },
            userErrors: [],
          };
    },

    fulfillmentOrderHold: (args: Parameters<typeof fulfillmentOrderHold>[1]) => fulfillmentOrderHold(ctx, args),

    fulfillmentOrderReleaseHold: ({ id, holdIds }: { id: string; holdIds?: string[] | null }) => {
      const userErrors = forced(true);
      if (userErrors) return { fulfillmentOrder: null, userErrors };
      const fo = foOf(id);
      if (!fo)
        return {
          fulfillmentOrder: null,
          userErrors: [
            { field: ['id'], message: "The fulfillment order wasn't found.", code: 'FULFILLMENT_ORDER_NOT_FOUND' },
          ],
        };
      // Only this app's holds: the given ones, or all of them without IDs.
      fo.holds = fo.holds.filter((h) => h.held_by !== 'app' || (holdIds ? !holdIds.includes(holdId(fo, h)) : false));
      return { fulfillmentOrder: fulfillmentOrderView(store, fo), userErrors: [] };
    },
  };
}

/** `fulfillmentCreate`: the fulfillment orders of one order at one location closed, or the refusal. */
function fulfillmentCreate(ctx: FakeContext, { fulfillment }: { fulfillment: FulfillmentInput }) {
  const { store, forced, foOf } = mutationKit(ctx);
  const userErrors = forced(false);
  if (userErrors) return { fulfillment: null, userErrors };
  const fos = fulfillment.lineItemsByFulfillmentOrder.map((l) => foOf(l.fulfillmentOrderId));
  const refuse = (field: string[], message: string) => ({ fulfillment: null, userErrors: [{ field, message }] });
  for (const [i, fo] of fos.entries()) {
    const field = ['fulfillment', 'lineItemsByFulfillmentOrder', String(i), 'fulfillmentOrderId'];
    if (!fo) return refuse(field, 'Fulfillment order does not exist.');
    // Shopify fulfils the fulfillment orders of one order at one location per call.
    if (fo.orderId !== fos[0]!.orderId) return refuse(field, 'All fulfillment orders must belong to the same order.');
    if (fo.assigned_location.id !== fos[0]!.assigned_location.id)
      return refuse(field, 'All fulfillment orders must be assigned to a single location.');
    // Since 2024-10 only the fulfillment service fulfils what is assigned to its location.
    if (fo.assigned_location.fulfillment_service)
      return refuse(field, `Fulfillment order ${fo.id} is assigned to a fulfillment service; it fulfils it.`);
    if (fo.holds.length > 0) return refuse(field, `Fulfillment order ${fo.id} is on hold.`);
    if (!['open', 'in_progress'].includes(fo.status))
      return {
        fulfillment: null,
        userErrors: [{ field, message: `Fulfillment order ${fo.id} has an unfulfillable status= ${fo.status}.` }],
      };
  }
  for (const fo of fos) fo!.status = 'closed';
  const tracking = fulfillment.trackingInfo ?? {};
  const stored = {
    id: ctx.nextId(),
    fulfillment_order_ids: fos.map((fo) => gid('FulfillmentOrder', fo!.id)),
    tracking_number: tracking.number ?? null,
    tracking_url: tracking.url ?? null,
    carrier_name: tracking.company ?? null,
    notify_customer: fulfillment.notifyCustomer ?? false,
    created_at: new Date().toISOString(),
  };
  store.fulfillments.push(stored);
  return {
    fulfillment: {
      id: gid('Fulfillment', stored.id),
      status: 'SUCCESS',
      trackingInfo: [{ number: stored.tracking_number, url: stored.tracking_url, company: stored.carrier_name }],
    },
    userErrors: [],
  };
}

/**
 * `metafieldsSet` on orders, with Shopify's ownership rules (metafields.ts): `$app` is the calling app's namespace;
 * another app's reserved namespace only as its definition's `admin` access allows.
 */
function metafieldsSet(
  ctx: FakeContext,
  {
    metafields,
  }: {
    metafields: Array<{ ownerId: string; namespace?: string | null; key: string; type?: string | null; value: string }>;
  },
) {
  const { store, forced, mayChangeOrders } = mutationKit(ctx);
  mayChangeOrders('metafieldsSet');
  const userErrors = forced(true);
  if (userErrors) return { metafields: null, userErrors };
  const set = [];
  for (const [i, m] of metafields.entries()) {
    const legacy = byGid('Order', m.ownerId);
    const order = legacy ? store.orders.get(legacy) : undefined;
    const error = (message: string, code: string, field: string) => ({
      metafields: null,
      userErrors: [{ field: ['metafields', String(i), field], message, code, elementIndex: i }],
    });
    if (!order) return error('Owner does not exist.', 'INVALID_VALUE', 'ownerId');
    const namespace = resolveNamespace(m.namespace, ctx.appId);
    if (!mayAccess(ctx.definitions, ctx.appId, namespace, m.key, true))
      return error(
        'Access to this namespace and key on Metafields for this resource type is not allowed.',
        'APP_NOT_AUTHORIZED',
        'namespace',
      );
    const type = ctx.definitions.get(`${namespace}.${m.key}`)?.type ?? m.type ?? 'json';
    const refused = storeValue(order, namespace, m.key, type, m.value);
    if (refused) return error(refused, 'INVALID_VALUE', 'value');
    set.push({ id: gid('Metafield', order.id), namespace, key: m.key, value: m.value, type });
  }
  return { metafields: set, userErrors: [] };
}

/** `fulfillmentOrderHold`: this app's hold under its handle, at most 10 of them. */
function fulfillmentOrderHold(
  ctx: FakeContext,
  {
    id,
    fulfillmentHold,
  }: {
    id: string;
    fulfillmentHold: { reason: string; reasonNotes?: string | null; handle?: string | null };
  },
) {
  const { store, forced, foOf } = mutationKit(ctx);
  const refuse = (message: string, code: string | null) => ({
    fulfillmentHold: null,
    fulfillmentOrder: null,
    remainingFulfillmentOrder: null,
    userErrors: [{ field: ['id'], message, code }],
  });
  const userErrors = forced(true);
  if (userErrors) return { fulfillmentHold: null, fulfillmentOrder: null, remainingFulfillmentOrder: null, userErrors };
  const fo = foOf(id);
  if (!fo) return refuse('The fulfillment order could not be found.', 'FULFILLMENT_ORDER_NOT_FOUND');
  if (fo.assigned_location.fulfillment_service && !holdsAny(ctx.grants, ['write_third_party_fulfillment_orders']))
    throw accessDenied('fulfillmentOrderHold');
  if (fo.status === 'closed' || fo.status === 'cancelled')
    return refuse(`The fulfillment order's status is ${fo.status} and it cannot be put on hold.`, null);
  const handle = fulfillmentHold.handle ?? '';
  const appHolds = fo.holds.filter((h) => h.held_by === 'app');
  if (appHolds.some((h) => h.handle === handle))
    return refuse(
      'The handle provided for the fulfillment hold is already in use by this app.',
      'DUPLICATE_FULFILLMENT_HOLD_HANDLE',
    );
  if (appHolds.length >= MAX_APP_HOLDS)
    return refuse('The maximum number of fulfillment holds has been reached.', 'FULFILLMENT_ORDER_HOLD_LIMIT_REACHED');
  const hold = { held_by: 'app' as const, reason: fulfillmentHold.reasonNotes ?? fulfillmentHold.reason, handle };
  fo.holds = [...fo.holds, hold];
  const view = fulfillmentOrderView(store, fo);
  return {
    fulfillmentHold: view.fulfillmentHolds.find((h) => h.id === holdId(fo, hold)),
    fulfillmentOrder: view,
    remainingFulfillmentOrder: null,
    userErrors: [],
  };
}

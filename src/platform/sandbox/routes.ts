import { z } from 'zod';
import { BadRequest, json, sleep, type Reply, type Router, type SandboxRequest } from '../../sandbox/http';
import {
  appHoldBodySchema,
  fulfillBodySchema,
  fulfillmentOrderSchema,
  orderEditSchema,
  orderSchema,
  pickupPointSchema,
  platformFaultSchema,
  type OrderInput,
} from './schemas';
import { DEMO_ORDER_KINDS, demoOrder, demoOrdersBodySchema, nextDemoIds } from './demo-orders';
import {
  legacyIdOf,
  normalizeOrderName,
  shownStatus,
  type PlatformSandboxState,
  type StoreState,
  type StoredFulfillmentOrder,
} from './state';

const orderGid = (id: string) => `gid://shopify/Order/${id}`;
const fulfillmentOrderGid = (id: string) => `gid://shopify/FulfillmentOrder/${id}`;

function parse<T>(schema: z.ZodType<T>, body: unknown, what: string): T {
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw new BadRequest(`${what} is invalid`, parsed.error.issues);
  return parsed.data;
}

function orderToWire(order: Omit<OrderInput, 'fulfillment_orders'>): Record<string, unknown> {
  const zero = { amount: '0.00', currency: order.currency };
  const { customer, shipping_address: address, ...rest } = order;
  const { phone: addressPhone, ...shippingAddress } = address ?? { phone: null };
  return {
    ...rest,
    id: orderGid(order.id),
    shipping_address: address ? shippingAddress : null,
    // The recipient's phone as the Shopify adapter reads it: the shipping address's, the order's, the customer's.
    phone: addressPhone ?? order.phone ?? customer?.phone ?? null,
    legacy_id: order.id,
    total_price: order.total_price ?? zero,
    subtotal_price: order.subtotal_price ?? order.total_price ?? zero,
    total_outstanding: order.total_outstanding ?? zero,
  };
}

function fulfillmentOrderToWire(fo: StoredFulfillmentOrder): Record<string, unknown> {
  return {
    id: fulfillmentOrderGid(fo.id),
    legacy_id: fo.id,
    order_id: orderGid(fo.orderId),
    status: shownStatus(fo),
    assigned_location: fo.assigned_location,
    delivery_method_type: fo.delivery_method_type,
    line_items: fo.line_items,
    holds: fo.holds,
    replaced_by: fo.replaced_by.map(fulfillmentOrderGid),
  };
}

/** The order's fulfillment orders on the wire, in the order they were stored. */
function fulfillmentOrdersOf(store: StoreState, orderId: string): Array<Record<string, unknown>> {
  return [...store.fulfillmentOrders.values()].filter((fo) => fo.orderId === orderId).map(fulfillmentOrderToWire);
}

function storeFulfillmentOrder(
  store: StoreState,
  orderId: string,
  input: z.infer<typeof fulfillmentOrderSchema>,
): StoredFulfillmentOrder {
  const id = legacyIdOf(input.id);
  const existing = store.fulfillmentOrders.get(id);
  const stored: StoredFulfillmentOrder = {
    ...input,
    id,
    orderId,
    holds: existing?.holds ?? [],
    replaced_by: existing?.replaced_by ?? [],
  };
  store.fulfillmentOrders.set(id, stored);
  return stored;
}

/** Stores an order and its fulfillment orders (the control API's upsert); returns them on the wire. */
function upsertOrder(store: StoreState, input: OrderInput) {
  const { fulfillment_orders: fulfillmentOrders, ...order } = input;
  const id = legacyIdOf(order.id);
  // When the customer ordered: kept across upserts, now for a new order (Shopify's 60-day window counts from it).
  const createdAt = order.created_at ?? store.orders.get(id)?.created_at ?? new Date().toISOString();
  store.orders.set(id, { ...order, id, created_at: createdAt });
  const stored = fulfillmentOrders.map((fo) => storeFulfillmentOrder(store, id, fo));
  return { order: orderToWire({ ...order, id }), fulfillment_orders: stored.map(fulfillmentOrderToWire) };
}

/**
 * The store-platform simulator: the API the adapter calls (`/platform/stores/:domain/...`), throttled or slowed by
 * scripted faults, and the control API tests and fixtures use (`/_control/stores/:domain/...`).
 */
export function registerPlatformSandbox(router: Router, state: PlatformSandboxState): void {
  registerPlatformApi(router, state);
  registerControlApi(router, state);
}

/** The store and the order of a request's `:domain` and `:id`. */
function orderOf(state: PlatformSandboxState, request: SandboxRequest) {
  const store = state.store(request.params.domain!);
  const order = store.orders.get(legacyIdOf(request.params.id!));
  return { store, order };
}

/** The platform API the adapter calls, each call first meeting the next scripted fault. */
function registerPlatformApi(router: Router, state: PlatformSandboxState): void {
  const api = '/platform/stores/:domain';
  /** Runs the next scripted platform fault, if any; `null` lets the call through. */
  const fault = async (request: SandboxRequest): Promise<Reply | null> => {
    const next = state.takeFault(request.params.domain!);
    if (!next) return null;
    if (next.type === 'slow') {
      await sleep(next.delay_ms);
      return null;
    }
    if (next.type === 'throttled')
      return json(429, { errors: 'Throttled' }, { 'retry-after': String(next.retry_after_seconds) });
    if (next.type === 'unauthorized') return json(401, { errors: 'Invalid API key or access token' });
    return json(503, { errors: 'Service unavailable' });
  };
  const withOrder = (request: SandboxRequest) => orderOf(state, request);

  router.add('GET', `${api}/orders`, async (request) => {
    const f = await fault(request);
    if (f) return f;
    const wanted = normalizeOrderName(request.query.get('name') ?? '');
    const orders = [...state.store(request.params.domain!).orders.values()].filter(
      (o) => normalizeOrderName(o.name) === wanted,
    );
    return json(200, { orders: orders.map(orderToWire) });
  });
  router.add('GET', `${api}/orders/:id`, async (request) => {
    const f = await fault(request);
    if (f) return f;
    const { store, order } = withOrder(request);
    if (!order) return json(404, { errors: 'Not Found' });
    // `include=fulfillment_orders`: the order's fulfillment orders in the same answer (one read, one fault).
    if (request.query.get('include') !== 'fulfillment_orders') return json(200, { order: orderToWire(order) });
    return json(200, { order: orderToWire(order), fulfillment_orders: fulfillmentOrdersOf(store, order.id) });
  });
  router.add('GET', `${api}/orders/:id/fulfillment-orders`, async (request) => {
    const f = await fault(request);
    if (f) return f;
    const { store, order } = withOrder(request);
    if (!order) return json(404, { errors: 'Not Found' });
    return json(200, { fulfillment_orders: fulfillmentOrdersOf(store, order.id) });
  });
  router.add('POST', `${api}/orders/:id/tags`, async (request) => {
    const f = await fault(request);
    if (f) return f;
    const { order } = withOrder(request);
    if (!order) return json(404, { errors: 'Not Found' });
    const { tags } = parse(z.object({ tags: z.array(z.string().min(1)).min(1) }).strict(), request.body, 'tags body');
    for (const tag of tags) if (!order.tags.includes(tag)) order.tags.push(tag);
    return json(200, { tags: order.tags });
  });
  router.add('PUT', `${api}/orders/:id/pickup-point`, async (request) => {
    const f = await fault(request);
    if (f) return f;
    const { order } = withOrder(request);
    if (!order) return json(404, { errors: 'Not Found' });
    const body = parse(z.object({ pickup_point: pickupPointSchema }).strict(), request.body, 'pickup point body');
    order.delivery_method = { ...order.delivery_method, pickup_point: body.pickup_point };
    return json(200, { order: orderToWire(order) });
  });
  router.add('POST', `${api}/fulfillments`, async (request) => {
    const f = await fault(request);
    if (f) return f;
    const store = state.store(request.params.domain!);
    const body = parse(fulfillBodySchema, request.body, 'fulfillment body');
    const fos = body.fulfillment_order_ids.map((id) => store.fulfillmentOrders.get(legacyIdOf(id)));
    for (const [i, fo] of fos.entries()) {
      if (!fo)
        return json(422, { errors: `fulfillment order ${body.fulfillment_order_ids[i]} not found`, code: 'not_found' });
      if (fo.holds.length > 0) return json(422, { errors: `fulfillment order ${fo.id} is on hold`, code: 'on_hold' });
      if (!['open', 'in_progress'].includes(fo.status))
        return json(422, { errors: `fulfillment order ${fo.id} is ${fo.status}`, code: 'not_open' });
    }
    for (const fo of fos) fo!.status = 'closed';
    const fulfillment = {
      id: state.nextId(),
      fulfillment_order_ids: fos.map((fo) => fulfillmentOrderGid(fo!.id)),
      tracking_number: body.tracking_number,
      tracking_url: body.tracking_url,
      carrier_name: body.carrier_name,
      notify_customer: body.notify_customer,
      created_at: new Date().toISOString(),
    };
    store.fulfillments.push(fulfillment);
    return json(201, { fulfillment: { ...fulfillment, id: `gid://shopify/Fulfillment/${fulfillment.id}` } });
  });
  router.add('POST', `${api}/fulfillment-orders/:id/holds`, async (request) => {
    const f = await fault(request);
    if (f) return f;
    const fo = state.store(request.params.domain!).fulfillmentOrders.get(legacyIdOf(request.params.id!));
    if (!fo) return json(404, { errors: 'Not Found' });
    const body = parse(appHoldBodySchema, request.body, 'hold body');
    if (fo.status === 'closed' || fo.status === 'cancelled')
      return json(422, {
        errors: `fulfillment order ${fo.id} is ${fo.status} and cannot be held`,
        code: 'not_holdable',
      });
    // Holding again with the same handle replaces that hold: the call is idempotent.
    fo.holds = [
      ...fo.holds.filter((h) => h.held_by !== 'app' || h.handle !== body.handle),
      { held_by: 'app', reason: body.reason, handle: body.handle },
    ];
    return json(200, { fulfillment_order: fulfillmentOrderToWire(fo) });
  });
  router.add('DELETE', `${api}/fulfillment-orders/:id/holds/:handle`, async (request) => {
    const f = await fault(request);
    if (f) return f;
    const fo = state.store(request.params.domain!).fulfillmentOrders.get(legacyIdOf(request.params.id!));
    if (!fo) return json(404, { errors: 'Not Found' });
    // Only this handle's hold goes; releasing a hold that is gone succeeds.
    fo.holds = fo.holds.filter((h) => h.held_by !== 'app' || h.handle !== request.params.handle);
    return json(200, { fulfillment_order: fulfillmentOrderToWire(fo) });
  });
}

/** The control API tests and fixtures use: orders, edits, holds as the admin makes them, faults, reset. */
function registerControlApi(router: Router, state: PlatformSandboxState): void {
  const withOrder = (request: SandboxRequest) => orderOf(state, request);
  const control = '/_control/stores/:domain';
  router.add('PUT', `${control}/orders`, async (request) => {
    const input = parse(orderSchema, request.body, 'order');
    return json(200, upsertOrder(state.store(request.params.domain!), input));
  });
  // Fresh orders of every kind the demo shows, under new IDs (docs/sandbox.md, "Demo orders").
  router.add('POST', `${control}/demo-orders`, async (request) => {
    const body = parse(demoOrdersBodySchema, request.body ?? {}, 'demo orders body');
    const kinds = body.kinds ?? DEMO_ORDER_KINDS;
    const store = state.store(request.params.domain!);
    const ids = nextDemoIds(
      {
        orderIds: new Set(store.orders.keys()),
        fulfillmentOrderIds: new Set(store.fulfillmentOrders.keys()),
        names: [...store.orders.values()].map((o) => o.name),
      },
      body.count ?? kinds.length,
      Date.now(),
    );
    const orders = ids.map((id, index) => {
      const kind = kinds[index % kinds.length]!;
      const input = parse(orderSchema, demoOrder(kind, id, Number(id.name.slice(1))), 'demo order');
      return { kind, ...upsertOrder(store, input) };
    });
    return json(201, { store_domain: request.params.domain, orders });
  });
  router.add('PUT', `${control}/orders/:id/fulfillment-orders`, async (request) => {
    const { store, order } = withOrder(request);
    if (!order) return json(404, { errors: 'Not Found' });
    const input = parse(fulfillmentOrderSchema, request.body, 'fulfillment order');
    return json(200, { fulfillment_order: fulfillmentOrderToWire(storeFulfillmentOrder(store, order.id, input)) });
  });
  router.add('POST', `${control}/orders/:id/edits`, async (request) => {
    const { store, order } = withOrder(request);
    if (!order) return json(404, { errors: 'Not Found' });
    const edit = parse(orderEditSchema, request.body, 'order edit');
    const replaced = edit.replace.map(({ fulfillment_order_id: oldId, new: input }) => {
      const old = store.fulfillmentOrders.get(legacyIdOf(oldId));
      if (!old || old.orderId !== order.id)
        throw new BadRequest(`fulfillment order ${oldId} is not in order ${order.id}`);
      const created = storeFulfillmentOrder(store, order.id, input);
      // An edit closes the old fulfillment order and points to its replacement, as the platform does.
      old.status = 'closed';
      old.replaced_by.push(created.id);
      return { old: fulfillmentOrderToWire(old), new: fulfillmentOrderToWire(created) };
    });
    return json(200, { replaced });
  });
  router.add('POST', `${control}/fulfillment-orders/:id/hold`, async (request) => {
    const fo = state.store(request.params.domain!).fulfillmentOrders.get(legacyIdOf(request.params.id!));
    if (!fo) return json(404, { errors: 'Not Found' });
    const body = parse(
      z
        .object({ reason: z.string().nullable().default(null), by: z.enum(['export', 'merchant']).default('export') })
        .strict(),
      request.body ?? {},
      'hold body',
    );
    // The merchant holds it in the admin whatever else holds it.
    if (body.by === 'merchant') {
      fo.holds = [...fo.holds.filter((h) => h.held_by !== 'other'), { held_by: 'other', reason: body.reason }];
      return json(200, { fulfillment_order: fulfillmentOrderToWire(fo) });
    }
    // An app's hold keeps the admin and the automation tool from exporting, as the platform's fulfillment hold does.
    const appHold = fo.holds.find((h) => h.held_by === 'app');
    if (appHold)
      return json(409, {
        errors: `fulfillment order ${fo.id} is on hold by an app (${appHold.reason}); it cannot be exported until the hold is released`,
        code: 'held_by_app',
        holds: fo.holds,
      });
    fo.holds = [...fo.holds.filter((h) => h.held_by !== 'export'), { held_by: 'export', reason: body.reason }];
    return json(200, { fulfillment_order: fulfillmentOrderToWire(fo) });
  });
  router.add('POST', `${control}/fulfillment-orders/:id/release`, async (request) => {
    const fo = state.store(request.params.domain!).fulfillmentOrders.get(legacyIdOf(request.params.id!));
    if (!fo) return json(404, { errors: 'Not Found' });
    // Ends the export and the merchant's hold, as finishing the export or releasing it in the admin does.
    fo.holds = fo.holds.filter((h) => h.held_by === 'app');
    return json(200, { fulfillment_order: fulfillmentOrderToWire(fo) });
  });
  router.add('GET', `${control}/fulfillments`, async (request) =>
    json(200, { fulfillments: state.store(request.params.domain!).fulfillments }),
  );
  router.add('POST', `${control}/faults`, async (request) => {
    const body = parse(z.object({ faults: z.array(platformFaultSchema).min(1) }).strict(), request.body, 'faults body');
    const store = state.store(request.params.domain!);
    store.faults.push(...body.faults);
    return json(201, { store_domain: request.params.domain, faults: store.faults });
  });
  router.add('POST', `${control}/reset`, async (request) => {
    state.reset(request.params.domain!);
    return json(200, { store_domain: request.params.domain, reset: true });
  });
}

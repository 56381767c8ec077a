import { httpCall, HttpCallError, type HttpAnswer } from '../net/http-call';
import type { Money } from '../domain/money';
import {
  PlatformRequestError,
  PlatformUnavailableError,
  type Fulfillment,
  type FulfillmentOrderHold,
  type FulfillmentOrderHoldResult,
  type FulfillRequest,
  type PlatformFulfillmentOrder,
  type PlatformOrder,
  type PlatformOrderWithFulfillment,
  type PlatformPickupPoint,
  type StorePlatformPort,
} from './port';
import type { DeliveryMethodType, FulfillmentOrderStatus } from '../domain/platform-order';

interface WireOrder {
  id: string;
  legacy_id: string;
  name: string;
  currency: string;
  total_price: Money;
  subtotal_price: Money;
  total_outstanding: Money;
  payment_gateways: string[];
  metafields: Record<string, string>;
  shipping_address: {
    name: string;
    company: string | null;
    street: string;
    city: string;
    postcode: string;
    country: string;
    latitude?: number | null;
    longitude?: number | null;
  } | null;
  phone: string | null;
  email: string | null;
  delivery_method: {
    type: DeliveryMethodType;
    title: string | null;
    pickup_point: {
      id: string;
      carrier_code: string | null;
      name: string | null;
      country: string;
      customer_id?: string | null;
    } | null;
  };
  tags: string[];
  cancelled_at: string | null;
}

type WireHold =
  { held_by: 'export' | 'other'; reason: string | null } | { held_by: 'app'; reason: string; handle: string };

function toHold(h: WireHold): FulfillmentOrderHold {
  return h.held_by === 'app'
    ? { heldBy: 'app', reason: h.reason, handle: h.handle }
    : { heldBy: h.held_by, reason: h.reason };
}

interface WireFulfillmentOrder {
  id: string;
  legacy_id: string;
  order_id: string;
  status: FulfillmentOrderStatus;
  assigned_location: { id: string; name: string; fulfillment_service: string | null };
  delivery_method_type: DeliveryMethodType;
  line_items: {
    id: string;
    sku: string | null;
    quantity: number;
    total_after_discounts: Money;
    weight_grams: number | null;
  }[];
  holds: WireHold[];
  replaced_by: string[];
}

function toOrder(o: WireOrder): PlatformOrder {
  const point = o.delivery_method.pickup_point;
  return {
    id: o.id,
    legacyId: o.legacy_id,
    name: o.name,
    currency: o.currency,
    totalPrice: o.total_price,
    subtotalPrice: o.subtotal_price,
    totalOutstanding: o.total_outstanding,
    paymentGateways: o.payment_gateways,
    metafields: o.metafields,
    shippingAddress: o.shipping_address,
    phone: o.phone,
    email: o.email,
    deliveryMethod: {
      type: o.delivery_method.type,
      title: o.delivery_method.title,
      pickupPoint: point
        ? {
            id: point.id,
            carrierCode: point.carrier_code,
            name: point.name,
            country: point.country,
            customerId: point.customer_id ?? null,
          }
        : null,
    },
    tags: o.tags,
    cancelledAt: o.cancelled_at,
  };
}

function toFulfillmentOrder(f: WireFulfillmentOrder): PlatformFulfillmentOrder {
  return {
    id: f.id,
    legacyId: f.legacy_id,
    orderId: f.order_id,
    status: f.status,
    assignedLocation: {
      id: f.assigned_location.id,
      name: f.assigned_location.name,
      fulfillmentService: f.assigned_location.fulfillment_service,
    },
    deliveryMethodType: f.delivery_method_type,
    lineItems: f.line_items.map((l) => ({
      id: l.id,
      sku: l.sku,
      quantity: l.quantity,
      totalAfterDiscounts: l.total_after_discounts,
      weightGrams: l.weight_grams,
    })),
    holds: f.holds.map(toHold),
    replacedBy: f.replaced_by,
  };
}

/** The store-platform port over the sandbox's HTTP API, with a timeout per call. */
export class SandboxPlatformAdapter implements StorePlatformPort {
  constructor(private readonly options: { baseUrl: string; timeoutMs: number }) {}

  private async call<T>(
    what: string,
    domain: string,
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    path: string,
    body?: unknown,
  ): Promise<{ status: number; body: T }> {
    let response: HttpAnswer;
    try {
      response = await httpCall({
        url: `${this.options.baseUrl}/platform/stores/${encodeURIComponent(domain)}${path}`,
        method,
        ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
        timeoutMs: this.options.timeoutMs,
      });
    } catch (error) {
      if (error instanceof HttpCallError) throw new PlatformUnavailableError(what, false, null);
      throw error;
    }
    if (response.status === 429)
      throw new PlatformUnavailableError(what, true, Number(response.headers['retry-after'] ?? '') || null);
    // No usable session (token revoked, app uninstalled): nothing this call can fix, the same as unavailable.
    if (response.status === 401 || response.status === 403 || response.status >= 500)
      throw new PlatformUnavailableError(what, false, null);
    return { status: response.status, body: JSON.parse(response.bytes.toString('utf8')) as T };
  }

  async getOrder(storeDomain: string, orderId: string): Promise<PlatformOrder | null> {
    const { status, body } = await this.call<{ order: WireOrder }>(
      'order',
      storeDomain,
      'GET',
      `/orders/${encodeURIComponent(orderId)}`,
    );
    return status === 404 ? null : toOrder(body.order);
  }

  async getOrderWithFulfillmentOrders(
    storeDomain: string,
    orderId: string,
  ): Promise<PlatformOrderWithFulfillment | null> {
    const { status, body } = await this.call<{ order: WireOrder; fulfillment_orders: WireFulfillmentOrder[] }>(
      'order',
      storeDomain,
      'GET',
      `/orders/${encodeURIComponent(orderId)}?include=fulfillment_orders`,
    );
    if (status === 404) return null;
    return { order: toOrder(body.order), fulfillmentOrders: body.fulfillment_orders.map(toFulfillmentOrder) };
  }

  async findOrdersByName(storeDomain: string, name: string): Promise<PlatformOrder[]> {
    const { body } = await this.call<{ orders: WireOrder[] }>(
      'order',
      storeDomain,
      'GET',
      `/orders?name=${encodeURIComponent(name)}`,
    );
    return body.orders.map(toOrder);
  }

  async listFulfillmentOrders(storeDomain: string, orderId: string): Promise<PlatformFulfillmentOrder[]> {
    const { status, body } = await this.call<{ fulfillment_orders: WireFulfillmentOrder[] }>(
      'fulfillment_orders',
      storeDomain,
      'GET',
      `/orders/${encodeURIComponent(orderId)}/fulfillment-orders`,
    );
    return status === 404 ? [] : body.fulfillment_orders.map(toFulfillmentOrder);
  }

  async fulfill(storeDomain: string, request: FulfillRequest): Promise<Fulfillment> {
    const { status, body } = await this.call<{
      fulfillment: {
        id: string;
        fulfillment_order_ids: string[];
        tracking_number: string | null;
        tracking_url: string | null;
        notify_customer: boolean;
      };
      errors?: string;
      code?: string;
    }>('fulfillment', storeDomain, 'POST', '/fulfillments', {
      fulfillment_order_ids: request.fulfillmentOrderIds,
      tracking_number: request.trackingNumber,
      tracking_url: request.trackingUrl,
      carrier_name: request.carrierName,
      notify_customer: request.notifyCustomer,
    });
    if (status !== 201) throw new PlatformRequestError(body.code ?? 'refused', body.errors ?? 'fulfillment refused');
    const f = body.fulfillment;
    return {
      id: f.id,
      fulfillmentOrderIds: f.fulfillment_order_ids,
      trackingNumber: f.tracking_number,
      trackingUrl: f.tracking_url,
      notifyCustomer: f.notify_customer,
    };
  }

  async addOrderTags(storeDomain: string, orderId: string, tags: string[]): Promise<string[]> {
    const { status, body } = await this.call<{ tags: string[] }>(
      'order_tags',
      storeDomain,
      'POST',
      `/orders/${encodeURIComponent(orderId)}/tags`,
      { tags },
    );
    if (status === 404) throw new PlatformRequestError('not_found', `order ${orderId} not found`);
    if (status !== 200) throw new PlatformRequestError('refused', `adding tags refused with HTTP ${status}`);
    return body.tags;
  }

  async setOrderPickupPoint(storeDomain: string, orderId: string, point: PlatformPickupPoint): Promise<PlatformOrder> {
    const { status, body } = await this.call<{ order: WireOrder }>(
      'order_pickup_point',
      storeDomain,
      'PUT',
      `/orders/${encodeURIComponent(orderId)}/pickup-point`,
      {
        pickup_point: {
          id: point.id,
          carrier_code: point.carrierCode,
          name: point.name,
          country: point.country,
          customer_id: point.customerId ?? null,
        },
      },
    );
    if (status === 404) throw new PlatformRequestError('not_found', `order ${orderId} not found`);
    return toOrder(body.order);
  }

  async holdFulfillmentOrders(
    storeDomain: string,
    fulfillmentOrderIds: readonly string[],
    hold: { reason: string; handle: string },
  ): Promise<FulfillmentOrderHoldResult[]> {
    return this.eachHold(storeDomain, fulfillmentOrderIds, 'hold', (id) => ({
      method: 'POST',
      path: `/fulfillment-orders/${encodeURIComponent(id)}/holds`,
      body: { reason: hold.reason, handle: hold.handle },
    }));
  }

  async releaseFulfillmentOrderHolds(
    storeDomain: string,
    fulfillmentOrderIds: readonly string[],
    handle: string,
  ): Promise<FulfillmentOrderHoldResult[]> {
    return this.eachHold(storeDomain, fulfillmentOrderIds, 'hold release', (id) => ({
      method: 'DELETE',
      path: `/fulfillment-orders/${encodeURIComponent(id)}/holds/${encodeURIComponent(handle)}`,
    }));
  }

  /** One hold call per fulfillment order; a missing one is `not_found`, a closed one (`not_holdable`) `closed`. */
  private async eachHold(
    storeDomain: string,
    fulfillmentOrderIds: readonly string[],
    what: string,
    requestFor: (id: string) => { method: 'POST' | 'DELETE'; path: string; body?: unknown },
  ): Promise<FulfillmentOrderHoldResult[]> {
    const results: FulfillmentOrderHoldResult[] = [];
    for (const id of fulfillmentOrderIds) {
      const r = requestFor(id);
      const { status, body } = await this.call<{ errors?: string; code?: string }>(
        'fulfillment_order_hold',
        storeDomain,
        r.method,
        r.path,
        r.body,
      );
      if (status === 200) results.push({ fulfillmentOrderId: id, outcome: 'done' });
      else if (status === 404) results.push({ fulfillmentOrderId: id, outcome: 'not_found' });
      else if (body.code === 'not_holdable') results.push({ fulfillmentOrderId: id, outcome: 'closed' });
      else throw new PlatformRequestError(body.code ?? 'refused', body.errors ?? `${what} refused with HTTP ${status}`);
    }
    return results;
  }
}

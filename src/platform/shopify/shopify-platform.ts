import {
  PlatformRequestError,
  PlatformUnauthorizedError,
  PlatformUnavailableError,
  type Fulfillment,
  type FulfillmentOrderHoldResult,
  type FulfillRequest,
  type PlatformFulfillmentOrder,
  type PlatformOrder,
  type PlatformOrderWithFulfillment,
  type PlatformPickupPoint,
  type StorePlatformPort,
} from '../port';
import type { ShopifyGraphqlClient } from './graphql-client';
import {
  gidOf,
  normalizeOrderName,
  orderNameQuery,
  pickupPointToMove,
  pickupPointValue,
  toFulfillmentOrder,
  toOrder,
  type WireFulfillmentOrder,
  type WireOrder,
  type WireLine,
  type WirePageInfo,
} from './mapping';
import * as q from './queries';
import type { AdminDocument } from './queries';
import type { FulfillmentOrdersQuery } from './admin.generated';
import { planFulfilment, type FulfillmentOrderState } from './fulfilment-plan';
import { fulfillmentRefusal, type HoldUserError, type UserError } from './user-errors';

/** An order's page of fulfillment orders, as both fulfillment-order queries select it. */
type FulfillmentOrdersOfOrder = NonNullable<FulfillmentOrdersQuery['order']>;

/** The store's offline Admin API access token; null when it has none usable (`shopify_unavailable`). */
export type TokenFor = (shop: string) => Promise<string | null>;

/**
 * What a 401 to `used` leaves to try (decision 0710): a token for one more request, or it throws what the call ends
 * with. `afterRefresh`: the 401 answered a token already tried again.
 */
export type OnUnauthorized = (
  shop: string,
  what: string,
  used: string | null,
  afterRefresh: boolean,
) => Promise<string>;

/** `StorePlatformPort` over Shopify's Admin GraphQL API in the pinned version (docs/shopify.md). */
export class ShopifyPlatform implements StorePlatformPort {
  constructor(
    private readonly client: ShopifyGraphqlClient,
    private readonly tokenFor: TokenFor,
    private readonly onUnauthorized?: OnUnauthorized,
  ) {}

  /** One request; after a 401, at most one more with the token `onUnauthorized` gives (Shopify ran nothing on a 401). */
  private async call<T, V>(what: string, shop: string, document: AdminDocument<T, V>, variables: V): Promise<T> {
    const token = await this.tokenFor(shop);
    try {
      return await this.client.request(what, shop, token, document, variables);
    } catch (error) {
      if (!(error instanceof PlatformUnauthorizedError) || !this.onUnauthorized) throw error;
      const next = await this.onUnauthorized(shop, what, token, false);
      try {
        return await this.client.request(what, shop, next, document, variables);
      } catch (again) {
        if (!(again instanceof PlatformUnauthorizedError)) throw again;
        throw await this.onUnauthorized(shop, what, next, true).then(() => again);
      }
    }
  }

  /** The access scopes the store's installation of the app holds (`labelctl store connect` and `store platform`). */
  async grantedScopes(shop: string): Promise<string[]> {
    const data = await this.call('installation', shop, q.GRANTED_SCOPES, {});
    return data.currentAppInstallation.accessScopes.map((s) => s.handle);
  }

  /** The shop's name and its owner's e-mail (a store created by installing the app). */
  async shopContact(shop: string): Promise<{ name: string; email: string }> {
    const data = await this.call('installation', shop, q.SHOP_CONTACT, {});
    return { name: data.shop.name, email: data.shop.email };
  }

  async getOrder(shop: string, orderId: string): Promise<PlatformOrder | null> {
    const data = await this.call('order', shop, q.ORDER_BY_ID, {
      id: gidOf('Order', orderId),
    });
    if (!data.order) return null;
    await this.movePickupPoint(shop, data.order);
    return toOrder(data.order);
  }

  async findOrdersByName(shop: string, name: string): Promise<PlatformOrder[]> {
    const data = await this.call('order', shop, q.ORDERS_BY_NAME, {
      query: orderNameQuery(name),
    });
    const wanted = normalizeOrderName(name);
    return data.orders.nodes.filter((o) => normalizeOrderName(o.name) === wanted).map(toOrder);
  }

  async listFulfillmentOrders(shop: string, orderId: string): Promise<PlatformFulfillmentOrder[]> {
    const data = await this.call('fulfillment_orders', shop, q.FULFILLMENT_ORDERS, {
      id: gidOf('Order', orderId),
      after: null,
    });
    return data.order ? this.allFulfillmentOrders(shop, data.order) : [];
  }

  async getOrderWithFulfillmentOrders(shop: string, orderId: string): Promise<PlatformOrderWithFulfillment | null> {
    const data = await this.call('order', shop, q.ORDER_WITH_FULFILLMENT_ORDERS, {
      id: gidOf('Order', orderId),
      after: null,
    });
    const order = data.order;
    if (!order) return null;
    await this.movePickupPoint(shop, order);
    const firstPage = { id: order.id, fulfillmentOrders: order.fulfillmentOrdersPage };
    return { order: toOrder(order), fulfillmentOrders: await this.allFulfillmentOrders(shop, firstPage) };
  }

  /** The fulfillment orders of a first page and of every page after it, each with all its lines. */
  private async allFulfillmentOrders(shop: string, first: FulfillmentOrdersOfOrder) {
    const result: PlatformFulfillmentOrder[] = [];
    let order: FulfillmentOrdersOfOrder | null = first;
    while (order) {
      for (const fo of order.fulfillmentOrders.nodes)
        result.push(toFulfillmentOrder(order.id, fo, await this.allLines(shop, fo)));
      const page: WirePageInfo = order.fulfillmentOrders.pageInfo;
      if (!page.hasNextPage) break;
      const next: FulfillmentOrdersQuery = await this.call('fulfillment_orders', shop, q.FULFILLMENT_ORDERS, {
        id: first.id,
        after: page.endCursor,
      });
      order = next.order;
    }
    return result;
  }

  /** The first page of lines came with the fulfillment order; the rest page by page. */
  private async allLines(shop: string, fo: WireFulfillmentOrder): Promise<WireLine[]> {
    const lines = [...fo.lineItems.nodes];
    let page = fo.lineItems.pageInfo;
    while (page.hasNextPage && page.endCursor) {
      const data = await this.call('fulfillment_orders', shop, q.FULFILLMENT_ORDER_LINES, {
        id: fo.id,
        after: page.endCursor,
      });
      if (!data.fulfillmentOrder) break;
      lines.push(...data.fulfillmentOrder.lineItems.nodes);
      page = data.fulfillmentOrder.lineItems.pageInfo;
    }
    return lines;
  }

  /**
   * `fulfillmentCreate` takes fulfillment orders of one order at one location per call and no idempotency key: a label
   * across locations (`all_locations`) is fulfilled one location at a time, in the order the locations first appear,
   * after reading every fulfillment order's state. What an earlier attempt of this label fulfilled (closed by a
   * fulfilment with its tracking number) is done and not sent again, so a retry converges (decision 0715). Answers
   * the first fulfilment (every fulfillment order is in `fulfillmentOrderIds`); a refusal stops at that location.
   */
  async fulfill(shop: string, request: FulfillRequest): Promise<Fulfillment> {
    const gids = request.fulfillmentOrderIds.map((id) => gidOf('FulfillmentOrder', id));
    let first: Fulfillment | null = null;
    const answer = (id: string, tracking?: { number: string | null; url: string | null }): Fulfillment => ({
      id,
      fulfillmentOrderIds: gids,
      trackingNumber: tracking?.number ?? request.trackingNumber,
      trackingUrl: tracking?.url ?? request.trackingUrl,
      notifyCustomer: request.notifyCustomer,
    });
    for (const step of planFulfilment(gids, await this.fulfillmentOrderStates(shop, gids), request.trackingNumber)) {
      if (step.kind === 'done') {
        first ??= answer(step.fulfillmentId);
        continue;
      }
      const data = await this.call('fulfillment', shop, q.FULFILLMENT_CREATE, {
        fulfillment: {
          lineItemsByFulfillmentOrder: step.fulfillmentOrderIds.map((fulfillmentOrderId) => ({ fulfillmentOrderId })),
          trackingInfo: { number: request.trackingNumber, url: request.trackingUrl, company: request.carrierName },
          notifyCustomer: request.notifyCustomer,
        },
      });
      const { fulfillment, userErrors } = data.fulfillmentCreate ?? { fulfillment: null, userErrors: [] };
      if (userErrors.length > 0 || !fulfillment) throw fulfillmentRefusal(userErrors);
      first ??= answer(fulfillment.id, fulfillment.trackingInfo[0]);
    }
    return first!;
  }

  /** Each fulfillment order's status, location and fulfilments (one read), by GID; null for one Shopify has not. */
  private async fulfillmentOrderStates(shop: string, gids: readonly string[]) {
    const data = await this.call('fulfillment', shop, q.FULFILLMENT_ORDER_STATES, { ids: [...gids] });
    const states = new Map<string, FulfillmentOrderState | null>();
    gids.forEach((gid, i) => {
      const node = data.nodes[i];
      states.set(
        gid,
        node && 'status' in node
          ? {
              id: node.id,
              status: node.status,
              locationId: node.assignedLocation.location?.id ?? null,
              fulfillments: node.fulfillments.nodes.map((f) => ({
                id: f.id,
                status: f.status,
                trackingNumbers: f.trackingInfo.map((t) => t.number ?? null),
              })),
            }
          : null,
      );
    });
    return states;
  }

  async addOrderTags(shop: string, orderId: string, tags: string[]): Promise<string[]> {
    const data = await this.call('order_tags', shop, q.TAGS_ADD, { id: gidOf('Order', orderId), tags });
    const { node, userErrors } = data.tagsAdd ?? { node: null, userErrors: [] };
    if (userErrors.length > 0 || !node || !('tags' in node)) throw orderRefusal(orderId, 'adding tags', userErrors);
    return node.tags;
  }

  async setOrderPickupPoint(shop: string, orderId: string, point: PlatformPickupPoint): Promise<PlatformOrder> {
    const errors = await this.writePickupPoint(shop, gidOf('Order', orderId), point);
    if (errors.length > 0) throw orderRefusal(orderId, 'setting the pickup point', errors);
    const order = await this.getOrder(shop, orderId);
    if (!order) throw new PlatformRequestError('not_found', `order ${orderId} not found`);
    return order;
  }

  /** The point into the shared metafield (decision 0719); Shopify's user errors, none when written. */
  private async writePickupPoint(shop: string, orderGid: string, point: PlatformPickupPoint): Promise<UserError[]> {
    const data = await this.call('order_pickup_point', shop, q.PICKUP_POINT_SET, {
      metafields: [
        {
          ownerId: orderGid,
          namespace: q.PICKUP_POINT_NAMESPACE,
          key: q.PICKUP_POINT_METAFIELD_KEY,
          type: 'json',
          value: pickupPointValue(point),
        },
      ],
    });
    return data.metafieldsSet?.userErrors ?? [];
  }

  /**
   * Migration on read (decision 0719): a point found only in the app-reserved metafield, where the service wrote it
   * before, is copied to the shared one, so other apps and the checkout see it from now on. The read stands on its
   * own: a refused or failed copy changes nothing of it (the point is read from the old place) and the next read
   * tries again.
   */
  private async movePickupPoint(shop: string, order: WireOrder): Promise<void> {
    const point = pickupPointToMove(order);
    if (!point) return;
    try {
      await this.writePickupPoint(shop, order.id, point);
    } catch (error) {
      if (!(error instanceof PlatformRequestError) && !(error instanceof PlatformUnavailableError)) throw error;
    }
  }

  /**
   * The shared pickup-point metafield's definition on orders (decision 0719), at install and `labelctl store connect`:
   * a merchant-owned namespace (every app on the shop reads and writes it; Shopify refuses an `admin` access for it),
   * read by the Storefront API, checkout and customer accounts, and copied from the cart's metafield of the same name
   * when a checkout extension sets it there. `exists` when an earlier install or connect created it.
   */
  async ensurePickupPointDefinition(shop: string): Promise<'created' | 'exists'> {
    const data = await this.call('installation', shop, q.PICKUP_POINT_DEFINITION_CREATE, {
      definition: {
        name: 'Pickup point',
        description:
          'The carrier pickup point the parcel goes to (Shipping Label API): JSON {id, carrier_code, name, country, customer_id}',
        namespace: q.PICKUP_POINT_NAMESPACE,
        key: q.PICKUP_POINT_METAFIELD_KEY,
        type: 'json',
        ownerType: 'ORDER',
        access: { storefront: 'PUBLIC_READ', customerAccount: 'READ' },
      },
    });
    const errors = data.metafieldDefinitionCreate?.userErrors ?? [];
    if (errors.length === 0) return 'created';
    if (errors.every((e) => e.code === 'TAKEN')) return 'exists';
    throw new PlatformRequestError(
      'refused',
      `Shopify refused the pickup point's metafield definition: ${errors.map((e) => e.message).join('; ')}`,
    );
  }

  async holdFulfillmentOrders(
    shop: string,
    fulfillmentOrderIds: readonly string[],
    hold: { reason: string; handle: string },
  ): Promise<FulfillmentOrderHoldResult[]> {
    const results: FulfillmentOrderHoldResult[] = [];
    for (const id of fulfillmentOrderIds) {
      const data = await this.call('fulfillment_order_hold', shop, q.FULFILLMENT_ORDER_HOLD, {
        id: gidOf('FulfillmentOrder', id),
        hold: { reason: 'OTHER', reasonNotes: hold.reason, handle: hold.handle },
      });
      results.push({
        fulfillmentOrderId: id,
        outcome: await this.holdOutcome(shop, id, data.fulfillmentOrderHold?.userErrors ?? []),
      });
    }
    return results;
  }

  /**
   * A hold's refusal as the port's outcome: our handle already on it is done (the call is idempotent); a missing
   * fulfillment order `not_found`; otherwise a closed or cancelled one is `closed` (Shopify says so in words only, so
   * its status is read), and anything else a `PlatformRequestError`.
   */
  private async holdOutcome(
    shop: string,
    id: string,
    errors: HoldUserError[],
  ): Promise<FulfillmentOrderHoldResult['outcome']> {
    if (errors.length === 0 || errors.every((e) => e.code === 'DUPLICATE_FULFILLMENT_HOLD_HANDLE')) return 'done';
    if (errors.some((e) => e.code === 'FULFILLMENT_ORDER_NOT_FOUND')) return 'not_found';
    const fo = await this.holdsOf(shop, id);
    if (!fo) return 'not_found';
    if (fo.status === 'CLOSED' || fo.status === 'CANCELLED') return 'closed';
    throw new PlatformRequestError('hold_refused', errors.map((e) => e.message).join('; '));
  }

  private async holdsOf(shop: string, id: string) {
    const data = await this.call('fulfillment_order_hold', shop, q.FULFILLMENT_ORDER_HOLDS, {
      id: gidOf('FulfillmentOrder', id),
    });
    return data.fulfillmentOrder;
  }

  async releaseFulfillmentOrderHolds(
    shop: string,
    fulfillmentOrderIds: readonly string[],
    handle: string,
  ): Promise<FulfillmentOrderHoldResult[]> {
    const results: FulfillmentOrderHoldResult[] = [];
    for (const id of fulfillmentOrderIds) {
      // Shopify releases holds by ID: ours under this handle, read first; none left is done.
      const fo = await this.holdsOf(shop, id);
      if (!fo) {
        results.push({ fulfillmentOrderId: id, outcome: 'not_found' });
        continue;
      }
      const holdIds = fo.fulfillmentHolds.filter((h) => h.heldByRequestingApp && h.handle === handle).map((h) => h.id);
      if (holdIds.length > 0) {
        const data = await this.call('fulfillment_order_hold', shop, q.FULFILLMENT_ORDER_RELEASE_HOLD, {
          id: gidOf('FulfillmentOrder', id),
          holdIds,
        });
        const errors = data.fulfillmentOrderReleaseHold?.userErrors ?? [];
        if (errors.some((e) => e.code === 'FULFILLMENT_ORDER_NOT_FOUND')) {
          results.push({ fulfillmentOrderId: id, outcome: 'not_found' });
          continue;
        }
        if (errors.length > 0)
          throw new PlatformRequestError('release_refused', errors.map((e) => e.message).join('; '));
      }
      results.push({ fulfillmentOrderId: id, outcome: 'done' });
    }
    return results;
  }
}

function orderRefusal(orderId: string, what: string, errors: UserError[]): PlatformRequestError {
  if (errors.length === 0 || errors.some((e) => /not (be )?found|does not exist/i.test(e.message)))
    return new PlatformRequestError('not_found', `order ${orderId} not found`);
  return new PlatformRequestError('refused', `${what} refused: ${errors.map((e) => e.message).join('; ')}`);
}

import type { EntityManager } from '@mikro-orm/postgresql';
import { Store } from '../db/entities/store';
import { readOrderLabels, type LabelRecord } from '../db/labels-query';
import { fromPlatform } from '../platform/unavailable';
import { DomainError } from '../domain/errors';
import type { OrderFacts, OrderLabelFacts } from '../domain/order-status';
import { parseOrderId } from '../domain/platform-ids';
import { type PlatformFulfillmentOrder, type PlatformOrder, type StorePlatformPort } from '../platform/port';

/** Spec `shopify_unavailable`: `Retry-After: 5`. */
export interface PlatformOrderRef {
  store: Store;
  order: PlatformOrder;
}

/** The store and the order's GID; a malformed ID answers `not_found`. */
async function storeAndOrderGid(em: EntityManager, storeId: string, orderRef: string) {
  const id = parseOrderId(orderRef);
  if (!id) throw new DomainError('not_found');
  return { store: await em.findOneOrFail(Store, { id: storeId }), gid: id.gid };
}

/** The order by numeric ID or GID; a malformed ID, another store's and a missing one all answer `not_found`. */
export async function readPlatformOrder(
  em: EntityManager,
  platform: Pick<StorePlatformPort, 'getOrder'>,
  storeId: string,
  orderRef: string,
): Promise<PlatformOrderRef> {
  const { store, gid } = await storeAndOrderGid(em, storeId, orderRef);
  const order = await fromPlatform('order', () => platform.getOrder(store.domain, gid));
  if (!order) throw new DomainError('not_found');
  return { store, order };
}

export interface OrderSnapshot extends PlatformOrderRef {
  fulfillmentOrders: PlatformFulfillmentOrder[];
  /** Every label of the order, oldest first (same-second labels in insertion order). */
  labels: LabelRecord[];
}

/**
 * The order with its fulfillment orders (one platform read) and, beside it, its labels; a malformed ID, another
 * store's and a missing one all answer `not_found`.
 */
export async function readOrder(
  em: EntityManager,
  platform: Pick<StorePlatformPort, 'getOrderWithFulfillmentOrders'>,
  storeId: string,
  orderRef: string,
): Promise<OrderSnapshot> {
  const { store, gid } = await storeAndOrderGid(em, storeId, orderRef);
  const [found, labels] = await Promise.all([
    fromPlatform('order', () => platform.getOrderWithFulfillmentOrders(store.domain, gid)),
    readOrderLabels(em, storeId, gid),
  ]);
  if (!found) throw new DomainError('not_found');
  return { store, order: found.order, fulfillmentOrders: found.fulfillmentOrders, labels };
}

export function orderFacts(snapshot: Pick<OrderSnapshot, 'order' | 'fulfillmentOrders'>): OrderFacts {
  const { order } = snapshot;
  return {
    cancelled: order.cancelledAt !== null,
    deliveryMethod: { type: order.deliveryMethod.type, title: order.deliveryMethod.title },
    hasPickupPoint: order.deliveryMethod.pickupPoint !== null,
    fulfillmentOrders: snapshot.fulfillmentOrders.map((fo) => ({
      status: fo.status,
      deliveryMethodType: fo.deliveryMethodType,
      held: fo.holds.length > 0,
      byService: fo.assignedLocation.fulfillmentService !== null,
    })),
  };
}

export function labelFacts(labels: readonly LabelRecord[]): OrderLabelFacts[] {
  return labels.map((l) => ({
    id: l.id,
    direction: l.direction,
    kind: l.kind,
    status: l.status,
    current: l.current,
    currentSet: l.currentSet,
  }));
}

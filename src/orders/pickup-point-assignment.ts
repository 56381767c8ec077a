import type { EntityManager } from '@mikro-orm/postgresql';
import { CarrierTimeoutError, CarrierUnavailableError } from '../carriers/port';
import { DomainError } from '../domain/errors';
import { pickupPointChangeRefusal } from '../domain/order-status';
import { pointChoiceRefusal, type GeoPoint, type PickupPoint } from '../domain/pickup-points';
import { findHolders } from '../locks/holders';
import type { FulfillmentOrderHolder } from '../domain/holders';
import type { StorePlatformPort } from '../platform/port';
import { loadNetworkReach } from '../pickup-points/networks';
import { lookUpPoint, searchNetwork, type PickupPointSources } from '../pickup-points/search';
import { fromPlatform } from '../platform/unavailable';
import { labelFacts, orderFacts, readOrder, type OrderSnapshot } from './order-reader';
import { orderLocation } from './pickup-point-listing';

/** Spec `creation_in_progress`: `Retry-After: 5`. */
const HELD_RETRY_AFTER_SECONDS = 5;

export interface AssignmentDeps {
  em: EntityManager;
  platform: Pick<StorePlatformPort, 'getOrderWithFulfillmentOrders' | 'setOrderPickupPoint'>;
  sources: PickupPointSources;
  settingsKey: Buffer;
}

export interface PickupPointAssignment {
  storeId: string;
  orderRef: string;
  /** Network code: `carrier_a`, ..., or `custom:<code>`. */
  carrier: string;
  pickupPointId: string;
  customerId: string | null;
}

/** A creation holds before an export: it names the `lcr_` to wait for. */
function mainHolder(holders: readonly FulfillmentOrderHolder[]): FulfillmentOrderHolder {
  return holders.find((h) => h.heldBy === 'creation') ?? holders[0]!;
}

/**
 * Spec `PUT /orders/{order_id}/pickup-point`: checks the order (eligibility, labels, who holds its fulfillment
 * orders), then the point (`pickup_point_not_available` reasons), then writes it to the store platform, where the
 * next label creation reads it. Returns the order as it is now.
 */
export async function assignPickupPoint(deps: AssignmentDeps, input: PickupPointAssignment): Promise<OrderSnapshot> {
  const snapshot = await readOrder(deps.em, deps.platform, input.storeId, input.orderRef);
  const { order } = snapshot;
  const refusal = pickupPointChangeRefusal(orderFacts(snapshot), labelFacts(snapshot.labels));
  if (refusal?.code === 'order_not_eligible')
    throw new DomainError('order_not_eligible', {
      details: {
        reason: refusal.reason,
        order_id: order.id,
        delivery_method: order.deliveryMethod.type,
        ...(refusal.reason === 'order_cancelled' ? { status: 'cancelled' } : {}),
      },
    });
  if (refusal?.code === 'label_exists')
    throw new DomainError('label_exists', { details: { reason: refusal.reason, label_ids: refusal.labelIds } });

  const holders = await findHolders(deps.em, {
    storeId: input.storeId,
    fulfillmentOrders: snapshot.fulfillmentOrders,
  });
  if (holders.length > 0) {
    const holder = mainHolder(holders);
    throw new DomainError('creation_in_progress', {
      details: { held_by: holder.heldBy, label_creation_id: holder.labelCreationId },
      retryAfterSeconds: HELD_RETRY_AFTER_SECONDS,
    });
  }

  const reach = await loadNetworkReach(
    deps.em,
    deps.settingsKey,
    input.storeId,
    order.deliveryMethod,
    deps.sources.logger,
  );
  const refuse = (reason: string) =>
    new DomainError('pickup_point_not_available', {
      details: { reason, carriers: reach.networks.map((n) => n.code) },
    });
  const network = reach.networks.find((n) => n.code === input.carrier) ?? null;
  if (!network) throw refuse('carrier_not_offered');

  const lookup = await networkCall(() => lookUpPoint(deps.sources, reach, network, input.pickupPointId));
  let nearby: PickupPoint | null = null;
  let amongNearest = false;
  const location: (GeoPoint & { countryCode: string }) | null = orderLocation(order);
  if (lookup.lookup !== 'missing' && location) {
    const search = await searchNetwork(deps.sources, reach, network, {
      location,
      countryCode: location.countryCode,
      shop: snapshot.store.domain,
    });
    if (search.status === 'unavailable') throw unavailable(search.failure === 'timeout');
    nearby = search.points.find((p) => p.item.id === input.pickupPointId)?.item ?? null;
    amongNearest = nearby !== null;
  } else if (lookup.lookup === 'found') {
    // Without coordinates "nearest" has no meaning; the carrier's lookup is all there is to check.
    amongNearest = true;
  }
  const point = lookup.lookup === 'found' ? lookup.point : nearby;
  const reason = pointChoiceRefusal({
    network,
    lookup: lookup.lookup,
    amongNearest,
    point,
    customerIdGiven: input.customerId !== null,
  });
  if (reason || !point) throw refuse(reason ?? 'not_found_nearby');

  const updated = await fromPlatform('order_pickup_point', () =>
    deps.platform.setOrderPickupPoint(snapshot.store.domain, order.id, {
      id: point.id,
      carrierCode: network.code,
      name: point.name,
      country: point.country,
      customerId: point.requiresCustomerId ? input.customerId : null,
    }),
  );
  return { ...snapshot, order: updated };
}

function unavailable(timeout: boolean): DomainError {
  return new DomainError('carrier_unavailable', {
    message: 'The pickup point network could not be asked whether the point exists; try again.',
    details: { reason: timeout ? 'timeout' : 'carrier_error' },
    retryAfterSeconds: HELD_RETRY_AFTER_SECONDS,
  });
}

/** A carrier lookup that fails is `carrier_unavailable`: the point can be neither confirmed nor refused. */
async function networkCall<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof CarrierTimeoutError) throw unavailable(true);
    if (error instanceof CarrierUnavailableError) throw unavailable(false);
    throw error;
  }
}

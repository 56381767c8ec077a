import type { EntityManager } from '@mikro-orm/postgresql';
import { DomainError } from '../domain/errors';
import { isPickupPointMethod, type GeoPoint } from '../domain/pickup-points';
import type { PlatformOrder, StorePlatformPort } from '../platform/port';
import { loadNetworkReach } from '../pickup-points/networks';
import {
  searchNetworks,
  type NetworkPoint,
  type NetworkSearch,
  type PickupPointSources,
} from '../pickup-points/search';
import { readPlatformOrder } from './order-reader';

export interface ListingDeps {
  em: EntityManager;
  platform: Pick<StorePlatformPort, 'getOrder'>;
  sources: PickupPointSources;
  settingsKey: Buffer;
}

export interface PickupPointQuery {
  storeId: string;
  orderRef: string;
  /** Network codes to search; absent: every network the delivery method allows. */
  carriers?: string[];
  limit: number;
  /** Search here instead of at the shipping address. */
  location?: GeoPoint;
  countryCode?: string;
}

export interface SearchLocation extends GeoPoint {
  countryCode: string;
  source: 'shipping_address' | 'request';
}

export interface PickupPointListing {
  location: SearchLocation;
  points: NetworkPoint[];
  searches: NetworkSearch[];
}

/** Where the platform geocoded the order's shipping address, with its country; null without coordinates. */
export function orderLocation(order: PlatformOrder): (GeoPoint & { countryCode: string }) | null {
  const address = order.shippingAddress;
  if (!address || typeof address.latitude !== 'number' || typeof address.longitude !== 'number') return null;
  return { latitude: address.latitude, longitude: address.longitude, countryCode: address.country };
}

function searchLocation(order: PlatformOrder, query: PickupPointQuery): SearchLocation {
  const countryCode = query.countryCode ?? order.shippingAddress?.country;
  if (!countryCode)
    throw new DomainError('validation_error', {
      message: 'The order has no shipping address; send `country_code` with `latitude` and `longitude`.',
      details: { parameter: 'country_code', received: null },
    });
  if (query.location) return { ...query.location, countryCode, source: 'request' };
  const fromAddress = orderLocation(order);
  if (!fromAddress)
    throw new DomainError('validation_error', {
      message: "The order's shipping address has no coordinates; send `latitude` and `longitude`.",
      details: { parameter: 'latitude', received: null },
    });
  return { latitude: fromAddress.latitude, longitude: fromAddress.longitude, countryCode, source: 'shipping_address' };
}

/**
 * Spec `GET /orders/{order_id}/pickup-points`: the nearest points of every network the order's delivery method
 * allows (carriers and custom providers), merged by distance. A network that fails is reported in `searches`;
 * only when every network fails is the answer `carrier_unavailable`.
 */
export async function listOrderPickupPoints(deps: ListingDeps, query: PickupPointQuery): Promise<PickupPointListing> {
  const { store, order } = await readPlatformOrder(deps.em, deps.platform, query.storeId, query.orderRef);
  if (!isPickupPointMethod(order.deliveryMethod))
    throw new DomainError('order_not_eligible', {
      details: { reason: 'no_pickup_point_method', order_id: order.id, delivery_method: order.deliveryMethod.type },
    });
  const reach = await loadNetworkReach(
    deps.em,
    deps.settingsKey,
    query.storeId,
    order.deliveryMethod,
    deps.sources.logger,
  );
  if (query.carriers) {
    const allowed = reach.networks.map((n) => n.code);
    const unknown = query.carriers.find((c) => !allowed.includes(c));
    if (unknown !== undefined)
      throw new DomainError('validation_error', {
        message: `\`carrier\`: ${JSON.stringify(unknown.slice(0, 60))} is not a network this order's delivery method allows.`,
        details: { parameter: 'carrier', received: unknown.slice(0, 100), allowed },
      });
    reach.networks = reach.networks.filter((n) => query.carriers!.includes(n.code));
  }
  const location = searchLocation(order, query);
  const result = await searchNetworks(
    deps.sources,
    reach,
    { location, countryCode: location.countryCode, shop: store.domain },
    query.limit,
  );
  if (result.searches.length > 0 && result.searches.every((s) => s.status === 'unavailable')) {
    throw new DomainError('carrier_unavailable', {
      message: 'No pickup point network answered; try again.',
      details: { reason: result.searches.every((s) => s.failure === 'timeout') ? 'timeout' : 'carrier_error' },
      retryAfterSeconds: 5,
    });
  }
  return { location, points: result.points, searches: result.searches };
}

import type { PacketaPointView, PacketaPointsStore } from '../../../db/packeta-pickup-points';
import { MAX_PICKUP_POINTS, type OpeningHours, type PickupPoint } from '../../../domain/pickup-points';
import { CarrierUnavailableError, type PickupNetworkPort } from '../../port';

/**
 * Packeta's pickup-point network for the pickup-network port, answered from the imported feed (decision 1222) instead
 * of a call to Packeta per search: the nearest points a customer can be sent to, nearest first, in the searched
 * country; one point by its ID. A point that left the feed, is not in operation (`status.statusId` other than 1), is
 * not to be shown to customers (`displayFrontend` 0), or is outside Packeta's dates today is neither listed nor found.
 * Before any import has succeeded the network is unavailable, not empty.
 */

/** Packeta's dates are its own days: today in Prague. */
export function packetaDay(now: Date): string {
  return new Intl.DateTimeFormat('en-CA', {
    timeZone: 'Europe/Prague',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(now);
}

/** The hours in force on `day`: the announced week from its start date, else the regular one. */
export function hoursOn(point: Pick<PacketaPointView, 'openingHours'>, day: string): OpeningHours {
  const { regular, upcoming } = point.openingHours;
  return upcoming && upcoming.startDate <= day ? upcoming.days : regular;
}

export function toPickupPoint(point: PacketaPointView, day: string): PickupPoint {
  const { id, name, place, street, city, zip, country, latitude, longitude } = point;
  // Z-BOX and AlzaBox are lockers; branches are staffed pickup points.
  const type = point.feedFile === 'box' ? 'locker' : 'pickup_point';
  // No pin: the feed's photos are 160x120 and up, the contract's pin 50x75. No customer ID: anyone with the packet's
  // code opens a Z-BOX (Packeta's app); nobody registers with the network.
  const shown = { pinUrl: null, openingHours: hoursOn(point, day), requiresCustomerId: false };
  return { id, type, name, place, street, city, zip, country, latitude, longitude, ...shown };
}

/**
 * The network src/adapters.ts hands the Packeta adapter (`pickupPoints: packetaPickupNetwork(packetaPointsStore(orm.em))`)
 * for accounts on Packeta's endpoint. Every account reaches the same network (the feed is Packeta's, not an account's),
 * so the account is not read.
 */
export function packetaPickupNetwork(
  points: Pick<PacketaPointsStore, 'nearest' | 'offerable' | 'everImported'>,
  now: () => Date = () => new Date(),
): PickupNetworkPort {
  const notLoaded = async () => {
    if (!(await points.everImported())) throw new CarrierUnavailableError('carrier_error', null);
  };
  return {
    searchPickupPoints: async (_account, search) => {
      const day = packetaDay(now());
      const found = await points.nearest({
        latitude: search.latitude,
        longitude: search.longitude,
        country: search.countryCode.toUpperCase(),
        limit: Math.min(Math.max(1, search.limit), MAX_PICKUP_POINTS),
        day,
      });
      if (found.length === 0) await notLoaded();
      return found.map((p) => toPickupPoint(p, day));
    },
    findPickupPoint: async (_account, pointId) => {
      if (!/^\d{1,10}$/.test(pointId)) return null;
      const day = packetaDay(now());
      const point = await points.offerable(pointId, day);
      if (!point) await notLoaded();
      return point ? toPickupPoint(point, day) : null;
    },
  };
}

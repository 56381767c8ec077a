import { parseOpeningWeek, type PickupPoint } from '../../domain/pickup-points';
import type { CarrierAccountSettings, PickupNetworkPort, PickupPointSearch } from '../port';
import type { SandboxPickupPoint } from '../sandbox-api/pickup-points';
import type { carrierCaller } from './shared';

/** A point as the simulated networks send it (src/carriers/sandbox-api/pickup-points.ts). */
type WirePoint = SandboxPickupPoint;

function toPoint(p: WirePoint): PickupPoint {
  return {
    id: p.id,
    type: p.kind,
    name: p.name,
    place: p.place,
    street: p.street,
    city: p.city,
    zip: p.zip,
    country: p.country,
    latitude: p.latitude,
    longitude: p.longitude,
    pinUrl: p.pin_url,
    openingHours: parseOpeningWeek(p.opening_hours).hours,
    requiresCustomerId: p.requires_customer_id,
  };
}

/** The pickup-point calls of a carrier whose network lives at `{account base}/{collection}`. */
export function pickupNetworkCalls(
  call: ReturnType<typeof carrierCaller>,
  base: (account: CarrierAccountSettings) => string,
  collection: string,
): PickupNetworkPort {
  return {
    searchPickupPoints: async (account: CarrierAccountSettings, search: PickupPointSearch): Promise<PickupPoint[]> => {
      const query = new URLSearchParams({
        latitude: String(search.latitude),
        longitude: String(search.longitude),
        country: search.countryCode,
        limit: String(search.limit),
      });
      const response = await call(account, {
        method: 'GET',
        path: `${base(account)}/${collection}?${query.toString()}`,
        operation: 'pickup_points',
      });
      return response.json<{ points: WirePoint[] }>().points.map(toPoint);
    },
    findPickupPoint: async (account: CarrierAccountSettings, pointId: string): Promise<PickupPoint | null> => {
      const response = await call(account, {
        method: 'GET',
        path: `${base(account)}/${collection}/${encodeURIComponent(pointId)}`,
        operation: 'pickup_points',
      });
      return response.status === 404 ? null : toPoint(response.json<WirePoint>());
    },
  };
}

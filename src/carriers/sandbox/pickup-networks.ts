import type { SandboxPickupPoint } from '../sandbox-api/pickup-points';
import { carrierDefinition, pickupPointId } from '../../domain/carrier-catalog';
import { distanceMeters, MAX_PICKUP_POINTS } from '../../domain/pickup-points';
import { BadRequest, json, type Router } from '../../sandbox/http';
import { notFound, operationFault, type SimulatorContext } from './engine';

/**
 * The pickup-point networks of the simulated carriers A, C and D: a fixed, generated set of points around four
 * cities, each carrier with IDs in its own format (catalogue `pickupNetwork.idFormat`) and its own kinds of point.
 * Every test and every run sees the same points.
 */

const CITIES = [
  { city: 'Praha', country: 'CZ', zip: '110 00', latitude: 50.0755, longitude: 14.4378, spread: 0.06, count: 60 },
  { city: 'Brno', country: 'CZ', zip: '602 00', latitude: 49.1951, longitude: 16.6068, spread: 0.04, count: 12 },
  { city: 'Bratislava', country: 'SK', zip: '811 01', latitude: 48.1486, longitude: 17.1077, spread: 0.04, count: 12 },
  { city: 'Budapest', country: 'HU', zip: '1051', latitude: 47.4979, longitude: 19.0402, spread: 0.05, count: 12 },
] as const;

const STREETS = ['Dlouhá', 'Vinohradská', 'Národní', 'Masarykova', 'Hlavná', 'Andrássy út', 'Palackého', 'Nádražní'];

const SHOP_HOURS = {
  monday: '08:00 - 12:00, 13:00 - 18:00',
  tuesday: '08:00 - 12:00, 13:00 - 18:00',
  wednesday: '08:00 - 12:00, 13:00 - 18:00',
  thursday: '08:00 - 12:00, 13:00 - 18:00',
  friday: '08:00 - 12:00, 13:00 - 18:00',
  saturday: '09:00 - 12:00',
};
const ALWAYS_OPEN = Object.fromEntries(
  ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'].map((d) => [d, '00:00 - 24:00']),
);

interface NetworkStyle {
  /** Point numbers start above this, so every ID has the format's full count of digits. */
  firstNumber: number;
  /** Every n-th point is a locker. */
  lockerEvery: number;
  /** Lockers that hand parcels out only to registered recipients (customer ID). */
  lockersNeedCustomerId: boolean;
}

const STYLES: Record<string, NetworkStyle> = {
  carrier_a: { firstNumber: 1000, lockerEvery: 5, lockersNeedCustomerId: false },
  carrier_c: { firstNumber: 10000, lockerEvery: 4, lockersNeedCustomerId: false },
  carrier_d: { firstNumber: 10000000, lockerEvery: 6, lockersNeedCustomerId: true },
};

/** A small linear congruential generator: the same points on every run. */
function generator(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

function buildNetwork(carrierCode: string, style: NetworkStyle, seed: number): SandboxPickupPoint[] {
  const random = generator(seed);
  const points: SandboxPickupPoint[] = [];
  const { name: carrierName, pickupNetwork } = carrierDefinition(carrierCode);
  if (!pickupNetwork) throw new Error(`${carrierCode} has no pickup-point network in the catalogue`);
  let sequence = 0;
  for (const c of CITIES) {
    for (let i = 0; i < c.count; i += 1) {
      sequence += 1;
      const locker = sequence % style.lockerEvery === 0;
      const street = `${STREETS[sequence % STREETS.length]} ${1 + Math.floor(random() * 120)}`;
      points.push({
        id: pickupPointId(pickupNetwork.idFormat, style.firstNumber + sequence, c.country),
        kind: locker ? 'locker' : 'pickup_point',
        name: `${carrierName} ${locker ? 'locker' : 'point'} ${street}`,
        place: locker ? 'Shopping centre' : null,
        street,
        city: c.city,
        zip: c.zip,
        country: c.country,
        latitude: Math.round((c.latitude + (random() * 2 - 1) * c.spread) * 1e6) / 1e6,
        longitude: Math.round((c.longitude + (random() * 2 - 1) * c.spread * 1.5) * 1e6) / 1e6,
        opening_hours: locker ? ALWAYS_OPEN : SHOP_HOURS,
        requires_customer_id: locker && style.lockersNeedCustomerId,
        pin_url: null,
      });
    }
  }
  return points;
}

export const SANDBOX_PICKUP_NETWORKS: Readonly<Record<string, readonly SandboxPickupPoint[]>> = Object.fromEntries(
  Object.entries(STYLES).map(([code, style], index) => [code, buildNetwork(code, style, 7919 * (index + 1))]),
);

function coordinate(value: string | null, name: string, max: number): number {
  const n = Number(value);
  if (value === null || value.trim() === '' || !Number.isFinite(n) || Math.abs(n) > max)
    throw new BadRequest(`${name} must be a number between -${max} and ${max}`);
  return n;
}

/** `GET {base}/{collection}?latitude&longitude&country&limit` (nearest first) and `GET {base}/{collection}/{id}`. */
export function registerPickupNetwork(
  router: Router,
  ctx: SimulatorContext,
  carrier: { code: string; base: string; collection: string },
): void {
  const points = SANDBOX_PICKUP_NETWORKS[carrier.code] ?? [];
  router.add('GET', `${carrier.base}/${carrier.collection}`, async (request) => {
    const fault = await operationFault(ctx, carrier.code, request, 'pickup_points');
    if (fault) return fault;
    const origin = {
      latitude: coordinate(request.query.get('latitude'), 'latitude', 90),
      longitude: coordinate(request.query.get('longitude'), 'longitude', 180),
    };
    const country = request.query.get('country');
    const limit = Math.min(Number(request.query.get('limit') ?? MAX_PICKUP_POINTS) || MAX_PICKUP_POINTS, 100);
    const nearest = points
      .filter((p) => !country || p.country === country)
      .map((p) => ({ p, d: distanceMeters(origin, p) }))
      .sort((a, b) => a.d - b.d)
      .slice(0, limit)
      .map(({ p }) => p);
    return json(200, { points: nearest });
  });
  router.add('GET', `${carrier.base}/${carrier.collection}/:id`, async (request) => {
    const fault = await operationFault(ctx, carrier.code, request, 'pickup_points');
    if (fault) return fault;
    const point = points.find((p) => p.id === request.params.id);
    return point ? json(200, point) : notFound('pickup point');
  });
}

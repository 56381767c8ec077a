/**
 * The fake Packeta's network: pickup points and Z-BOXes (its branch feed's objects) and the home-delivery carriers
 * (its carrier feed's), fixed and the same on every run. Fields and meanings follow the v5 feeds (docs
 * `pick-up-point-selection/branch-export-v5`, `home-delivery/carriers`): `status.statusId` 1 is in operation, 5 ended
 * cooperation; a box with `codAllowed` 0 takes no COD; a carrier with `disallowsCod` none either. The carrier ID 106
 * (Packeta Home CZ) is the docs' example; the other carrier IDs are the fake's own.
 */

export interface FakeBranch {
  id: string;
  type: 'branch' | 'zbox';
  name: string;
  street: string;
  city: string;
  zip: string;
  /** ISO 3166-1 alpha-2, upper case (the feed writes it lower case). */
  country: string;
  currency: string;
  latitude: number;
  longitude: number;
  statusId: 1 | 2 | 3 | 4 | 5;
  codAllowed: boolean;
  maxWeightKg: number;
}

export interface FakeCarrier {
  id: string;
  name: string;
  country: string;
  currency: string;
  maxWeightKg: number;
  disallowsCod: boolean;
}

const CITIES = [
  { first: 4001, city: 'Praha', country: 'CZ', currency: 'CZK', zip: '110 00', latitude: 50.0755, longitude: 14.4378 },
  {
    first: 5001,
    city: 'Bratislava',
    country: 'SK',
    currency: 'EUR',
    zip: '811 01',
    latitude: 48.1486,
    longitude: 17.1077,
  },
  { first: 6001, city: 'Budapest', country: 'HU', currency: 'HUF', zip: '1051', latitude: 47.4979, longitude: 19.0402 },
  {
    first: 7001,
    city: 'București',
    country: 'RO',
    currency: 'RON',
    zip: '010011',
    latitude: 44.4268,
    longitude: 26.1025,
  },
] as const;

const POINTS_PER_CITY = 20;

/**
 * Per city: every 5th point a Z-BOX (the first of each pair of boxes without COD), the last point ended its
 * cooperation. So in Praha 4001 is a point in operation, 4005 a box without COD, 4010 a box with COD, 4020 ended.
 */
function cityBranches(c: (typeof CITIES)[number]): FakeBranch[] {
  return Array.from({ length: POINTS_PER_CITY }, (_, i) => {
    const n = i + 1;
    const box = n % 5 === 0;
    return {
      id: String(c.first + i),
      type: box ? 'zbox' : 'branch',
      name: `${box ? 'Z-BOX' : 'Packeta'} ${c.city} ${n}`,
      street: `Hlavní ${n}`,
      city: c.city,
      zip: c.zip,
      country: c.country,
      currency: c.currency,
      latitude: Number((c.latitude + ((n % 7) - 3) * 0.004).toFixed(6)),
      longitude: Number((c.longitude + (Math.floor(n / 7) - 1) * 0.006).toFixed(6)),
      statusId: n === POINTS_PER_CITY ? 5 : 1,
      codAllowed: !(box && n % 10 === 5),
      maxWeightKg: box ? 10 : 15,
    };
  });
}

export const FAKE_BRANCHES: readonly FakeBranch[] = CITIES.flatMap(cityBranches);

export const FAKE_CARRIERS: readonly FakeCarrier[] = [
  { id: '106', name: 'CZ Packeta Home', country: 'CZ', currency: 'CZK', maxWeightKg: 30, disallowsCod: false },
  { id: '131', name: 'SK Packeta Home', country: 'SK', currency: 'EUR', maxWeightKg: 30, disallowsCod: false },
  { id: '4159', name: 'HU Packeta Home', country: 'HU', currency: 'HUF', maxWeightKg: 30, disallowsCod: false },
  { id: '7397', name: 'RO Packeta Home', country: 'RO', currency: 'RON', maxWeightKg: 30, disallowsCod: false },
  { id: '2401', name: 'DE Home (no COD)', country: 'DE', currency: 'EUR', maxWeightKg: 31, disallowsCod: true },
];

/** Points the tests and the docs name. */
export const FAKE_POINTS = {
  prahaPoint: '4001',
  prahaBoxWithoutCod: '4005',
  prahaBoxWithCod: '4010',
  prahaEnded: '4020',
  budapestPoint: '6001',
} as const;

export type Destination =
  { kind: 'branch'; branch: FakeBranch; active: boolean } | { kind: 'carrier'; carrier: FakeCarrier };

/** What an `addressId` names: a point (active or not), a home-delivery carrier, or nothing. */
export function destinationOf(addressId: string): Destination | null {
  const branch = FAKE_BRANCHES.find((b) => b.id === addressId);
  if (branch) return { kind: 'branch', branch, active: branch.statusId === 1 };
  const carrier = FAKE_CARRIERS.find((c) => c.id === addressId);
  return carrier ? { kind: 'carrier', carrier } : null;
}

/**
 * Pickup points: the vocabulary, the geometry (distance, merging nearest-first lists), opening hours in the
 * provider contract's notation, which networks an order's delivery method allows, and whether a chosen point can be
 * set on an order. Pure: the carrier port, the custom-provider client and the API call these.
 */

/** Spec "Limits" of the provider contract, also the reach of `not_found_nearby` ("not among the 50 nearest"). */
export const MAX_PICKUP_POINTS = 50;

export const PICKUP_POINT_TYPES = ['pickup_point', 'locker'] as const;
export type PickupPointType = (typeof PICKUP_POINT_TYPES)[number];

export const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

export const PICKUP_POINT_NOT_AVAILABLE_REASONS = [
  'carrier_not_offered',
  'not_found',
  'not_found_nearby',
  'type_not_allowed',
  'requires_customer_id',
] as const;
export type PickupPointNotAvailableReason = (typeof PICKUP_POINT_NOT_AVAILABLE_REASONS)[number];

export interface GeoPoint {
  latitude: number;
  longitude: number;
}

export interface OpeningRange {
  opens: string;
  closes: string;
}

/** Every weekday is present; an empty list is a closed day (contract: "a day that is absent is treated as closed"). */
export type OpeningHours = Record<Weekday, OpeningRange[]>;

/** A point as every network (carrier or custom provider) delivers it, before the network is attached. */
export interface PickupPoint extends GeoPoint {
  id: string;
  type: PickupPointType;
  name: string;
  place: string | null;
  street: string;
  city: string;
  zip: string;
  /** ISO 3166-1 alpha-2. */
  country: string;
  pinUrl: string | null;
  openingHours: OpeningHours;
  /** The point hands parcels out only to recipients registered with the network (e.g. a locker account number). */
  requiresCustomerId: boolean;
}

/** Custom providers appear on the wire as `custom:<code>`, so their codes never meet a catalogue carrier code. */
export const CUSTOM_NETWORK_PREFIX = 'custom:';
export const customNetworkCode = (providerCode: string): string => `${CUSTOM_NETWORK_PREFIX}${providerCode}`;

// ---------------------------------------------------------------------------------------------------------------
// Geometry

const EARTH_RADIUS_METERS = 6_371_008.8;
const radians = (degrees: number) => (degrees * Math.PI) / 180;

/** Great-circle distance (haversine), whole meters. */
export function distanceMeters(a: GeoPoint, b: GeoPoint): number {
  const dLat = radians(b.latitude - a.latitude);
  const dLng = radians(b.longitude - a.longitude);
  const h =
    Math.sin(dLat / 2) ** 2 + Math.cos(radians(a.latitude)) * Math.cos(radians(b.latitude)) * Math.sin(dLng / 2) ** 2;
  return Math.round(2 * EARTH_RADIUS_METERS * Math.asin(Math.min(1, Math.sqrt(h))));
}

export interface Placed<T> {
  item: T;
  distanceMeters: number;
}

/**
 * Points farther than their successor by more than this are out of order. Providers may measure by road or round
 * differently; a small slack keeps equal-ish distances from being reported.
 */
export const SORT_TOLERANCE_METERS = 25;

export interface OutOfOrder {
  /** 0-based position in the processed answer. */
  index: number;
  distanceMeters: number;
  previousDistanceMeters: number;
}

/** Positions where a nearest-first list goes back towards the origin (the contract says it is sorted; we check). */
export function findOutOfOrder(distances: readonly number[]): OutOfOrder[] {
  const found: OutOfOrder[] = [];
  let farthest = -Infinity;
  distances.forEach((distance, index) => {
    if (distance + SORT_TOLERANCE_METERS < farthest)
      found.push({ index, distanceMeters: distance, previousDistanceMeters: farthest });
    farthest = Math.max(farthest, distance);
  });
  return found;
}

/**
 * Merges nearest-first lists by distance, keeping each list's own order (a provider's answer is never reordered,
 * only interleaved); ties go to the earlier list. Returns at most `limit` items.
 */
export function mergeByDistance<T>(lists: ReadonlyArray<ReadonlyArray<Placed<T>>>, limit: number): Placed<T>[] {
  const heads = lists.map(() => 0);
  const merged: Placed<T>[] = [];
  while (merged.length < limit) {
    let best = -1;
    for (let i = 0; i < lists.length; i += 1) {
      const candidate = lists[i]![heads[i]!];
      if (!candidate) continue;
      if (best < 0 || candidate.distanceMeters < lists[best]![heads[best]!]!.distanceMeters) best = i;
    }
    if (best < 0) break;
    merged.push(lists[best]![heads[best]!]!);
    heads[best]! += 1;
  }
  return merged;
}

// ---------------------------------------------------------------------------------------------------------------
// Opening hours in the contract's notation: "08:00 - 12:00, 13:00 - 17:00"

const RANGE = /^(\d{2}):(\d{2})\s*-\s*(\d{2}):(\d{2})$/;

function minutes(hours: string, mins: string): number | null {
  const h = Number(hours);
  const m = Number(mins);
  if (m > 59 || h > 24 || (h === 24 && m !== 0)) return null;
  return h * 60 + m;
}

const DAY_MINUTES = 24 * 60;
const clock = (total: number) =>
  `${String(Math.floor(total / 60)).padStart(2, '0')}:${String(total % 60).padStart(2, '0')}`;

/** One day's ranges, and the part of its last range that runs past midnight into the next day (null when none). */
export type DayRanges = { ok: true; ranges: OpeningRange[]; pastMidnight: OpeningRange | null };

/**
 * Parses one day's ranges. `24:00` may close a day; a range that closes at or before it opens runs past midnight
 * (`22:00 - 06:00`: the contract's `HH:MM - HH:MM` does not keep a range within one day), so it is the day's last,
 * kept as `22:00 - 24:00` with `00:00 - 06:00` for the next day. Ranges must not overlap and may not open and close
 * at the same time. An empty string is a closed day. Returns the problem as text for the operator when the value is
 * not usable (docs/decisions/0136-provider-point-fields.md).
 */
export function parseOpeningRanges(text: string): DayRanges | { ok: false; problem: string } {
  if (text.trim() === '') return { ok: true, ranges: [], pastMidnight: null };
  const ranges: OpeningRange[] = [];
  let pastMidnight: OpeningRange | null = null;
  let previousEnd = -1;
  for (const part of text.split(',').map((p) => p.trim())) {
    const match = RANGE.exec(part);
    const start = match ? minutes(match[1]!, match[2]!) : null;
    const end = match ? minutes(match[3]!, match[4]!) : null;
    if (!match || start === null || end === null || start >= DAY_MINUTES)
      return { ok: false, problem: `"${part.slice(0, 40)}" is not a range HH:MM - HH:MM` };
    if (end === start) return { ok: false, problem: `"${part}" opens and closes at the same time` };
    if (start < previousEnd) {
      const before = previousEnd === DAY_MINUTES ? 'a range running past midnight' : 'the range before it';
      return { ok: false, problem: `"${part}" overlaps ${before}` };
    }
    const overnight = end < start;
    previousEnd = overnight ? DAY_MINUTES : end;
    ranges.push({ opens: clock(start), closes: overnight ? '24:00' : clock(end) });
    if (overnight && end > 0) pastMidnight = { opens: '00:00', closes: clock(end) };
  }
  return { ok: true, ranges, pastMidnight };
}

/** Ranges of one day in order, overlapping ones joined (a night's tail meeting the day's own first range). */
function joinRanges(ranges: OpeningRange[]): OpeningRange[] {
  const joined: OpeningRange[] = [];
  for (const range of [...ranges].sort((a, b) => a.opens.localeCompare(b.opens))) {
    const last = joined.at(-1);
    if (last && range.opens < last.closes) {
      if (range.closes > last.closes) last.closes = range.closes;
    } else joined.push({ ...range });
  }
  return joined;
}

/** An `openingHours` entry left out, with why (for the operator). */
export interface OpeningHoursProblem {
  key: string;
  problem: string;
}

/**
 * The contract's `openingHours` object: keys are lowercase English weekdays, values the day's ranges. An entry with
 * another key (`Monday`, `mon`) or an unusable value is left out and reported; the day it would have named is then
 * absent, which the contract treats as closed. The rest of the week stands. A night's tail opens the next day (after
 * Sunday, Monday).
 */
export function parseOpeningWeek(days: Record<string, unknown>): {
  hours: OpeningHours;
  problems: OpeningHoursProblem[];
} {
  const problems: OpeningHoursProblem[] = [];
  const parsed = new Map<Weekday, DayRanges>();
  for (const [key, value] of Object.entries(days)) {
    if (!(WEEKDAYS as readonly string[]).includes(key)) {
      problems.push({ key, problem: `unknown key "${key.slice(0, 40)}" (weekdays are monday to sunday, lowercase)` });
    } else if (typeof value !== 'string' || value.length > 200) {
      problems.push({ key, problem: 'must be a text of ranges HH:MM - HH:MM separated by commas' });
    } else {
      const day = parseOpeningRanges(value);
      if (day.ok) parsed.set(key as Weekday, day);
      else problems.push({ key, problem: day.problem });
    }
  }
  const hours = closedWeek();
  WEEKDAYS.forEach((day, i) => {
    const own = parsed.get(day)?.ranges ?? [];
    const tail = parsed.get(WEEKDAYS[(i + WEEKDAYS.length - 1) % WEEKDAYS.length]!)?.pastMidnight;
    hours[day] = tail ? joinRanges([tail, ...own]) : own;
  });
  return { hours, problems };
}

/** Every day closed; networks fill in the days they know. */
export function closedWeek(): OpeningHours {
  return { monday: [], tuesday: [], wednesday: [], thursday: [], friday: [], saturday: [], sunday: [] };
}

// ---------------------------------------------------------------------------------------------------------------
// Which networks an order's delivery method allows

/** The store platform's delivery method of the order, as far as pickup points care. */
export interface DeliveryMethodFacts {
  type: string;
  title: string | null;
}

export interface RuleFacts {
  priority: number;
  conditions: { deliveryMethodTypes?: string[]; shippingMethodNames?: string[] };
  carrierAccountId: string;
  serviceCode: string;
}

export interface AccountFacts {
  id: string;
  carrierCode: string;
  carrierName: string;
  services: ReadonlyArray<{ code: string; pickupPointRequired: boolean; pickupPointTypes?: PickupPointType[] }>;
}

export interface ProviderFacts {
  id: string;
  code: string;
  name: string;
}

export interface AllowedNetwork {
  /** `carrier_a` ... for carriers, `custom:<code>` for custom providers. */
  code: string;
  name: string;
  kind: 'carrier' | 'custom_provider';
  accountId: string | null;
  providerId: string | null;
  pointTypes: PickupPointType[];
}

/** The platform's pickup-point delivery (the customer chose a point at checkout, or is to get one). */
export function isPickupPointMethod(method: DeliveryMethodFacts): boolean {
  return method.type === 'pickup';
}

function ruleNamesMethod(rule: RuleFacts, method: DeliveryMethodFacts): boolean {
  const { deliveryMethodTypes: types, shippingMethodNames: names } = rule.conditions;
  if (types && !types.includes(method.type)) return false;
  if (names && !(method.title !== null && names.some((n) => n.toLowerCase() === method.title!.toLowerCase())))
    return false;
  return true;
}

/**
 * The networks whose points may be set on an order with this delivery method (decision 0201): the carriers of the
 * store's rules that send this delivery method to a pickup-point service, else every account with a pickup-point
 * service; only carriers that have a network of their own; plus every custom provider. One network per carrier,
 * through the first account by rule priority.
 */
export function allowedNetworks(input: {
  deliveryMethod: DeliveryMethodFacts;
  rules: readonly RuleFacts[];
  accounts: readonly AccountFacts[];
  providers: readonly ProviderFacts[];
  carriersWithNetworks: ReadonlySet<string>;
}): AllowedNetwork[] {
  if (!isPickupPointMethod(input.deliveryMethod)) return [];
  const accounts = new Map(input.accounts.map((a) => [a.id, a]));
  const pickupServices = (account: AccountFacts, only?: string) =>
    account.services.filter((s) => s.pickupPointRequired && (only === undefined || s.code === only));

  const picks: Array<{ account: AccountFacts; services: AccountFacts['services'] }> = [];
  for (const rule of [...input.rules].sort((a, b) => a.priority - b.priority)) {
    const account = accounts.get(rule.carrierAccountId);
    if (!account || !ruleNamesMethod(rule, input.deliveryMethod)) continue;
    const services = pickupServices(account, rule.serviceCode);
    if (services.length > 0) picks.push({ account, services });
  }
  if (picks.length === 0) {
    for (const account of input.accounts) {
      const services = pickupServices(account);
      if (services.length > 0) picks.push({ account, services });
    }
  }

  const networks = new Map<string, AllowedNetwork>();
  for (const { account, services } of picks) {
    if (!input.carriersWithNetworks.has(account.carrierCode)) continue;
    const types = services.flatMap((s) => s.pickupPointTypes ?? [...PICKUP_POINT_TYPES]);
    const existing = networks.get(account.carrierCode);
    if (existing) {
      if (existing.accountId === account.id)
        existing.pointTypes = PICKUP_POINT_TYPES.filter((t) => existing.pointTypes.includes(t) || types.includes(t));
      continue;
    }
    networks.set(account.carrierCode, {
      code: account.carrierCode,
      name: account.carrierName,
      kind: 'carrier',
      accountId: account.id,
      providerId: null,
      pointTypes: PICKUP_POINT_TYPES.filter((t) => types.includes(t)),
    });
  }
  const custom: AllowedNetwork[] = input.providers.map((p) => ({
    code: customNetworkCode(p.code),
    name: p.name,
    kind: 'custom_provider',
    accountId: null,
    providerId: p.id,
    pointTypes: [...PICKUP_POINT_TYPES],
  }));
  return [...networks.values(), ...custom];
}

// ---------------------------------------------------------------------------------------------------------------
// Can this point be set on the order?

export interface PointChoice {
  /** The network the request names, when the delivery method allows it. */
  network: AllowedNetwork | null;
  /** Lookup by ID: `found`, `missing`, or `unsupported` (custom providers only answer searches). */
  lookup: 'found' | 'missing' | 'unsupported';
  /** Whether the point is among the nearest `MAX_PICKUP_POINTS` of its network to the order's address. */
  amongNearest: boolean;
  /** The point's own facts, from the lookup or the nearby search; null when neither found it. */
  point: Pick<PickupPoint, 'type' | 'requiresCustomerId'> | null;
  customerIdGiven: boolean;
}

/**
 * Spec `pickup_point_not_available` reasons, checked in this order: the network first (nothing else matters when
 * the delivery method does not offer it), then existence, distance, the kind of point, and what the recipient needs.
 */
export function pointChoiceRefusal(choice: PointChoice): PickupPointNotAvailableReason | null {
  if (!choice.network) return 'carrier_not_offered';
  if (choice.lookup === 'missing') return 'not_found';
  if (!choice.amongNearest || !choice.point) return 'not_found_nearby';
  if (!choice.network.pointTypes.includes(choice.point.type)) return 'type_not_allowed';
  if (choice.point.requiresCustomerId && !choice.customerIdGiven) return 'requires_customer_id';
  return null;
}

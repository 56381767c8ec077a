import { z } from 'zod';
import { isIsoCountryCode } from '../domain/countries';
import {
  MAX_PICKUP_POINTS,
  closedWeek,
  distanceMeters,
  findOutOfOrder,
  parseOpeningWeek,
  type GeoPoint,
  type OutOfOrder,
  type PickupPoint,
  type Placed,
} from '../domain/pickup-points';

/**
 * The custom pickup point provider contract (the specification's "Custom Pickup Point Provider Contract"): what the
 * service sends and how it reads the answer. Items are validated one by one: an item without a valid required field is dropped, an unusable
 * optional field (`place`, `pin`, an `openingHours` entry) is left out of a point that is kept; both are reported,
 * never fatal.
 */

/** Contract "Request headers": a fixed text naming the service's pickup point component. */
export const ORIGIN_SERVICE = 'shipping-label-api/pickup-points';

/** Contract "Search request body". */
export interface ProviderSearchRequest {
  latitude: number;
  longitude: number;
  countryCode: string;
  shop: string;
}

const text = (max: number) => z.string().trim().min(1, 'must not be empty').max(max, `longer than ${max} characters`);

/** Contract "Pickup point", the required fields: the point is kept only with every one of them valid. */
export const providerPointSchema = z.object({
  id: text(100),
  longitude: z.number().min(-180).max(180),
  latitude: z.number().min(-90).max(90),
  name: text(200),
  street: text(200),
  city: text(100),
  zip: text(20),
  country: z.string().refine(isIsoCountryCode, 'must be an ISO 3166-1 alpha-2 code in capitals, e.g. CZ'),
});

/** The contract's optional fields: one that is not usable is left out and the point kept (decision 0136). */
export const OPTIONAL_POINT_FIELDS = ['place', 'pin', 'openingHours'] as const;
export type OptionalPointField = (typeof OPTIONAL_POINT_FIELDS)[number];

const placeSchema = z.object({ place: z.string().trim().max(200, 'longer than 200 characters').nullish() });
const pinSchema = z.object({
  pin: z
    .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
    .max(2000, 'longer than 2000 characters')
    .nullish(),
});

export interface DroppedItem {
  /** 0-based position in the provider's `data`. */
  index: number;
  id: string | null;
  problems: string[];
}

/** An optional field (or one `openingHours` entry) of a kept point, left out. */
export interface DroppedField {
  index: number;
  id: string;
  field: OptionalPointField;
  problem: string;
}

export interface ValidatedAnswer {
  /** Accepted points in the provider's order, with their distance from the searched location. */
  points: Placed<PickupPoint>[];
  /** Items in `data`. */
  received: number;
  /** Items past the first 50, which are never processed (contract rule 3). */
  ignoredOverLimit: number;
  dropped: DroppedItem[];
  /** Optional fields left out of points that are shown. */
  droppedFields: DroppedField[];
  /** Where the answer is not nearest first (contract rule 2); positions in `points`. */
  outOfOrder: OutOfOrder[];
}

/** The answer is not `{data: [...]}`: nothing in it can be used. */
export class InvalidProviderAnswerError extends Error {
  override readonly name = 'InvalidProviderAnswerError';
}

function describe(value: unknown): string {
  const json = JSON.stringify(value);
  return json === undefined ? String(value) : json.length > 60 ? `${json.slice(0, 60)}…` : json;
}

function problemsOf(error: z.ZodError): string[] {
  return error.issues.map((issue) => {
    const path = issue.path.join('.') || 'item';
    if (issue.code === 'unrecognized_keys') return `${path}: unknown key ${issue.keys.map((k) => `"${k}"`).join(', ')}`;
    if (issue.code === 'invalid_type' && issue.input === undefined) return `${path}: required`;
    const received = issue.input === undefined ? '' : ` (got ${describe(issue.input)})`;
    return `${path}: ${issue.message}${received}`;
  });
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The optional fields of an item: each usable one, and a problem for each left out. */
function optionalFields(raw: Record<string, unknown>) {
  const problems: Array<{ field: OptionalPointField; problem: string }> = [];
  const place = placeSchema.safeParse({ place: raw.place }, { reportInput: true });
  if (!place.success) problems.push({ field: 'place', problem: problemsOf(place.error).join('; ') });
  const pin = pinSchema.safeParse({ pin: raw.pin }, { reportInput: true });
  if (!pin.success) problems.push({ field: 'pin', problem: problemsOf(pin.error).join('; ') });
  let openingHours = closedWeek();
  if (isPlainObject(raw.openingHours)) {
    const week = parseOpeningWeek(raw.openingHours);
    openingHours = week.hours;
    for (const p of week.problems) {
      problems.push({ field: 'openingHours', problem: `openingHours.${p.key.slice(0, 40)}: ${p.problem}` });
    }
  } else if (raw.openingHours !== undefined && raw.openingHours !== null) {
    problems.push({
      field: 'openingHours',
      problem: `openingHours: must be an object (got ${describe(raw.openingHours)})`,
    });
  }
  return {
    place: (place.success && place.data.place) || null,
    pinUrl: (pin.success && pin.data.pin) || null,
    openingHours,
    problems,
  };
}

function toPoint(item: z.output<typeof providerPointSchema>, optional: ReturnType<typeof optionalFields>): PickupPoint {
  return {
    id: item.id,
    type: 'pickup_point',
    name: item.name,
    place: optional.place,
    street: item.street,
    city: item.city,
    zip: item.zip,
    country: item.country,
    latitude: item.latitude,
    longitude: item.longitude,
    pinUrl: optional.pinUrl,
    openingHours: optional.openingHours,
    requiresCustomerId: false,
  };
}

/** Reads a 2xx answer: the first 50 items are validated in order; the rest are counted and ignored. */
export function validateProviderAnswer(body: unknown, origin: GeoPoint): ValidatedAnswer {
  const data =
    typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as { data?: unknown }).data : undefined;
  if (!Array.isArray(data)) throw new InvalidProviderAnswerError('the answer is not a JSON object with a `data` array');
  const points: Placed<PickupPoint>[] = [];
  const dropped: DroppedItem[] = [];
  const droppedFields: DroppedField[] = [];
  const seen = new Map<string, number>();
  data.slice(0, MAX_PICKUP_POINTS).forEach((raw: unknown, index) => {
    const rawId = isPlainObject(raw) ? raw.id : undefined;
    const id = typeof rawId === 'string' ? rawId : null;
    const parsed = providerPointSchema.safeParse(raw, { reportInput: true });
    if (!parsed.success) {
      dropped.push({ index, id, problems: problemsOf(parsed.error) });
      return;
    }
    const first = seen.get(parsed.data.id);
    if (first !== undefined) {
      dropped.push({ index, id, problems: [`id: duplicate of item ${first}`] });
      return;
    }
    seen.set(parsed.data.id, index);
    // The schema accepted it, so it is an object.
    const optional = optionalFields(raw as Record<string, unknown>);
    for (const p of optional.problems) droppedFields.push({ index, id: parsed.data.id, ...p });
    const point = toPoint(parsed.data, optional);
    points.push({ item: point, distanceMeters: distanceMeters(origin, point) });
  });
  return {
    points,
    received: data.length,
    ignoredOverLimit: Math.max(0, data.length - MAX_PICKUP_POINTS),
    dropped,
    droppedFields,
    outOfOrder: findOutOfOrder(points.map((p) => p.distanceMeters)),
  };
}

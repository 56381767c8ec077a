import { z } from 'zod';
import { isIsoCountryCode } from '../domain/countries';
import {
  MAX_PICKUP_POINTS,
  WEEKDAYS,
  closedWeek,
  distanceMeters,
  findOutOfOrder,
  parseOpeningRanges,
  type GeoPoint,
  type OpeningHours,
  type OutOfOrder,
  type PickupPoint,
  type Placed,
} from '../domain/pickup-points';

/**
 * The custom pickup point provider contract (shared/spec/pickup-point-provider.md): what the service sends and how
 * it reads the answer. Items are validated one by one: an invalid item is dropped and counted, never fatal.
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

const openingHoursSchema = z
  .object(Object.fromEntries(WEEKDAYS.map((day) => [day, z.string().max(200).optional()])))
  .strict()
  .transform((days, ctx): OpeningHours => {
    const week = closedWeek();
    for (const day of WEEKDAYS) {
      const value = days[day];
      if (value === undefined) continue;
      const parsed = parseOpeningRanges(value);
      if (parsed.ok) week[day] = parsed.ranges;
      else ctx.addIssue({ code: 'custom', path: [day], message: parsed.problem, input: value });
    }
    return week;
  });

/** Contract "Pickup point": required fields, ISO countries, `pin` a URL, opening hours per weekday. */
export const providerPointSchema = z.object({
  id: text(100),
  longitude: z.number().min(-180).max(180),
  latitude: z.number().min(-90).max(90),
  name: text(200),
  place: z.string().trim().max(200).nullish(),
  street: text(200),
  city: text(100),
  zip: text(20),
  country: z.string().refine(isIsoCountryCode, 'must be an ISO 3166-1 alpha-2 code in capitals, e.g. CZ'),
  pin: z
    .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
    .max(2000)
    .nullish(),
  openingHours: openingHoursSchema.nullish(),
});

export interface DroppedItem {
  /** 0-based position in the provider's `data`. */
  index: number;
  id: string | null;
  problems: string[];
}

export interface ValidatedAnswer {
  /** Accepted points in the provider's order, with their distance from the searched location. */
  points: Placed<PickupPoint>[];
  /** Items in `data`. */
  received: number;
  /** Items past the first 50, which are never processed (contract rule 3). */
  ignoredOverLimit: number;
  dropped: DroppedItem[];
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

function toPoint(item: z.output<typeof providerPointSchema>): PickupPoint {
  return {
    id: item.id,
    type: 'pickup_point',
    name: item.name,
    place: item.place || null,
    street: item.street,
    city: item.city,
    zip: item.zip,
    country: item.country,
    latitude: item.latitude,
    longitude: item.longitude,
    pinUrl: item.pin ?? null,
    openingHours: item.openingHours ?? closedWeek(),
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
  const seen = new Map<string, number>();
  data.slice(0, MAX_PICKUP_POINTS).forEach((raw: unknown, index) => {
    const rawId = typeof raw === 'object' && raw !== null ? (raw as { id?: unknown }).id : undefined;
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
    const point = toPoint(parsed.data);
    points.push({ item: point, distanceMeters: distanceMeters(origin, point) });
  });
  return {
    points,
    received: data.length,
    ignoredOverLimit: Math.max(0, data.length - MAX_PICKUP_POINTS),
    dropped,
    outOfOrder: findOutOfOrder(points.map((p) => p.distanceMeters)),
  };
}

import { createHash } from 'node:crypto';
import { isIsoCountryCode } from '../../../domain/countries';
import { closedWeek, parseOpeningRanges, WEEKDAYS, type OpeningHours } from '../../../domain/pickup-points';
import type { PacketaFeedFile, PacketaOpeningHours, PacketaPointRecord } from '../../../db/packeta-pickup-points';

/**
 * One element of Packeta's branch or box feed (branch export v5, `branch.json` and `box.json`) read into the record
 * the service keeps. Packeta writes every value as a string (`"id": "12"`, `"displayFrontend": "1"`) and an empty
 * optional one as `{}` (`"directionsCar": {}`, `"exceptions": {}`); both are read here. A point without what a
 * customer needs to find it (ID, name, address, country, coordinates, status) is refused with the reason; a value
 * that only informs (a malformed date, one day's hours) is dropped with a warning and the point kept.
 */

export type FeedPointParse =
  { ok: true; point: PacketaPointRecord; warnings: string[] } | { ok: false; id: string | null; problem: string };

class PointProblem extends Error {}

/** A string value, `{}` / null / absent as empty; numbers as Packeta sometimes sends them; anything else null. */
function text(value: unknown): string | null {
  if (typeof value === 'string') return value.trim();
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (value === undefined || value === null) return '';
  if (typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length === 0) return '';
  return null;
}

function required(raw: Record<string, unknown>, name: string): string {
  const value = text(raw[name]);
  if (value === null || value === '') throw new PointProblem(`${name} is missing`);
  return value;
}

function flag(raw: Record<string, unknown>, name: string, absent: boolean | null = null): boolean {
  const value = text(raw[name]);
  if ((value === '' || value === null) && absent !== null) return absent;
  if (value === '1' || value === 'true' || value === 'yes') return true;
  if (value === '0' || value === 'false' || value === 'no') return false;
  throw new PointProblem(`${name} is not 0 or 1`);
}

function coordinate(raw: Record<string, unknown>, name: string, max: number): number {
  const value = required(raw, name);
  const n = Number(value);
  if (!/^-?\d+(\.\d+)?$/.test(value) || Math.abs(n) > max) throw new PointProblem(`${name} is not a coordinate`);
  return n;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;

function day(raw: Record<string, unknown>, name: string, warnings: string[]): string | null {
  const value = text(raw[name]);
  if (value === '' || value === null) {
    if (value === null) warnings.push(`${name} is not a date`);
    return null;
  }
  if (DAY.test(value)) return value;
  warnings.push(`${name} is not a date`);
  return null;
}

/** Packeta's ranges use an en dash (`08:30–18:30`) or a hyphen, and may drop an hour's leading zero. */
export function normalizeHours(value: string): string {
  return value
    .replace(/[\u2012-\u2015]/g, '-')
    .replace(
      /(^|\D)(\d):(\d{2})/g,
      (_, before: string, hour: string, minutes: string) => `${before}0${hour}:${minutes}`,
    );
}

function week(days: unknown, label: string, warnings: string[]): OpeningHours {
  const hours = closedWeek();
  if (days === null || typeof days !== 'object') return hours;
  const record = days as Record<string, unknown>;
  for (const weekday of WEEKDAYS) {
    const value = text(record[weekday]);
    const parsed = parseOpeningRanges(normalizeHours(value ?? ''));
    if (value !== null && parsed.ok) hours[weekday] = parsed.ranges;
    else warnings.push(`${label} ${weekday}: ${parsed.ok ? 'not a text' : parsed.problem}`);
  }
  return hours;
}

/** The regular week and an announced one; date exceptions (holidays) are not kept (decision 1220). */
function openingHours(value: unknown, warnings: string[]): PacketaOpeningHours {
  const hours = value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : {};
  const regular = week(hours.regular, 'regular', warnings);
  const upcomingRaw = hours.upcoming;
  if (upcomingRaw === null || typeof upcomingRaw !== 'object' || Object.keys(upcomingRaw).length === 0)
    return { regular, upcoming: null };
  const startDate = day(upcomingRaw as Record<string, unknown>, 'startDate', warnings);
  return { regular, upcoming: startDate ? { startDate, days: week(upcomingRaw, 'upcoming', warnings) } : null };
}

/** Digest of everything the service keeps of a point: equal digests, nothing to write. */
export function contentHash(point: Omit<PacketaPointRecord, 'contentHash'>): string {
  return createHash('sha256').update(JSON.stringify(point)).digest('base64url').slice(0, 22);
}

function statusId(raw: Record<string, unknown>): number {
  const status = raw.status;
  const value =
    status !== null && typeof status === 'object' ? text((status as Record<string, unknown>).statusId) : null;
  if (!value || !/^\d{1,3}$/.test(value)) throw new PointProblem('status.statusId is missing');
  return Number(value);
}

function readPoint(raw: Record<string, unknown>, file: PacketaFeedFile, warnings: string[]): PacketaPointRecord {
  const id = required(raw, 'id');
  // The catalogue's carrier A format (1 to 10 digits): an ID outside it could be set on no order.
  if (!/^\d{1,10}$/.test(id)) throw new PointProblem('id is not 1 to 10 digits');
  const country = required(raw, 'country').toUpperCase();
  if (!isIsoCountryCode(country)) throw new PointProblem('country is not an ISO 3166-1 code');
  const place = text(raw.place);
  const maxWeight = text(raw.maxWeight);
  if (maxWeight !== '' && !/^\d+$/.test(maxWeight ?? '')) warnings.push('maxWeight is not a whole number');
  const boxType = file === 'box' ? text(raw.type) || null : null;
  if (file === 'box' && boxType === null) warnings.push('type is missing');
  const point: Omit<PacketaPointRecord, 'contentHash'> = {
    id: String(Number(id)),
    feedFile: file,
    boxType,
    name: required(raw, 'name'),
    place: place ? place : null,
    street: required(raw, 'street'),
    city: required(raw, 'city'),
    zip: required(raw, 'zip'),
    country,
    latitude: coordinate(raw, 'latitude', 90),
    longitude: coordinate(raw, 'longitude', 180),
    statusId: statusId(raw),
    displayFrontend: flag(raw, 'displayFrontend'),
    // Branches take COD (Packeta's delivery services); a box says so in `codAllowed`.
    codAllowed: file === 'box' ? flag(raw, 'codAllowed', true) : true,
    maxWeightKg: maxWeight && /^\d+$/.test(maxWeight) ? Number(maxWeight) : null,
    openSince: day(raw, 'openSince', warnings),
    openUntil: day(raw, 'openUntil', warnings),
    enterableUntil: day(raw, 'enterableUntil', warnings),
    openingHours: openingHours(raw.openingHours, warnings),
  };
  return { ...point, contentHash: contentHash(point) };
}

/** Reads one parsed feed element; never throws. */
export function parseFeedPoint(raw: unknown, file: PacketaFeedFile): FeedPointParse {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
    return { ok: false, id: null, problem: 'element is not an object' };
  const record = raw as Record<string, unknown>;
  const warnings: string[] = [];
  try {
    return { ok: true, point: readPoint(record, file, warnings), warnings };
  } catch (error) {
    if (!(error instanceof PointProblem)) throw error;
    const id = text(record.id);
    return { ok: false, id: id ? id.slice(0, 20) : null, problem: error.message };
  }
}

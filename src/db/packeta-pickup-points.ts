import type { OpeningHours, PickupPoint } from '../domain/pickup-points';
import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * Packeta's pickup points as imported from its feed (decisions 1220, 1221): the writes of the import and the reads of
 * the nearest-point search, in plain SQL. The feed code (src/carriers/packeta/feed/) parses and decides; this module
 * only stores and finds.
 */

/** Packeta publishes its points in two files: `branch.json` (staffed points) and `box.json` (Z-BOX and AlzaBox). */
export type PacketaFeedFile = 'branch' | 'box';

/** The hours of one point: the regular week, and the week that replaces it from `startDate` when announced. */
export interface PacketaOpeningHours {
  regular: OpeningHours;
  upcoming: { startDate: string; days: OpeningHours } | null;
}

/** What a customer finds a point by: the pickup point object's address and place (country in capitals). */
type PointAddress = Pick<
  PickupPoint,
  'id' | 'name' | 'place' | 'street' | 'city' | 'zip' | 'country' | 'latitude' | 'longitude'
>;

/** One point as the feed describes it; `contentHash` digests every other field, so an unchanged point is not written. */
export interface PacketaPointRecord extends PointAddress {
  feedFile: PacketaFeedFile;
  /** `zbox`, `alzabox`, ... for a box; null for a branch. */
  boxType: string | null;
  /** Packeta's `status.statusId`: 1 in operation; 2 to 4 temporarily not receiving; 5 cooperation ended. */
  statusId: number;
  displayFrontend: boolean;
  codAllowed: boolean;
  maxWeightKg: number | null;
  /** `YYYY-MM-DD` (Packeta's own days, Europe/Prague) or null. */
  openSince: string | null;
  openUntil: string | null;
  enterableUntil: string | null;
  openingHours: PacketaOpeningHours;
  contentHash: string;
}

/** What the import compares a feed point with. */
export interface StoredPacketaPoint {
  feedFile: PacketaFeedFile;
  contentHash: string;
  inFeed: boolean;
}

/** A feed file's version as last imported, and how its imports have gone since. */
export interface PacketaFeedFileState {
  feedFile: PacketaFeedFile;
  etag: string | null;
  lastModified: string | null;
  digest: string | null;
  points: number | null;
  checkedAt: Date | null;
  changedAt: Date | null;
  failuresInARow: number;
  lastError: string | null;
  lastFailureAt: Date | null;
}

/** What a search answers of a point: what a customer chooses by (the pickup point object of the port). */
export type PacketaPointView = Pick<
  PacketaPointRecord,
  | 'id'
  | 'feedFile'
  | 'name'
  | 'place'
  | 'street'
  | 'city'
  | 'zip'
  | 'country'
  | 'latitude'
  | 'longitude'
  | 'openingHours'
>;

export interface PacketaPointSearch {
  latitude: number;
  longitude: number;
  country: string;
  limit: number;
  /** Today in Europe/Prague (`YYYY-MM-DD`): the feed's dates are Packeta's days. */
  day: string;
}

export interface PacketaPointsStore {
  fileStates(): Promise<PacketaFeedFileState[]>;
  storedPoints(): Promise<Map<string, StoredPacketaPoint>>;
  /** Inserts or rewrites these points as in the feed now (a vanished one is back). */
  writePoints(points: readonly PacketaPointRecord[], now: Date): Promise<void>;
  /** Marks points gone from the feed: kept, never offered again unless the feed brings them back. */
  markVanished(ids: readonly string[], now: Date): Promise<void>;
  /** A successful look at a file: its version now, and whether its content changed. */
  recordChecked(
    file: PacketaFeedFile,
    version: { etag: string | null; lastModified: string | null; digest: string | null; points: number | null },
    changed: boolean,
    now: Date,
  ): Promise<void>;
  recordFailure(file: PacketaFeedFile, message: string, now: Date): Promise<void>;
  /** Points by state, for operators: in the feed, of those offerable on `day`, and vanished. */
  counts(day: string): Promise<{ inFeed: number; offerable: number; vanished: number }>;
  /** Whether any import ever succeeded: an empty network before it is not an empty result. */
  everImported(): Promise<boolean>;
  /** The offerable points of a country nearest the location, nearest first. */
  nearest(search: PacketaPointSearch): Promise<PacketaPointView[]>;
  /** One point by its ID if it can be offered today, else null. */
  offerable(id: string, day: string): Promise<PacketaPointView | null>;
}

/** The points that can be offered: in the feed, in operation, shown to customers, within Packeta's dates. */
const OFFERABLE = `in_feed and status_id = 1 and display_frontend
  and (open_since is null or open_since <= ?::date)
  and (open_until is null or open_until >= ?::date)
  and (enterable_until is null or enterable_until >= ?::date)`;

/** The columns of a PacketaPointView, named as its fields: rows come back in its shape. */
const VIEW = `id::text as id, feed_file as "feedFile", name, place, street, city, zip, country, latitude, longitude,
  opening_hours as "openingHours"`;

/**
 * One statement writes a batch: the records travel as one JSON array whose keys `jsonb_to_recordset` reads by their
 * (quoted) field names.
 */
const UPSERT = `insert into packeta_pickup_points (id, feed_file, box_type, name, place, street, city, zip, country,
    latitude, longitude, location, status_id, display_frontend, cod_allowed, max_weight_kg, open_since, open_until,
    enterable_until, opening_hours, content_hash, in_feed, first_seen_at, changed_at, vanished_at)
  select r.id, r."feedFile", r."boxType", r.name, r.place, r.street, r.city, r.zip, r.country, r.latitude,
    r.longitude, ll_to_earth(r.latitude, r.longitude)::cube, r."statusId", r."displayFrontend", r."codAllowed",
    r."maxWeightKg", r."openSince", r."openUntil", r."enterableUntil", r."openingHours", r."contentHash", true, ?, ?, null
  from jsonb_to_recordset(?::jsonb) as r(id bigint, "feedFile" text, "boxType" text, name text, place text,
    street text, city text, zip text, country text, latitude double precision, longitude double precision,
    "statusId" smallint, "displayFrontend" boolean, "codAllowed" boolean, "maxWeightKg" integer, "openSince" date,
    "openUntil" date, "enterableUntil" date, "openingHours" jsonb, "contentHash" text)
  on conflict (id) do update set feed_file = excluded.feed_file, box_type = excluded.box_type, name = excluded.name,
    place = excluded.place, street = excluded.street, city = excluded.city, zip = excluded.zip,
    country = excluded.country, latitude = excluded.latitude, longitude = excluded.longitude,
    location = excluded.location, status_id = excluded.status_id, display_frontend = excluded.display_frontend,
    cod_allowed = excluded.cod_allowed, max_weight_kg = excluded.max_weight_kg, open_since = excluded.open_since,
    open_until = excluded.open_until, enterable_until = excluded.enterable_until,
    opening_hours = excluded.opening_hours, content_hash = excluded.content_hash, in_feed = true,
    changed_at = excluded.changed_at, vanished_at = null`;

/** Raw statements answer timestamps as text (MikroORM's type parsers). */
type Timestamp = string | Date | null;
const at = (value: Timestamp): Date | null => (value === null ? null : new Date(value));

interface FileRow {
  feed_file: PacketaFeedFile;
  etag: string | null;
  last_modified: string | null;
  digest: string | null;
  points: number | null;
  checked_at: Timestamp;
  changed_at: Timestamp;
  failures_in_a_row: number;
  last_error: string | null;
  last_failure_at: Timestamp;
}

/** The store over the service's database (`orm.em`); each call forks its own EntityManager. */
export function packetaPointsStore(em: EntityManager): PacketaPointsStore {
  const execute = <T extends object>(sql: string, params: unknown[] = []) => em.fork().execute<T>(sql, params);
  return {
    async fileStates() {
      const rows = await execute<FileRow[]>('select * from packeta_feed_files order by feed_file');
      return rows.map((r) => ({
        feedFile: r.feed_file,
        etag: r.etag,
        lastModified: r.last_modified,
        digest: r.digest,
        points: r.points,
        checkedAt: at(r.checked_at),
        changedAt: at(r.changed_at),
        failuresInARow: r.failures_in_a_row,
        lastError: r.last_error,
        lastFailureAt: at(r.last_failure_at),
      }));
    },
    async storedPoints() {
      const rows = await execute<
        Array<{ id: string; feed_file: PacketaFeedFile; content_hash: string; in_feed: boolean }>
      >('select id::text as id, feed_file, content_hash, in_feed from packeta_pickup_points');
      return new Map(
        rows.map((r) => [r.id, { feedFile: r.feed_file, contentHash: r.content_hash, inFeed: r.in_feed }]),
      );
    },
    async writePoints(points, now) {
      if (points.length > 0) await execute(UPSERT, [now, now, JSON.stringify(points)]);
    },
    async markVanished(ids, now) {
      if (ids.length === 0) return;
      await execute(
        'update packeta_pickup_points set in_feed = false, vanished_at = ? where id = any(?::bigint[]) and in_feed',
        [now, `{${ids.join(',')}}`],
      );
    },
    async recordChecked(file, version, changed, now) {
      await execute(
        `insert into packeta_feed_files (feed_file, etag, last_modified, digest, points, checked_at, changed_at,
             failures_in_a_row, last_error)
           values (?, ?, ?, ?, ?, ?, ?, 0, null)
         on conflict (feed_file) do update set etag = excluded.etag, last_modified = excluded.last_modified,
           digest = excluded.digest, points = coalesce(excluded.points, packeta_feed_files.points),
           checked_at = excluded.checked_at,
           changed_at = coalesce(excluded.changed_at, packeta_feed_files.changed_at, excluded.checked_at),
           failures_in_a_row = 0, last_error = null`,
        [file, version.etag, version.lastModified, version.digest, version.points, now, changed ? now : null],
      );
    },
    async recordFailure(file, message, now) {
      await execute(
        `insert into packeta_feed_files (feed_file, failures_in_a_row, last_error, last_failure_at) values (?, 1, ?, ?)
         on conflict (feed_file) do update set failures_in_a_row = packeta_feed_files.failures_in_a_row + 1,
           last_error = excluded.last_error, last_failure_at = excluded.last_failure_at`,
        [file, message.slice(0, 500), now],
      );
    },
    async counts(day) {
      const [row] = await execute<Array<{ in_feed: number; offerable: number; vanished: number }>>(
        `select (count(*) filter (where in_feed))::int as in_feed, (count(*) filter (where ${OFFERABLE}))::int as offerable,
           (count(*) filter (where not in_feed))::int as vanished
         from packeta_pickup_points`,
        [day, day, day],
      );
      return { inFeed: row!.in_feed, offerable: row!.offerable, vanished: row!.vanished };
    },
    async everImported() {
      const [row] = await execute<Array<{ imported: boolean }>>(
        'select exists (select 1 from packeta_feed_files where checked_at is not null) as imported',
      );
      return row!.imported;
    },
    async nearest(search) {
      // Nearest first by the GiST index (`<->` between points on the Earth's surface: the chord, which orders as the
      // great-circle distance does); the index holds only points in the feed, in operation and shown to customers.
      return execute<PacketaPointView[]>(
        `select ${VIEW} from packeta_pickup_points
          where country = ? and ${OFFERABLE}
          order by location <-> ll_to_earth(?, ?)::cube limit ?`,
        [search.country, search.day, search.day, search.day, search.latitude, search.longitude, search.limit],
      );
    },
    async offerable(id, day) {
      const [row] = await execute<PacketaPointView[]>(
        `select ${VIEW} from packeta_pickup_points where id = ?::bigint and ${OFFERABLE}`,
        [id, day, day, day],
      );
      return row ?? null;
    },
  };
}

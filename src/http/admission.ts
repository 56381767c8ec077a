import type { Pool } from 'pg';
import { statementName, type ReadStatement } from '../db/prepared';
import { bucketCharges, type LimitClass, type WindowBucketName } from '../domain/rate-limits';
import type { RouteDefinition } from './route';
import type { AppContext } from './state';
import {
  bucketArrays,
  READ_WINDOWS,
  READ_WINDOWS_GIVE_BACK,
  readWindowCharge,
  readWindowsTake,
  readWindowsTaken,
  type ReadWindowsRow,
  type TakenBucket,
} from '../limits/counter-store';
import { countersUnavailable, type RequestLimiter } from './request-limiter';
import { isTransientDatabaseError } from '../db/unreachable';
import type { Logger } from '../logger';
import { acceptKey, requestKeyHash, type KeyRow, type KeyStatements } from './authorizer';
import { scopeGrantsFor } from '../access/scopes';

/**
 * Authenticates a request and takes its rate-limit units in one statement (router: routes with a fixed class and no
 * body), with the statement of the route's read plan when it has one (src/http/read-plan.ts): its rows come back,
 * unchecked (the router checks them with the plan's row parser), or null when the route must read on its own. Throws the spec's refusal: 401/403 as the separate lookup would, 429 `rate_limited`, or 503
 * `temporarily_unavailable` when the statement cannot run.
 */
export type Admission = (
  ctx: AppContext,
  route: RouteDefinition,
  limitClass: LimitClass,
  read?: (storeId: string, keyHash: string) => ReadStatement | null,
) => Promise<unknown[] | null>;

/** The row of `api_admit`, as JSON (`row_to_json`): once per answer, however many rows a carried read has. */
interface AdmitRow {
  key_id: string;
  key_store_id: string;
  key_secret_hash: string;
  key_scopes: string[];
  key_pinned_version: string;
  key_revoked_at: string | null;
  key_expires_at: string | null;
  key_last_used_at: string | null;
  store_app_installed: boolean;
  store_api_enabled: boolean;
  store_paused_by_support: boolean;
  store_subscription_active: boolean;
  store_free_access: boolean;
  store_write_access: boolean;
  taken_buckets: WindowBucketName[] | null;
  taken_limits: number[] | null;
  taken_used: number[] | null;
  taken_window_starts: number[] | null;
  taken_allowed: boolean[] | null;
  read_allowed: boolean | null;
}

/** The read class's row: the key's columns as above, then its read windows after the take (null when none). */
type ReadClassRow = Omit<AdmitRow, `taken_${string}`> & { [K in keyof ReadWindowsRow]: ReadWindowsRow[K] | null };

const ADMIT_TEXT =
  'select row_to_json(a) as admission from api_admit($1, $2, $3, $4, $5, $6, $7, $8, $9, null, null) a';
/** `$10` is the store the read was built for; the read's own placeholders follow it. */
const READ_OFFSET = 10;

/** A named statement: the text and its prepared-statement name, worked out once per text. */
interface Named {
  name: string;
  text: string;
}
const named = (text: string): Named => ({ name: statementName(text), text });
const ADMIT = named(ADMIT_TEXT);
const admitTexts = new Map<string, Named>();

/**
 * The admission statement carrying a read. The read is a materialized CTE, numbered in its own order, whose row count
 * is an argument of `api_admit`, so it runs before the function takes (and locks) any counter row. Its rows are joined
 * to the admission only when `read_allowed` (the units were taken for a key of the store they were read for); the
 * admission comes once, on the first row (one row with no read columns when the read found nothing or is refused).
 */
function admitWithRead(read: ReadStatement): Named {
  let statement = admitTexts.get(read.text);
  if (!statement) {
    const shifted = read.text.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + READ_OFFSET}`);
    statement = named(`with q as materialized (select row_number() over () as read_row, r.* from (${shifted}) r)
      select case when q.read_row is null or q.read_row = 1 then row_to_json(a) end as admission, q.*
        from api_admit($1, $2, $3, $4, $5, $6, $7, $8, $9, $${READ_OFFSET}, (select count(*)::integer from q)) a
        left join q on a.read_allowed
       order by q.read_row`);
    admitTexts.set(read.text, statement);
  }
  return statement;
}

/**
 * The read class's admission (decision 1020): the key and its gates, then both read windows in ONE upsert of plain
 * SQL (`readWindowsTake`), with the route's read when it has one. The gates are the same mirror as `api_admit`'s. The
 * read runs first (the key row counts its rows), so the window row is locked only for the rest of the statement.
 * `$5` is the units, `$6`/`$7` the windows' limits, `$8` the read's store; the read's placeholders follow.
 */
const READ_CLASS_OFFSET = 8;
function readClassText(read: ReadStatement | null, takes: boolean): string {
  const shifted = read?.text.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + READ_CLASS_OFFSET}`);
  const take = takes
    ? readWindowsTake(
        'select k.id as subject, $2::bigint as now_ms, $5::integer as units, k.store_id, $6::integer as second_default, ' +
          '$7::integer as minute_default from k where k.usable',
      )
    : // The benchmark's baseline (takes: false): the same statement with nothing counted.
      `select 0 as second_used, 0 as second_start, $6::integer as second_limit, 0 as minute_used, 0 as minute_start,
              $7::integer as minute_limit, $5::integer as units, true as taken from k where k.usable`;
  return `with ${shifted ? `q as materialized (select row_number() over () as read_row, r.* from (${shifted}) r),` : ''}
    k as (
      select a.id, a.store_id, a.secret_hash, a.scopes, a.pinned_version, a.revoked_at, a.expires_at, a.last_used_at,
             s.app_installed, s.api_enabled, s.paused_by_support, s.subscription_active, s.free_access, s.write_access,
             a.revoked_at is null and (a.expires_at is null or a.expires_at > to_timestamp($2::bigint / 1000.0))
               and s.app_installed and s.api_enabled and not s.paused_by_support
               and (s.subscription_active or s.free_access) and (not $3::boolean or s.write_access)
               and ($4::text[] is null or a.scopes && $4::text[]) as usable
             ${shifted ? ', (select count(*) from q) as read_rows' : ''}
        from api_keys a join stores s on s.id = a.store_id
       where a.secret_hash = $1),
    t as (${take})
    select ${shifted ? 'case when q.read_row is null or q.read_row = 1 then row_to_json(a) end as admission, q.*' : 'row_to_json(a) as admission'}
      from (select k.id as key_id, k.store_id as key_store_id, k.secret_hash as key_secret_hash, k.scopes as key_scopes,
                   k.pinned_version as key_pinned_version, k.revoked_at as key_revoked_at,
                   k.expires_at as key_expires_at, k.last_used_at as key_last_used_at,
                   k.app_installed as store_app_installed, k.api_enabled as store_api_enabled,
                   k.paused_by_support as store_paused_by_support, k.subscription_active as store_subscription_active,
                   k.free_access as store_free_access, k.write_access as store_write_access, t.*,
                   t.taken and k.store_id = ${shifted ? `$${READ_CLASS_OFFSET}` : 'null'} as read_allowed
              from k left join t on true) a
      ${shifted ? 'left join q on a.read_allowed order by q.read_row' : ''}`;
}
const readClassTexts = new Map<string, Named>();
function admitReadClass(read: ReadStatement | null, takes: boolean): Named {
  const key = `${takes}:${read?.text ?? ''}`;
  let statement = readClassTexts.get(key);
  if (!statement) {
    statement = named(readClassText(read, takes));
    readClassTexts.set(key, statement);
  }
  return statement;
}

/** Keys never move between stores: the store of a key hash, learnt from its admissions (bounded). */
const STORE_CACHE_SIZE = 10_000;

function keyOf(r: AdmitRow | ReadClassRow): KeyRow {
  return {
    id: r.key_id,
    store_id: r.key_store_id,
    secret_hash: r.key_secret_hash,
    scopes: r.key_scopes,
    pinned_version: r.key_pinned_version,
    revoked_at: r.key_revoked_at,
    expires_at: r.key_expires_at,
    last_used_at: r.key_last_used_at,
    app_installed: r.store_app_installed,
    api_enabled: r.store_api_enabled,
    paused_by_support: r.store_paused_by_support,
    subscription_active: r.store_subscription_active,
    free_access: r.store_free_access,
    write_access: r.store_write_access,
  };
}

function takenOf(r: AdmitRow | ReadClassRow): TakenBucket[] | null {
  if ('taken' in r) return r.taken === null ? null : readWindowsTaken(r as ReadWindowsRow);
  const { taken_buckets: buckets, taken_limits: limits, taken_used: used, taken_allowed: allowed } = r;
  const windowStarts = r.taken_window_starts;
  if (!buckets || !limits || !used || !windowStarts || !allowed) return null;
  return buckets.map((bucket, i) => ({
    bucket,
    limit: limits[i]!,
    used: used[i]!,
    windowStartMs: windowStarts[i]!,
    allowed: allowed[i]!,
  }));
}

const GIVE_BACK = { name: 'rate_limit_give_back', text: 'select rate_limit_give_back($1, $2, $3, $4, $5, $6)' };

/**
 * The admission statement `api_admit` (migration 20261124000000, docs/decisions/0017-admission-in-one-statement.md):
 * key, store gates and rate-limit buckets in one round trip, with the route's read when the key's store is known. The
 * statement decides whether to take units with a mirror of the gates and the scope; the refusal itself always comes
 * from `acceptKey`, the same code as the separate lookup. Should the mirror ever disagree, the units are given back
 * (refused) or taken separately (accepted), and it is logged.
 */
export function createAdmission(deps: {
  pool: Pool;
  keys: KeyStatements;
  limiter: RequestLimiter;
  now: () => Date;
  logger: Logger;
  supportEmail?: string;
  /** False only for the benchmark's baseline: the read class is admitted without counting (decision 1020). */
  takes?: boolean;
}): Admission {
  const supportEmail = deps.supportEmail ?? 'support@example.com';
  const stores = new Map<string, string>();

  /** The route's read for the key's store, when the store is known and the read can be built (else none). */
  function readFor(hash: string, read: ((storeId: string, keyHash: string) => ReadStatement | null) | undefined) {
    const storeId = read && stores.get(hash);
    if (!storeId) return null;
    try {
      const statement = read(storeId, hash);
      return statement && { storeId, statement };
    } catch {
      // A read that cannot be built (a refused cursor): the handler reads on its own and refuses it.
      return null;
    }
  }

  async function giveBack(
    ctx: AppContext,
    key: KeyRow,
    taken: TakenBucket[],
    charges: ReturnType<typeof bucketCharges>,
  ) {
    deps.logger.warn({ request_id: ctx.state.requestId }, 'admission mirror charged a refused request; given back');
    const read = readWindowCharge(charges);
    if (read) {
      const start = (bucket: string) => taken.find((t) => t.bucket === bucket)!.windowStartMs;
      const values = [key.id, start(READ_WINDOWS.second), start(READ_WINDOWS.minute), read.units];
      await deps.pool
        .query({ ...READ_WINDOWS_GIVE_BACK, values })
        .catch((error: unknown) => deps.logger.error({ err: error }, 'giving back rate-limit units failed'));
      return;
    }
    const charged = new Map(charges.map((c) => [c.bucket, c]));
    const values = [
      key.store_id,
      key.id,
      taken.map((t) => t.bucket),
      taken.map((t) => charged.get(t.bucket)!.scope === 'key'),
      taken.map((t) => t.windowStartMs),
      taken.map((t) => charged.get(t.bucket)!.units),
    ];
    await deps.pool
      .query({ ...GIVE_BACK, values })
      .catch((error: unknown) => deps.logger.error({ err: error }, 'giving back rate-limit units failed'));
  }

  return async (ctx, route, limitClass, read) => {
    const hash = requestKeyHash(ctx);
    const access = route.access.kind === 'key' ? route.access : { scope: '', write: false };
    const now = deps.now();
    const nowMs = now.getTime();
    const charges = bucketCharges([{ limitClass, units: 1 }]);
    const carried = readFor(hash, read);
    let rows: Array<{ admission: AdmitRow | ReadClassRow | null; read_row?: string | null }>;
    try {
      const readCharge = readWindowCharge(charges);
      const values: unknown[] = [hash, nowMs, access.write ?? false, scopeGrantsFor(access.scope)];
      if (readCharge) values.push(readCharge.units, readCharge.secondLimit, readCharge.minuteLimit);
      else values.push(...bucketArrays(charges));
      const statement = readCharge
        ? admitReadClass(carried?.statement ?? null, deps.takes ?? true)
        : carried
          ? admitWithRead(carried.statement)
          : ADMIT;
      if (carried) values.push(carried.storeId, ...carried.statement.values);
      rows = (await deps.pool.query<(typeof rows)[number]>({ ...statement, values })).rows;
    } catch (error) {
      // A statement that cannot run as written is a bug (500), not counters that are down for the moment.
      if (!isTransientDatabaseError(error)) throw error;
      deps.logger.error({ request_id: ctx.state.requestId, err: error }, 'admission statement failed');
      throw countersUnavailable(false);
    }
    const row = rows[0]?.admission ?? undefined;
    const key = row ? keyOf(row) : undefined;
    const taken = row ? takenOf(row) : null;
    try {
      acceptKey(ctx, route, key, hash, now, supportEmail);
    } catch (refusal) {
      // A refused take already gave its units back in the statement.
      if (taken && key && taken.every((t) => t.allowed)) await giveBack(ctx, key, taken, charges);
      throw refusal;
    }
    if (stores.size >= STORE_CACHE_SIZE) stores.clear();
    stores.set(hash, key!.store_id);
    await deps.keys.touchIfStale(key!, now);
    if (!taken) {
      deps.logger.warn({ request_id: ctx.state.requestId }, 'admission mirror refused an accepted request; charged');
      await deps.limiter.admit(ctx, { ...route, limits: limitClass }, { params: {}, query: {}, body: undefined });
      return null;
    }
    deps.limiter.settle(ctx, taken, nowMs);
    // Every bucket allowed (settle throws otherwise): the carried read's rows, none when it found nothing.
    if (!carried || row!.read_allowed !== true) return null;
    return rows[0]!.read_row === null ? [] : rows;
  };
}

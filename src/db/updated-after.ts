import { limitClause } from './prepared';

/**
 * The SQL shape of an `updated_after` page, shared by labels and creations (decisions 0104, 0109, 0119): the rows in
 * flight at the bound (created before it, updated at or after it) and the rows created since, each part read in the
 * page's order at the cost of its rows, the second only when the first leaves the page short.
 */

/**
 * A row's update span `(created_at, updated_at]` (columns prefixed by `alias`, `l.` or nothing): it contains an instant
 * X exactly when the row was created before X and updated at or after it. `greatest` leaves a row updated before its
 * creation (fixture data) an empty span. The GiST indexes of migration 20261205000000 are on this expression.
 */
export function updateSpan(alias: string): string {
  return `tstzrange(${alias}created_at, greatest(${alias}created_at, ${alias}updated_at), '(]')`;
}

/**
 * Where the GiST index's nearest-first scan starts (btree_gist's `<->` on `created_at`), so that it returns rows in the
 * page's order: from before every row for the oldest first, from after every row for the newest first.
 */
const NEAREST_FROM = {
  asc: "'0001-01-01 00:00:00+00'::timestamptz",
  desc: "'9999-12-31 00:00:00+00'::timestamptz",
} as const;

export interface InFlightRead {
  /** `select <columns> from <table> [alias]`. */
  select: string;
  /** The page's own conditions: the store, lookups, the keyset cursor. */
  conditions: readonly string[];
  /** The columns' prefix: `l.` or nothing. */
  alias: string;
  /** The bound's placeholder. */
  bound: string;
  /** The placeholder of the cursor's `created_at`, after a cursor. */
  cursorAt: string | null;
  order: 'asc' | 'desc';
  rows: number;
}

/**
 * The rows in flight at the bound, at most `rows` of them in the page's order, read in that order from the GiST index
 * on `(store_id, span, created_at)`: the scan stops after its rows and, after a cursor, starts at the cursor's
 * `created_at`. The index orders by `created_at` alone, so ties at the last row are all taken and sorted by `seq`
 * outside. The span test is the only bound condition and the cursor's `created_at` the only range: with `created_at <
 * bound` beside the cursor, PostgreSQL's generic plan priced a btree range as a few rows and read every row since it.
 */
export function inFlightPart(r: InFlightRead): string {
  const conditions = [...r.conditions, `${updateSpan(r.alias)} @> ${r.bound}`];
  if (r.cursorAt) conditions.push(`${r.alias}created_at ${r.order === 'asc' ? '>=' : '<='} ${r.cursorAt}`);
  return `select * from (${r.select} where ${conditions.join(' and ')}
      order by ${r.alias}created_at <-> ${NEAREST_FROM[r.order]} fetch first ${r.rows} rows with ties) in_flight
    order by created_at ${r.order}, seq ${r.order} ${limitClause(r.rows)}`;
}

/**
 * Two parts of a page, each limited and in the page's order, every row of `first` before every row of `second`: the
 * first is read, the second only when the first is short of `rows` (decision 0109). The result is aliased `l`.
 */
export function firstThenOnDemand(first: string, second: string, orderBy: string, rows: number): string {
  return `with first as materialized (${first})
      select * from (select * from first
        union all select * from (${second}) s where (select count(*) from first) < ${rows}) l
      order by ${orderBy} ${limitClause(rows)}`;
}

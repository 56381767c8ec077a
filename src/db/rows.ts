import type { EntityManager } from '@mikro-orm/postgresql';
import { runPrepared, type ReadStatement } from './prepared';

/**
 * Typed rows of plain SQL (docs/decisions/1120-typed-admitted-reads.md). A statement's rows come back as `unknown`
 * from node-postgres; a row parser is a typed function that reads each column of the row by name through a check
 * (`columns`) into an object of the row's type, or throws `MalformedRowError` naming the column. The object literal
 * is typed as the row, so a column left out, or read with a check of another type, does not compile. Named reads
 * and a few `typeof` tests per column keep it cheap: the read path parses every row of a 250-label page on every
 * request (a generic loop over column names measured ten times slower; the keyed reads do not stay monomorphic).
 *
 * JSON columns are checked for their kind (object, array) only: their contents are what the typed write path stored.
 */

/** A row that is not what its statement declares: a bug (a statement and its type apart), answered 500, never guessed at. */
export class MalformedRowError extends Error {
  override name = 'MalformedRowError';
}

/** A column that failed its check; `rowParser` names the statement and the row. */
class MalformedColumn extends Error {
  constructor(
    readonly column: string,
    readonly problem: string,
  ) {
    super(`column ${column} ${problem}`);
  }
}

/** Checks one row (`index` is its place among the statement's rows, for the error). */
export type RowParser<T> = (row: unknown, index: number) => T;

/** What a value is, for the error: never the value itself (a row may hold personal data). */
function described(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'undefined';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

function refused(value: unknown, column: string, expected: string): never {
  throw new MalformedColumn(column, `is ${described(value)}, expected ${expected}`);
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A check of a column's value: the value typed, or a refusal naming `column`. */
export type Check<T> = (value: unknown, column: string) => T;

/** A nullable column of `check`: made once, at module level (a check made per row would cost its closure). */
export const orNull =
  <T>(check: Check<T>): Check<T | null> =>
  (value, column) =>
    value === null ? null : check(value, column);

export const columns = {
  text(value: unknown, column: string): string {
    return typeof value === 'string' ? value : refused(value, column, 'text');
  },
  /** A timestamp as text: the drivers hand timestamps over unparsed, JSON as ISO (readers build their one Date). */
  timestamp(value: unknown, column: string): string {
    return typeof value === 'string' ? value : refused(value, column, 'a timestamp as text');
  },
  /** bigint, numeric: a string from node-postgres, a number inside JSON (`json_agg`). */
  numeric(value: unknown, column: string): string | number {
    if (typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value))) return value;
    return refused(value, column, 'a bigint or numeric');
  },
  /** A bigint read by node-postgres only (never inside JSON): always its text. */
  bigintText(value: unknown, column: string): string {
    return typeof value === 'string' ? value : refused(value, column, 'a bigint as text');
  },
  integer(value: unknown, column: string): number {
    return Number.isSafeInteger(value) ? (value as number) : refused(value, column, 'an integer');
  },
  boolean(value: unknown, column: string): boolean {
    return typeof value === 'boolean' ? value : refused(value, column, 'a boolean');
  },
  textArray(value: unknown, column: string): string[] {
    if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value;
    return refused(value, column, 'text[]');
  },
  textOrNull(value: unknown, column: string): string | null {
    return value === null || typeof value === 'string' ? value : refused(value, column, 'text or null');
  },
  timestampOrNull(value: unknown, column: string): string | null {
    return value === null || typeof value === 'string' ? value : refused(value, column, 'a timestamp as text or null');
  },
  booleanOrNull(value: unknown, column: string): boolean | null {
    return value === null || typeof value === 'boolean' ? value : refused(value, column, 'a boolean or null');
  },
  numericOrNull(value: unknown, column: string): string | number | null {
    return value === null ? null : columns.numeric(value, column);
  },
  /** One of a vocabulary (`LABEL_STATUSES`, ...): a value outside it is a row this code cannot answer. */
  oneOf<const V extends string>(values: readonly V[]): Check<V> {
    // A vocabulary is a handful of words: a scan of them costs less than hashing the value.
    const allowed: readonly string[] = values;
    const isAllowed = (value: unknown): value is V => typeof value === 'string' && allowed.includes(value);
    return (value, column) => (isAllowed(value) ? value : refused(value, column, `one of ${values.join(', ')}`));
  },
  /** A JSON object column whose contents the typed write path stored as `T`. */
  jsonObject<T extends object>(): Check<T> {
    return (value, column) => (isObject(value) ? (value as T) : refused(value, column, 'a JSON object'));
  },
  /** A JSON array column whose elements the typed write path stored as `T`. */
  jsonArray<T>(): Check<T[]> {
    return (value, column) => (Array.isArray(value) ? (value as T[]) : refused(value, column, 'a JSON array'));
  },
  /** A JSON array of rows, each checked by `parser` (a record's labels carried in its statement). */
  rows<T>(parser: RowParser<T>): Check<T[]> {
    return (value, column) => {
      if (!Array.isArray(value)) return refused(value, column, 'a JSON array of rows');
      try {
        return parseRows(parser, value);
      } catch (error) {
        if (error instanceof MalformedRowError) throw new MalformedColumn(column, `holds ${error.message}`);
        throw error;
      }
    };
  },
};

/**
 * The parser of rows of `name` (the statement's, for the error): `read` reads every column of a row through a check
 * into the row's type (an object literal typed as `T`). Columns the row has beside them (the admission statement's
 * own) are left behind.
 */
export function rowParser<T>(name: string, read: (row: Record<string, unknown>) => T): RowParser<T> {
  return (row, index) => {
    if (!isObject(row)) throw new MalformedRowError(`${name} row ${index} is ${described(row)}, not a row`);
    try {
      return read(row);
    } catch (error) {
      if (error instanceof MalformedColumn) throw new MalformedRowError(`${name} row ${index}: ${error.message}`);
      throw error;
    }
  };
}

/** A parser that tells two shapes of row apart by `isFirst` (a page of references or of full rows). */
export function eitherRow<A, B>(isFirst: (row: object) => boolean, first: RowParser<A>, second: RowParser<B>) {
  return (row: unknown, index: number): A | B =>
    typeof row === 'object' && row !== null && isFirst(row) ? first(row, index) : second(row, index);
}

/** Every row checked, in order; the first malformed one throws. */
export function parseRows<T>(parser: RowParser<T>, rows: readonly unknown[]): T[] {
  const parsed = new Array<T>(rows.length);
  for (let i = 0; i < rows.length; i += 1) parsed[i] = parser(rows[i], i);
  return parsed;
}

/** Runs a read statement on its own (`runPrepared`) and checks its rows. */
export async function readRows<T>(em: EntityManager, statement: ReadStatement, parser: RowParser<T>): Promise<T[]> {
  return parseRows(parser, await runPrepared<unknown>(em, statement.text, statement.values));
}

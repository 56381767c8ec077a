import type { EntityManager } from '@mikro-orm/postgresql';
import { runPrepared, type ReadStatement } from './prepared';

/**
 * Typed rows of plain SQL (docs/decisions/1120-typed-admitted-reads.md). A statement's rows come back as `unknown`
 * from node-postgres; a row parser checks each column of a row against the row's declared type and hands the same
 * object back typed, or throws `MalformedRowError` naming the column. It is a check, not a copy: a few `typeof` tests
 * per column, because the read path parses every row of a 250-label page on every request.
 *
 * JSON columns are checked for their kind (object, array) only: their contents are what the typed write path stored.
 */

/** One column's check: what it accepts, and its name for the error. */
export interface Column<T> {
  readonly kind: string;
  readonly accepts: (value: unknown) => value is T;
}

/** A row that is not what its statement declares: a bug (a statement and its type apart), answered 500, never guessed at. */
export class MalformedRowError extends Error {
  override name = 'MalformedRowError';
}

/** A column check for every field of `T`: a field without one, or a check of another type, does not compile. */
export type RowShape<T> = { readonly [K in keyof T]-?: Column<T[K]> };

/** Checks one row (`index` is its place among the statement's rows, for the error). */
export type RowParser<T> = (row: unknown, index: number) => T;

const column = <T>(kind: string, accepts: (value: unknown) => value is T): Column<T> => ({ kind, accepts });

const isString = (value: unknown): value is string => typeof value === 'string';

export const columns = {
  text: column('text', isString),
  /** A timestamp as text: the drivers hand timestamps over unparsed, JSON as ISO (readers build their one Date). */
  timestamp: column('timestamp', isString),
  /** bigint, numeric: a string from node-postgres, a number inside JSON (`json_agg`). */
  numeric: column('bigint or numeric', (value): value is string | number =>
    typeof value === 'string' ? true : typeof value === 'number' && Number.isFinite(value),
  ),
  /** A bigint read by node-postgres only (never inside JSON): always its text. */
  bigintText: column('bigint', isString),
  integer: column('integer', (value): value is number => Number.isSafeInteger(value)),
  boolean: column('boolean', (value): value is boolean => typeof value === 'boolean'),
  textArray: column('text[]', (value): value is string[] => Array.isArray(value) && value.every(isString)),
  /** One of a vocabulary (`LABEL_STATUSES`, ...): a value outside it is a row this code cannot answer. */
  oneOf<const V extends string>(values: readonly V[]): Column<V> {
    const allowed: ReadonlySet<string> = new Set(values);
    return column(
      `one of ${values.join(', ')}`,
      (value): value is V => typeof value === 'string' && allowed.has(value),
    );
  },
  /** A JSON object column whose contents the write path typed as `T`. */
  jsonObject<T extends object>(): Column<T> {
    return column(
      'a JSON object',
      (value): value is T => typeof value === 'object' && value !== null && !Array.isArray(value),
    );
  },
  /** A JSON array column whose elements the write path typed as `T`. */
  jsonArray<T>(): Column<T[]> {
    return column('a JSON array', (value): value is T[] => Array.isArray(value));
  },
  /** A JSON array of rows, each checked by `parser` (a record's labels carried in its statement). */
  rows<T>(parser: RowParser<T>): Column<T[]> {
    return column('a JSON array of rows', (value): value is T[] => {
      if (!Array.isArray(value)) return false;
      value.forEach(parser);
      return true;
    });
  },
  nullable<T>(inner: Column<T>): Column<T | null> {
    return column(`${inner.kind} or null`, (value): value is T | null => value === null || inner.accepts(value));
  },
};

/** What a value is, for the error: never the value itself (a row may hold personal data). */
function described(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'undefined';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** The parser of rows of `name` (the statement's name, for the error), from a check per column. */
export function rowParser<T>(name: string, shape: RowShape<T>): RowParser<T> {
  const names = Object.keys(shape) as Array<keyof T & string>;
  const checks = names.map((key) => shape[key] as Column<unknown>);
  return (row, index) => {
    if (typeof row !== 'object' || row === null) {
      throw new MalformedRowError(`${name} row ${index} is ${described(row)}, not a row`);
    }
    const record = row as Record<string, unknown>;
    for (let i = 0; i < names.length; i += 1) {
      const check = checks[i]!;
      const value = record[names[i]!];
      if (!check.accepts(value)) {
        const found = value === undefined && !(names[i]! in record) ? 'missing' : described(value);
        throw new MalformedRowError(`${name} row ${index}: column ${names[i]} is ${found}, expected ${check.kind}`);
      }
    }
    // Every declared column checked above: the row is a T (other columns it carries are not part of its type).
    return row as T;
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

import type { ReadStatement } from '../db/prepared';
import { parseRows, type RowParser } from '../db/rows';
import type { AuthContext } from './state';

/**
 * A route's hot read (docs/decisions/0017-admission-in-one-statement.md, 1120-typed-admitted-reads.md), declared on
 * routes with a fixed rate-limit class and no body. Its statement, built from the validated input and the caller's
 * store before any I/O, rides in the admission statement, so key, gates, rate limit and data take one round trip; its
 * rows are checked by `row` and answered by `answer`. Without them (a key's first request, no statement for this
 * input, a statement that could not be built, such as one with a refused cursor) the router runs `fallback`, the read
 * on its own, which answers the same. Either way the handler gets the typed `Read`. Reads only: nothing it builds may
 * act.
 */
export interface ReadPlan<I, Row, Read> {
  /** The read as one statement for the store, or null when this input has none (the fallback reads). */
  statement(input: I, storeId: string, keyHash: string): ReadStatement | null;
  /** Checks one row of the statement: a row that is not a `Row` fails the request (500), never read as one. */
  row: RowParser<Row>;
  /** What the handler gets from the statement's rows (the first one, a page). */
  answer(rows: Row[], input: I, storeId: string): Read;
  /** The read on its own, for the authenticated key. */
  fallback(input: I, auth: AuthContext): Promise<Read>;
}

/**
 * The handler's read: from the rows the admission statement carried, or, when it carried none (`null`), on its own.
 * A malformed admitted row throws; it is not read again on its own, which would hide the bug.
 */
export function planned<I, Row, Read>(
  plan: ReadPlan<I, Row, Read>,
  input: I,
  auth: AuthContext,
  admitted: readonly unknown[] | null,
): Read | Promise<Read> {
  return admitted ? plan.answer(parseRows(plan.row, admitted), input, auth.storeId) : plan.fallback(input, auth);
}

/** The first row or null: the answer of a read by ID. */
export const firstRow = <Row>(rows: readonly Row[]): Row | null => rows[0] ?? null;

import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';

interface PgConnection {
  query(config: { name: string; text: string; values: readonly unknown[] }): Promise<{ rows: unknown[] }>;
}
interface KnexClient {
  acquireConnection(): Promise<PgConnection>;
  releaseConnection(connection: PgConnection): Promise<void>;
}

/**
 * A read as one statement with `$n` placeholders. The hot routes hand it to the admission statement, which runs it in
 * the same round trip as authentication and rate limit (src/http/admission.ts), in its own order, with no column
 * named `admission` or `read_row`. Elsewhere it runs as a prepared statement.
 */
export interface ReadStatement {
  text: string;
  values: unknown[];
}

const names = new Map<string, string>();

/** A stable statement name per SQL text: PostgreSQL parses and plans it once per connection. */
export function statementName(text: string): string {
  let name = names.get(text);
  if (!name) {
    name = `q_${createHash('sha1').update(text).digest('hex').slice(0, 16)}`;
    names.set(text, name);
  }
  return name;
}

/**
 * Runs one statement (`$1` placeholders) as a named prepared statement on a connection of the ORM's own pool, past the
 * query builder: the read path's statements, and the request log's batch insert, are built once, not per request
 * (docs/decisions/0009-read-path.md). Rows are plain objects with the ORM's type parsing (timestamps as strings). It
 * is its own transaction: a transactional EntityManager is refused rather than silently run outside its transaction
 * (docs/decisions/0008-raw-sql-in-transactions.md).
 */
export async function runPrepared<T>(em: EntityManager, text: string, values: readonly unknown[]): Promise<T[]> {
  if (em.isInTransaction()) throw new Error('runPrepared runs outside transactions; use em.execute inside one');
  const client = (em.getKnex() as unknown as { client: KnexClient }).client;
  const connection = await client.acquireConnection();
  try {
    return (await connection.query({ name: statementName(text), text, values })).rows as T[];
  } finally {
    await client.releaseConnection(connection);
  }
}

/**
 * A statement written with the ORM's `?` placeholders (so it can share fragments with `em.execute` statements), its
 * placeholders numbered `$1`, `$2`, ... in order, for `runPrepared`. Its text has no other `?` (no jsonb `?` operator);
 * an array is one placeholder cast to its array type, never `array[?]` (the ORM spreads a list there, PostgreSQL does
 * not).
 */
export function numberedPlaceholders(text: string): string {
  let n = 0;
  return text.replace(/\?/g, () => `$${(n += 1)}`);
}

/**
 * A page's LIMIT written into the statement, not bound: with `limit $n` PostgreSQL prices the generic plan of a
 * prepared page for a tenth of the table, so it never picks it and plans the page afresh on every execution, which
 * cost more than running it (decision 0017). A written limit makes one statement per page size, and the generic plan
 * wins where it is as good; a filter whose best plan depends on its value (`updated_after`) stays planned per value.
 */
export function limitClause(rows: number): string {
  if (!Number.isSafeInteger(rows) || rows < 1) throw new Error(`a page limit is a positive integer, not ${rows}`);
  return `limit ${rows}`;
}

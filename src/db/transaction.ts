import type { EntityManager } from '@mikro-orm/postgresql';
import type { Orm } from './orm';

export type Tx = EntityManager;

/**
 * Runs `work` in one database transaction on a fresh EntityManager. Raw SQL inside goes through `tx.execute(...)`:
 * in MikroORM 6 only that (or the query builder / entity methods of `tx`) joins the transaction, while
 * `getConnection().execute(...)` takes another pool connection and commits on its own (docs/decisions/0008).
 * ESLint forbids `getConnection()` everywhere, so the mistake cannot come back.
 */
export function inTransaction<T>(orm: Orm, work: (tx: Tx) => Promise<T>): Promise<T> {
  return orm.em.fork().transactional(work);
}

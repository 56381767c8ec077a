import type { EntityManager } from '@mikro-orm/postgresql';
import { confirmUnitsSql } from '../../limits/creation-units';
import { allowedSql, phaseSql } from './phase-sql';

/**
 * How many of the wanted fulfillment orders' locks the creation `c` holds (bindings: the store, the wanted GIDs as a
 * JSON array): the fence of the carrier call, read by `sendingState` and checked by `markSent`.
 */
const HELD_LOCKS_SQL = `(select count(*) from fulfillment_order_locks l
   where l.store_id = ? and l.label_creation_id = c.id
     and l.fulfillment_order_gid in (select jsonb_array_elements_text(?::jsonb)))`;

/**
 * Where an attempt stands as its carrier call starts: the record's status, whether the carrier was already called
 * (`sent_at`), and whether it still holds every lock on `fulfillmentOrderGids` (fencing), in one statement.
 */
export async function sendingState(
  em: EntityManager,
  input: { id: string; storeId: string; fulfillmentOrderGids: readonly string[] },
): Promise<{ status: string; sentAt: string | null; holdsLocks: boolean; labelIds: string[] } | null> {
  const wanted = [...new Set(input.fulfillmentOrderGids)];
  const [row] = await em.execute<Array<{ status: string; sent_at: string | null; held: number; label_ids: string[] }>>(
    `select c.status, c.sent_at, c.label_ids, ${HELD_LOCKS_SQL}::int as held from label_creations c where c.id = ?`,
    [input.storeId, JSON.stringify(wanted), input.id],
  );
  return row
    ? { status: row.status, sentAt: row.sent_at, holdsLocks: row.held === wanted.length, labelIds: row.label_ids ?? [] }
    : null;
}

/**
 * The moment before the carrier is called: `sent_at` says a retry may find the shipment already made. Reaching the
 * carrier is what a daily creation unit counts (spec "Limits"), so the creation's unit (its ID) is confirmed in the
 * same statement: a retry that finds `sent_at` never needs to confirm it again. Fenced: only a `processing` record not
 * yet marked that still holds every lock on `fulfillmentOrderGids` is marked (and its unit confirmed); returns whether
 * this statement marked it.
 */
export async function markSent(
  em: EntityManager,
  input: { id: string; storeId: string; fulfillmentOrderGids: readonly string[]; sentAt: Date; plan?: unknown },
): Promise<boolean> {
  const wanted = [...new Set(input.fulfillmentOrderGids)];
  const [row] = await em.execute<Array<{ marked: number }>>(
    `with marked as (
       update label_creations c set sent_at = ?, ${phaseSql('send')}, updated_at = ?, send_plan = ?::jsonb
        where c.id = ? and ${allowedSql('send', 'c.')} and c.sent_at is null and ${HELD_LOCKS_SQL} = ?
       returning c.id
     ), confirmed as (${confirmUnitsSql('select id from marked')})
     select count(*)::int as marked from marked`,
    [
      input.sentAt,
      input.sentAt,
      input.plan === undefined ? null : JSON.stringify(input.plan),
      input.id,
      input.storeId,
      JSON.stringify(wanted),
      wanted.length,
    ],
  );
  return (row?.marked ?? 0) > 0;
}

/** When the creation's carrier call was marked sent (`markSent`), as ISO 8601; null while it never was. */
export async function recordedSentAt(em: EntityManager, id: string): Promise<string | null> {
  const [row] = await em.execute<Array<{ sent_at: Date | string | null }>>(
    'select sent_at from label_creations where id = ?',
    [id],
  );
  return row?.sent_at ? new Date(row.sent_at).toISOString() : null;
}

/**
 * The plan a creation's carrier call was made on (`markSent`'s), once it was marked sent; null before, or when the
 * call was made without one (docs/decisions/1010-prepare-in-the-carrier-call.md).
 */
export async function sentPlan(em: EntityManager, id: string): Promise<unknown> {
  const [row] = await em.execute<Array<{ send_plan: unknown }>>(
    'select send_plan from label_creations where id = ? and sent_at is not null',
    [id],
  );
  return row?.send_plan ?? null;
}

import type { EntityManager } from '@mikro-orm/postgresql';
import type { Orm } from '../../db/orm';
import { inTransaction } from '../../db/transaction';
import { renderWrite, type WriteStatement } from '../../db/write-statement';
import type { SideEffects } from '../../domain/creation-record';
import type { CreationError, CreationWarning } from '../../domain/refusal';
import { releaseLocks } from '../../locks/fulfillment-order-locks';
import { readCreationById, type CreationRow } from '../records';
import { allowedSql, endSql } from './phase-sql';

/** `resolved` with the COD marked as sent to the carrier: the label that carries it is recorded. */
export const COD_SENT = `jsonb_set(resolved, '{cod,toCarrier,state}', '"sent"', false)`;

interface SucceededInput {
  id: string;
  labelIds: string[];
  created: boolean;
  sideEffects: SideEffects;
  warnings?: CreationWarning[];
  /** The label was recorded just now, by the carrier call itself: its COD went to the carrier (`recordShipment`). */
  codSent?: boolean;
  now: Date;
}

/** `succeeded` as one write: the status and the release of the locks (the same delete as `releaseLocks`). */
export function succeededWrite(input: SucceededInput): WriteStatement {
  return {
    ctes: [
      { name: 'unlocked', sql: 'delete from fulfillment_order_locks where label_creation_id = ?', values: [input.id] },
    ],
    main: {
      sql: `update label_creations set ${endSql('succeed')}, created = ?,
                   label_ids = array[?]::text[], side_effects = ?::jsonb, warnings = coalesce(?::jsonb, warnings),
                   resolved = case when ? then ${COD_SENT} else resolved end,
                   attention = null, updated_at = ?
             where id = ? and ${allowedSql('succeed')}`,
      values: [
        input.created,
        input.labelIds,
        JSON.stringify(input.sideEffects),
        input.warnings ? JSON.stringify(input.warnings) : null,
        input.codSent === true,
        input.now,
        input.id,
      ],
    },
  };
}

/** `succeeded`: the labels are the creation's own (`created: true`) or the existing ones it returns; locks released. */
export async function finishSucceeded(orm: Orm, input: SucceededInput): Promise<void> {
  const write = renderWrite(succeededWrite(input));
  await orm.em.fork().execute(write.sql, write.values);
}

/**
 * `failed`: no shipment exists (`created: false`); the key is released so the same key can try again, and so are the
 * locks. The error is the creation's `error` and the HTTP answer of the request that waits for it.
 */
export async function finishFailed(orm: Orm, input: { id: string; error: CreationError; now: Date }): Promise<void> {
  await inTransaction(orm, async (tx) => {
    await tx.execute(
      `update label_creations set ${endSql('fail')}, created = false, error = ?::jsonb, key_bound = false, updated_at = ?
        where id = ? and ${allowedSql('fail')}`,
      [JSON.stringify(input.error), input.now, input.id],
    );
    await releaseLocks(tx, input.id);
  });
}

/**
 * Housekeeping: the creations nothing carries on any more (still `processing`, never sent, created before
 * `createdBefore`: never started, or their workflow terminated by hand), at most `limit`, oldest first.
 */
export async function unstartedCreations(
  em: EntityManager,
  input: { createdBefore: Date; limit: number },
): Promise<string[]> {
  const rows = await em.execute<Array<{ id: string }>>(
    `select id from label_creations where status = 'processing' and sent_at is null and created_at < ?
      order by created_at limit ?`,
    [input.createdBefore, input.limit],
  );
  return rows.map((row) => row.id);
}

/**
 * Fails one of `unstartedCreations` `not_started` inside the caller's transaction, fenced as the list was chosen (a
 * creation that moved meanwhile is left alone), releasing its key and locks. Returns the failed record and its
 * write-queue place, or null when it had moved: one sweep of two ever fails it.
 */
export async function failUnstarted(
  tx: EntityManager,
  input: { id: string; now: Date },
): Promise<{ row: CreationRow; queueTicketId: string | null } | null> {
  const error: CreationError = {
    code: 'not_started',
    message: 'The creation did not reach the carrier within 5 minutes; nothing was created. Send the request again.',
    details: { label_creation_id: input.id },
  };
  const [failed] = await tx.execute<Array<{ queue_ticket_id: string | null }>>(
    `update label_creations set ${endSql('fail')}, created = false, error = ?::jsonb, key_bound = false, updated_at = ?
      where id = ? and ${allowedSql('fail')} and status = 'processing' and sent_at is null
      returning queue_ticket_id`,
    [JSON.stringify(error), input.now, input.id],
  );
  if (!failed) return null;
  await releaseLocks(tx, input.id);
  return { row: (await readCreationById(tx, input.id))!, queueTicketId: failed.queue_ticket_id };
}

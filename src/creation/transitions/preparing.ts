import type { EntityManager } from '@mikro-orm/postgresql';
import type { Orm } from '../../db/orm';
import type { DecisionRecord } from '../../domain/creation-decision';
import type { WaitFor } from '../../domain/existing-labels';
import {
  LOCK_TAKE_ARGS,
  lockTakeResult,
  lockTakeValues,
  type AcquireResult,
  type LockTakeRow,
} from '../../locks/fulfillment-order-locks';
import { allowedSql, phaseLiteral, phaseSql } from './phase-sql';

/** Where an attempt stands when its workflow (re)starts: only a `processing` record is carried on. */
export async function beginAttempt(
  em: EntityManager,
  id: string,
): Promise<{ status: string; sentAt: string | null } | null> {
  const [row] = await em.execute<Array<{ status: string; sent_at: string | null }>>(
    'select status, sent_at from label_creations where id = ?',
    [id],
  );
  return row ? { status: row.status, sentAt: row.sent_at } : null;
}

/**
 * `preparing`, when the record is still `processing` (a late duplicate run of an attempt that moved on stops): the
 * check and the phase in one statement. Returns the record's status, null when there is none.
 */
export async function beginPreparing(em: EntityManager, input: { id: string; now: Date }): Promise<string | null> {
  const [moved] = await em.execute<Array<{ status: string }>>(
    `update label_creations set ${phaseSql('prepare')}, waiting_for = 'null'::jsonb, updated_at = ?
      where id = ? and ${allowedSql('prepare')} returning status`,
    [input.now, input.id],
  );
  return moved ? moved.status : ((await beginAttempt(em, input.id))?.status ?? null);
}

/** A move within `processing` the workflow makes: waiting for a lock (and what for), for the carrier, finalizing. */
export async function setPhase(
  em: EntityManager,
  input: { id: string; event: 'wait_for_lock' | 'await_carrier' | 'finalize'; waitingFor?: WaitFor | null; now: Date },
): Promise<void> {
  await em.execute(
    `update label_creations set ${phaseSql(input.event)}, waiting_for = ?::jsonb, updated_at = ?
      where id = ? and ${allowedSql(input.event)}`,
    [JSON.stringify(input.waitingFor ?? null), input.now, input.id],
  );
}

/**
 * The statement recording a decision; with `sendWhen` (an SQL condition), the creation moves to `sending_to_carrier`
 * in it when that holds and the phase table allows the move.
 */
function decisionUpdate(
  input: DecisionRecord & { id: string; now: Date },
  sendWhen: string | null,
): { sql: string; values: unknown[] } {
  const send = sendWhen ? `(${sendWhen}) and ${allowedSql('send')}` : null;
  const move = send
    ? `, phase = case when ${send} then ${phaseLiteral('send')} else phase end,
            waiting_for = case when ${send} then 'null'::jsonb else waiting_for end`
    : '';
  return {
    sql: `update label_creations set order_gid = ?, order_legacy_id = ?, order_name = ?,
            fulfillment_order_gids = array[?]::text[], resolved = ?::jsonb, warnings = ?::jsonb, carrier_account_id = ?,
            updated_at = ?${move}
      where id = ?`,
    values: [
      input.order.id,
      input.order.legacyId,
      input.order.name,
      input.fulfillmentOrderGids,
      JSON.stringify(input.resolved ?? {}),
      JSON.stringify(input.warnings),
      input.resolved?.carrierAccountId ?? null,
      input.now,
      input.id,
    ],
  };
}

/** Records a decision that does not create (a refusal, labels to return, a wait): the phase stays. */
export async function recordDecision(
  em: EntityManager,
  input: DecisionRecord & { id: string; now: Date },
): Promise<void> {
  const { sql, values } = decisionUpdate(input, null);
  await em.execute(sql, values);
}

/**
 * Takes the creation's locks (all or none) and records its decision, moving it to `sending_to_carrier` when the locks
 * are taken: one statement, so atomic without a transaction of its own, and the lock rows are never left uncommitted
 * across a round trip.
 */
export async function takeLocks(
  orm: Orm,
  input: {
    id: string;
    storeId: string;
    workflowId: string;
    decision: DecisionRecord;
    staleAfterMs: number;
    expectedState: string;
    now: Date;
  },
): Promise<AcquireResult> {
  const take = lockTakeValues({
    storeId: input.storeId,
    orderGid: input.decision.order.id,
    labelCreationId: input.id,
    workflowId: input.workflowId,
    fulfillmentOrderGids: input.decision.fulfillmentOrderGids,
    staleAfterMs: input.staleAfterMs,
    expectedState: input.expectedState,
  });
  const record = decisionUpdate(
    { ...input.decision, id: input.id, now: input.now },
    `exists (select 1 from taken where r_outcome = 'acquired')`,
  );
  const rows = await orm.em.fork().execute<LockTakeRow[]>(
    `with taken as materialized (
       select * from fulfillment_order_locks_take(${LOCK_TAKE_ARGS})
         with ordinality as t (r_outcome, r_gid, r_creation, r_workflow, n)
     ), recorded as (${record.sql} returning 1)
     select r_outcome, r_gid, r_creation, r_workflow from taken order by n`,
    [...take, ...record.values],
  );
  return lockTakeResult(rows);
}

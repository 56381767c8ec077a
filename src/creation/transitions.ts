import type { EntityManager } from '@mikro-orm/postgresql';
import type { ShipmentResult } from '../carriers/port';
import { labelDocumentUpsert, newLabelWrite, storeLabelDocument, updateLabelState } from '../db/labels-repository';
import type { Orm } from '../db/orm';
import { inTransaction } from '../db/transaction';
import { renderWrite, type WriteStatement } from '../db/write-statement';
import { confirmUnitsSql } from '../limits/creation-units';
import type { DecisionRecord, OrderRef } from '../domain/creation-decision';
import type { WaitFor } from '../domain/existing-labels';
import type { CodSource, LabelCreationPhase } from '../domain/labels';
import type { CreationWarning } from '../domain/refusal';
import type { Resolution } from '../domain/resolve';
import {
  LOCK_TAKE_ARGS,
  lockTakeResult,
  lockTakeValues,
  releaseLocks,
  type AcquireResult,
  type LockTakeRow,
} from '../locks/fulfillment-order-locks';
import type { CreationError } from '../domain/refusal';
import type { SideEffects, StoredAttention } from '../domain/creation-record';
import { readCreationById, type CreationRow } from './records';

/**
 * The state changes of a creation record, as its workflow's activities make them (spec "Label creation `status`").
 * Every change stamps `updated_at` (which also keeps the creation's locks live); every change out of `processing`
 * releases or keeps the locks in the same transaction as the status.
 */

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
 * `preparing`, when the record is still `processing` (a late duplicate run of an attempt that moved on stops): the
 * check and the phase in one statement. Returns the record's status, null when there is none.
 */
export async function beginPreparing(em: EntityManager, input: { id: string; now: Date }): Promise<string | null> {
  const [moved] = await em.execute<Array<{ status: string }>>(
    `update label_creations set phase = 'preparing', waiting_for = 'null'::jsonb, updated_at = ?
      where id = ? and status = 'processing' returning status`,
    [input.now, input.id],
  );
  return moved ? moved.status : ((await beginAttempt(em, input.id))?.status ?? null);
}

export async function setPhase(
  em: EntityManager,
  input: { id: string; phase: LabelCreationPhase; waitingFor?: WaitFor | null; now: Date },
): Promise<void> {
  await em.execute(
    `update label_creations set phase = ?, waiting_for = ?::jsonb, updated_at = ?
      where id = ? and status = 'processing'`,
    [input.phase, JSON.stringify(input.waitingFor ?? null), input.now, input.id],
  );
}

/**
 * The statement recording a decision; `phaseSql` is the phase to move a `processing` creation to (an SQL expression,
 * null: the phase stays), with its placeholders' values in `phaseValues`.
 */
function decisionUpdate(
  input: DecisionRecord & { id: string; now: Date },
  phaseSql: string,
  phaseValues: unknown[],
): { sql: string; values: unknown[] } {
  return {
    sql: `update label_creations set order_gid = ?, order_legacy_id = ?, order_name = ?,
            fulfillment_order_gids = array[?]::text[], resolved = ?::jsonb, warnings = ?::jsonb, carrier_account_id = ?,
            updated_at = ?,
            phase = case when status = 'processing' then coalesce(${phaseSql}, phase) else phase end,
            waiting_for = case when (${phaseSql}) is null or status <> 'processing' then waiting_for else 'null'::jsonb end
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
      ...phaseValues,
      ...phaseValues,
      input.id,
    ],
  };
}

/** Records the decision; with `phase`, moves the creation there in the same statement. */
export async function recordDecision(
  em: EntityManager,
  input: DecisionRecord & { id: string; now: Date; phase?: LabelCreationPhase },
): Promise<void> {
  const { sql, values } = decisionUpdate(input, '?::text', [input.phase ?? null]);
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
    `case when exists (select 1 from taken where r_outcome = 'acquired') then 'sending_to_carrier' end`,
    [],
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
       update label_creations c set sent_at = ?, phase = 'sending_to_carrier', updated_at = ?, send_plan = ?::jsonb
        where c.id = ? and c.status = 'processing' and c.sent_at is null and ${HELD_LOCKS_SQL} = ?
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

/** `resolved` with the COD marked as sent to the carrier: the label that carries it is recorded. */
const COD_SENT = `jsonb_set(resolved, '{cod,toCarrier,state}', '"sent"', false)`;

export interface AcceptedShipment {
  creationId: string;
  storeId: string;
  order: OrderRef;
  fulfillmentOrderGids: string[];
  carrierAccountId: string;
  carrierCode: string;
  service: { code: string; name: string };
  cod: { amount: string; currency: string; source: CodSource };
  declaredValue: { amount: string; currency: string } | null;
  weightGrams: number;
  shipment: ShipmentResult;
  now: Date;
}

/**
 * The carrier accepted: the label is recorded at once, with the carrier's PDF when there is one, so nothing depends on
 * the worker surviving until the next step. With `finalize` (the shipment number is final and the PDF is in hand) the
 * label is recorded `ready` and the creation moves to `finalizing`, which saves the workflow the separate step;
 * otherwise it is `pending` until the creation finalizes it. Idempotent: a retry finds the label of this creation and
 * shipment (and leaves finalizing to the workflow).
 */
export async function recordShipment(
  orm: Orm,
  input: AcceptedShipment & { finalize?: boolean; mayExist?: boolean; succeedWith?: SideEffects },
): Promise<{ labelId: string; finalized: boolean; succeeded: boolean }> {
  // `mayExist: false`: the carrier call's first try (`sent_at` was not set), which nothing can have recorded yet; any
  // retry of it finds `sent_at` and looks.
  const [existing] =
    input.mayExist === false
      ? []
      : await orm.em
          .fork()
          .execute<Array<{ id: string }>>(
            'select id from labels where label_creation_id = ? and carrier_shipment_id = ?',
            [input.creationId, input.shipment.shipmentId],
          );
  const finalized = !existing && input.finalize === true && input.shipment.document !== null;
  const succeedWith = finalized ? input.succeedWith : undefined;
  // One transaction of one write (after the label's projection lock and read): the label with its coverage and the
  // order's projection, its PDF, and the creation's own update. Nothing is recorded half.
  return inTransaction(orm, async (tx) => {
    const ctes: WriteStatement['ctes'][number][] = [];
    let labelId = existing?.id;
    if (!labelId) {
      const label = await newLabelWrite(tx, {
        storeId: input.storeId,
        orderId: input.order.id,
        orderName: input.order.name,
        fulfillmentOrderIds: input.fulfillmentOrderGids,
        direction: 'outbound',
        kind: 'shipment',
        status: finalized ? 'ready' : 'pending',
        carrierCode: input.carrierCode,
        carrierAccountId: input.carrierAccountId,
        service: input.service,
        source: 'api',
        cod: input.shipment.cod ? { ...input.shipment.cod, source: input.cod.source } : input.cod,
        declaredValue: input.declaredValue,
        trackingNumber: input.shipment.trackingNumber,
        trackingUrl: input.shipment.trackingUrl,
        carrierShipmentId: input.shipment.shipmentId,
        parcels: [
          {
            trackingNumber: input.shipment.trackingNumber,
            trackingUrl: input.shipment.trackingUrl,
            weightGrams: input.weightGrams,
          },
        ],
        extras: input.shipment.extras,
        labelCreationId: input.creationId,
        createdAt: input.now,
        updatedAt: input.now,
      });
      labelId = label.labelId;
      ctes.push(...label.ctes);
    }
    if (input.shipment.document) {
      const document = labelDocumentUpsert({
        labelId,
        pdf: Buffer.from(input.shipment.document.pdf),
        pageSize: input.shipment.document.pageSize,
        pageCount: input.shipment.document.pages,
        storedAt: input.now,
      });
      ctes.push({ name: 'document', ...document });
    }
    // Nothing follows the label (decision 0024): the creation succeeds in the write that records its label.
    const creation: WriteStatement = succeedWith
      ? succeededWrite({
          id: input.creationId,
          labelIds: [labelId],
          created: true,
          sideEffects: succeedWith,
          codSent: true,
          now: input.now,
        })
      : {
          ctes: [],
          main: {
            sql: `update label_creations set label_ids = array[?]::text[], created = true, updated_at = ?,
                         resolved = ${COD_SENT},
                         phase = case when ? and status = 'processing' then 'finalizing' else phase end
                   where id = ?`,
            values: [[labelId], input.now, finalized, input.creationId],
          },
        };
    const write = renderWrite({ ctes: [...ctes, ...creation.ctes], main: creation.main });
    await tx.execute(write.sql, write.values);
    return { labelId, finalized, succeeded: succeedWith !== undefined };
  });
}

/** The stored PDF of a label fetched after the create (carrier A's separate label call, carrier B's batch). */
export async function storeDocument(
  em: EntityManager,
  input: { labelId: string; pdf: Uint8Array; pageSize: string; pages: number; now: Date },
): Promise<void> {
  await storeLabelDocument(em, {
    labelId: input.labelId,
    pdf: Buffer.from(input.pdf),
    pageSize: input.pageSize,
    pageCount: input.pages,
    storedAt: input.now,
  });
}

/** The carrier assigned the final shipment number: the label becomes `ready`. */
export async function finalizeLabel(
  orm: Orm,
  input: {
    storeId: string;
    labelId: string;
    trackingNumber: string | null;
    trackingUrl: string | null;
    weightGrams: number;
    now: Date;
  },
): Promise<void> {
  await updateLabelState(orm.em.fork(), {
    storeId: input.storeId,
    labelId: input.labelId,
    now: input.now,
    patch: {
      status: 'ready',
      trackingNumber: input.trackingNumber,
      trackingUrl: input.trackingUrl,
      parcels: [
        { trackingNumber: input.trackingNumber, trackingUrl: input.trackingUrl, weightGrams: input.weightGrams },
      ],
    },
  });
}

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
function succeededWrite(input: SucceededInput): WriteStatement {
  return {
    ctes: [
      { name: 'unlocked', sql: 'delete from fulfillment_order_locks where label_creation_id = ?', values: [input.id] },
    ],
    main: {
      sql: `update label_creations set status = 'succeeded', phase = null, waiting_for = null, created = ?,
                   label_ids = array[?]::text[], side_effects = ?::jsonb, warnings = coalesce(?::jsonb, warnings),
                   resolved = case when ? then ${COD_SENT} else resolved end,
                   attention = null, updated_at = ?
             where id = ? and status in ('processing', 'needs_attention')`,
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
      `update label_creations set status = 'failed', phase = null, waiting_for = null, created = false, error = ?::jsonb,
              key_bound = false, updated_at = ?
        where id = ? and status in ('processing', 'needs_attention')`,
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
    `update label_creations set status = 'failed', phase = null, waiting_for = null, created = false, error = ?::jsonb,
            key_bound = false, updated_at = ?
      where id = ? and status = 'processing' and sent_at is null
      returning queue_ticket_id`,
    [JSON.stringify(error), input.now, input.id],
  );
  if (!failed) return null;
  await releaseLocks(tx, input.id);
  return { row: (await readCreationById(tx, input.id))!, queueTicketId: failed.queue_ticket_id };
}

/** `needs_attention`: the outcome is unclear; the fulfillment orders stay locked. */
export async function enterNeedsAttention(
  em: EntityManager,
  input: { id: string; attention: StoredAttention; now: Date },
): Promise<void> {
  await em.execute(
    `update label_creations set status = 'needs_attention', phase = null, waiting_for = null, attention = ?::jsonb,
            updated_at = ?
      where id = ? and status in ('processing', 'needs_attention')`,
    [JSON.stringify(input.attention), input.now, input.id],
  );
}

/**
 * A look at the carrier while the creation needs attention changed what is known (a late acceptance: the shipment
 * exists, with its reference): `not_created` is refused from now on.
 */
export async function updateAttention(
  em: EntityManager,
  input: { id: string; attention: StoredAttention; now: Date },
): Promise<void> {
  await em.execute(
    `update label_creations set attention = ?::jsonb, updated_at = ? where id = ? and status = 'needs_attention'`,
    [JSON.stringify(input.attention), input.now, input.id],
  );
}

/**
 * Resolve `not_created`: `failed` with `resolved_not_created`; the locks and the key are released, so the same key
 * can try again. Only from `needs_attention`; the resolution is recorded with who gave it.
 */
export async function resolveNotCreated(
  orm: Orm,
  input: { id: string; error: CreationError; resolution: Resolution; now: Date },
): Promise<void> {
  await inTransaction(orm, async (tx) => {
    await tx.execute(
      `update label_creations set status = 'failed', phase = null, created = false, error = ?::jsonb,
              resolution = ?::jsonb, key_bound = false, updated_at = ?
        where id = ? and status = 'needs_attention'`,
      [JSON.stringify(input.error), JSON.stringify(input.resolution), input.now, input.id],
    );
    await releaseLocks(tx, input.id);
  });
}

/**
 * `abandoned`, by resolve `shipment_exists` (with its resolution) or after 24 hours in `needs_attention` (none): the
 * locks are released, the key stays bound, and the creation keeps blocking its fulfillment orders for new API labels
 * until its record is deleted (`deleteAbandonedCreation`).
 */
export async function abandonCreation(
  orm: Orm,
  input: { id: string; resolution: Resolution | null; now: Date },
): Promise<void> {
  await inTransaction(orm, async (tx) => {
    await tx.execute(
      `update label_creations set status = 'abandoned', phase = null, resolution = ?::jsonb, updated_at = ?
        where id = ? and status = 'needs_attention'`,
      [input.resolution ? JSON.stringify(input.resolution) : null, input.now, input.id],
    );
    await releaseLocks(tx, input.id);
  });
}

/** Spec: an abandoned creation's record is deleted 90 days after creation; its labels stay. */
export async function deleteAbandonedCreation(em: EntityManager, id: string): Promise<boolean> {
  const deleted = await em.execute<Array<{ id: string }>>(
    `delete from label_creations where id = ? and status = 'abandoned' returning id`,
    [id],
  );
  return deleted.length > 0;
}

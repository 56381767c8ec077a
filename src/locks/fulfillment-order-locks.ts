import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * Fulfillment-order locks of label creations (docs/decisions/0010-fulfillment-order-locks.md): one row per fulfillment
 * order, held by one creation, taken all-or-nothing in one transaction. Rows are inserted in sorted order, so two
 * creations that want overlapping sets never deadlock (both queue on the lowest shared key).
 *
 * A lock is live while its creation is `needs_attention`, or `processing` and has moved within `staleAfterMs`
 * (a running creation writes its record at every step and leaves `processing` within minutes). Anything else (a
 * creation that ended without releasing, or whose workflow was terminated) is stale and taken over: a lock is never
 * held by a dead creation.
 */

export interface LockHolder {
  fulfillmentOrderGid: string;
  labelCreationId: string;
  workflowId: string;
}

export type AcquireResult =
  | { acquired: true }
  | { acquired: false; holders: LockHolder[] }
  /** The order's labels or blocking creations changed since the decision: decide again. */
  | { acquired: false; stale: true };

/** A live holder: the rule `fulfillment_order_locks_take` applies too (migration 20261125000300). */
const LIVE_HOLDER = `fulfillment_order_lock_live(c.status, c.updated_at, ?)`;

/**
 * Takes every lock or none, inside the caller's transaction, in one call of `fulfillment_order_locks_take` (rows in
 * sorted order, so overlapping sets never deadlock). With `expectedState`, the order's label state is checked under
 * the locks: if another creation finished in between, the caller decides again instead of creating a second label
 * for the same fulfillment orders.
 */
export async function acquireLocks(tx: EntityManager, input: LockTakeInput): Promise<AcquireResult> {
  const rows = await tx.execute<LockTakeRow[]>(
    `select * from fulfillment_order_locks_take(${LOCK_TAKE_ARGS})`,
    lockTakeValues(input),
  );
  return lockTakeResult(rows);
}

/** One row of `fulfillment_order_locks_take`: the outcome, and for `held` one holding lock per row. */
export type LockTakeRow = {
  r_outcome: 'held' | 'stale' | 'acquired';
  r_gid: string;
  r_creation: string;
  r_workflow: string;
};

/** The arguments of `fulfillment_order_locks_take`, as placeholders for `lockTakeValues`. */
export const LOCK_TAKE_ARGS = '?, ?, ?, ?, array(select jsonb_array_elements_text(?::jsonb)), ?, ?';

export interface LockTakeInput {
  storeId: string;
  orderGid: string;
  labelCreationId: string;
  workflowId: string;
  fulfillmentOrderGids: readonly string[];
  staleAfterMs: number;
  /** The order's label state the decision was taken on (`order_label_state`), checked under the locks. */
  expectedState: string;
}

export function lockTakeValues(input: LockTakeInput): unknown[] {
  return [
    input.storeId,
    input.labelCreationId,
    input.workflowId,
    input.orderGid,
    JSON.stringify([...new Set(input.fulfillmentOrderGids)]),
    input.staleAfterMs / 1000,
    input.expectedState,
  ];
}

export function lockTakeResult(rows: readonly LockTakeRow[]): AcquireResult {
  if (rows[0]?.r_outcome === 'acquired') return { acquired: true };
  if (rows[0]?.r_outcome === 'stale') return { acquired: false, stale: true };
  return {
    acquired: false,
    holders: rows.map((h) => ({
      fulfillmentOrderGid: h.r_gid,
      labelCreationId: h.r_creation,
      workflowId: h.r_workflow,
    })),
  };
}

/** Releases every lock of the creation; returns the workflows to wake (none: nobody waits on rows). */
export async function releaseLocks(tx: EntityManager, labelCreationId: string): Promise<void> {
  await tx.execute('delete from fulfillment_order_locks where label_creation_id = ?', [labelCreationId]);
}

export interface LiveLocksInput {
  storeId: string;
  fulfillmentOrderGids: readonly string[];
  staleAfterMs: number;
}

/**
 * The live locks on some fulfillment orders as one JSON array of `LockHolder`s, by fulfillment order: a scalar
 * subquery, so the creation context reads them in its one statement (`src/creation/load-context.ts`). Bindings:
 * `liveLocksValues`.
 */
export const LIVE_LOCKS_JSON = `(select coalesce(json_agg(json_build_object(
      'fulfillmentOrderGid', l.fulfillment_order_gid, 'labelCreationId', l.label_creation_id, 'workflowId', l.workflow_id)
      order by l.fulfillment_order_gid), '[]')
   from fulfillment_order_locks l join label_creations c on c.id = l.label_creation_id
  where l.store_id = ? and l.fulfillment_order_gid in (select jsonb_array_elements_text(?::jsonb)) and (${LIVE_HOLDER}))`;

export function liveLocksValues(input: LiveLocksInput): unknown[] {
  return [input.storeId, JSON.stringify([...new Set(input.fulfillmentOrderGids)]), input.staleAfterMs / 1000];
}

/** Live locks on the given fulfillment orders, for `src/locks/holders.ts`. */
export async function liveLocks(em: EntityManager, input: LiveLocksInput): Promise<LockHolder[]> {
  if (input.fulfillmentOrderGids.length === 0) return [];
  const [row] = await em.execute<Array<{ locks: LockHolder[] }>>(
    `select ${LIVE_LOCKS_JSON} as locks`,
    liveLocksValues(input),
  );
  return row!.locks;
}

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

const LIVE_HOLDER = `
  c.status = 'needs_attention' or (c.status = 'processing' and c.updated_at > now() - make_interval(secs => ?))`;

/** Deletes stale locks on the given fulfillment orders (their holder ended or stopped moving). */
async function reapStale(tx: EntityManager, storeId: string, gids: readonly string[], staleAfterMs: number) {
  await tx.execute(
    `delete from fulfillment_order_locks l
      using label_creations c
      where l.store_id = ? and l.fulfillment_order_gid in (?) and c.id = l.label_creation_id
        and not (${LIVE_HOLDER})`,
    [storeId, gids, staleAfterMs / 1000],
  );
}

/**
 * What a creation's decision depended on, as one comparable string: the order's current outbound labels with their
 * status, and the order's creations that block (needing attention, abandoned), besides the deciding creation itself.
 */
export async function orderLabelState(
  tx: EntityManager,
  input: { storeId: string; orderGid: string; selfCreationId: string },
): Promise<string> {
  const rows = await tx.execute<Array<{ item: string }>>(
    `select id || ':' || status as item from labels
      where store_id = ? and order_gid = ? and direction = 'outbound' and current
     union all
     select id || ':' || status from label_creations
      where store_id = ? and order_gid = ? and id <> ? and status in ('needs_attention', 'abandoned')
     order by 1`,
    [input.storeId, input.orderGid, input.storeId, input.orderGid, input.selfCreationId],
  );
  return rows.map((r) => r.item).join(',');
}

/**
 * Takes every lock or none, inside the caller's transaction. With `expectedState`, the order's label state is
 * checked under the locks: if another creation finished in between, the caller decides again instead of creating a
 * second label for the same fulfillment orders.
 */
export async function acquireLocks(
  tx: EntityManager,
  input: {
    storeId: string;
    orderGid: string;
    labelCreationId: string;
    workflowId: string;
    fulfillmentOrderGids: readonly string[];
    staleAfterMs: number;
    expectedState: string;
  },
): Promise<AcquireResult> {
  const gids = [...new Set(input.fulfillmentOrderGids)].sort();
  await reapStale(tx, input.storeId, gids, input.staleAfterMs);
  for (const gid of gids) {
    await tx.execute(
      `insert into fulfillment_order_locks (store_id, fulfillment_order_gid, label_creation_id, workflow_id)
       values (?, ?, ?, ?) on conflict do nothing`,
      [input.storeId, gid, input.labelCreationId, input.workflowId],
    );
  }
  const held = await tx.execute<
    Array<{ fulfillment_order_gid: string; label_creation_id: string; workflow_id: string }>
  >(
    `select fulfillment_order_gid, label_creation_id, workflow_id from fulfillment_order_locks
      where store_id = ? and fulfillment_order_gid in (?) order by fulfillment_order_gid`,
    [input.storeId, gids],
  );
  const others = held.filter((h) => h.label_creation_id !== input.labelCreationId);
  if (others.length > 0) {
    await releaseLocks(tx, input.labelCreationId);
    return {
      acquired: false,
      holders: others.map((h) => ({
        fulfillmentOrderGid: h.fulfillment_order_gid,
        labelCreationId: h.label_creation_id,
        workflowId: h.workflow_id,
      })),
    };
  }
  const state = await orderLabelState(tx, {
    storeId: input.storeId,
    orderGid: input.orderGid,
    selfCreationId: input.labelCreationId,
  });
  if (state !== input.expectedState) {
    await releaseLocks(tx, input.labelCreationId);
    return { acquired: false, stale: true };
  }
  return { acquired: true };
}

/** Releases every lock of the creation; returns the workflows to wake (none: nobody waits on rows). */
export async function releaseLocks(tx: EntityManager, labelCreationId: string): Promise<void> {
  await tx.execute('delete from fulfillment_order_locks where label_creation_id = ?', [labelCreationId]);
}

/** Live locks on the given fulfillment orders, for `src/locks/holders.ts`. */
export async function liveLocks(
  em: EntityManager,
  input: { storeId: string; fulfillmentOrderGids: readonly string[]; staleAfterMs: number },
): Promise<LockHolder[]> {
  if (input.fulfillmentOrderGids.length === 0) return [];
  const rows = await em.execute<
    Array<{ fulfillment_order_gid: string; label_creation_id: string; workflow_id: string }>
  >(
    `select l.fulfillment_order_gid, l.label_creation_id, l.workflow_id
       from fulfillment_order_locks l join label_creations c on c.id = l.label_creation_id
      where l.store_id = ? and l.fulfillment_order_gid in (?) and (${LIVE_HOLDER})
      order by l.fulfillment_order_gid`,
    [input.storeId, [...new Set(input.fulfillmentOrderGids)], input.staleAfterMs / 1000],
  );
  return rows.map((r) => ({
    fulfillmentOrderGid: r.fulfillment_order_gid,
    labelCreationId: r.label_creation_id,
    workflowId: r.workflow_id,
  }));
}

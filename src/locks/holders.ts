import type { EntityManager } from '@mikro-orm/postgresql';
import type { PlatformFulfillmentOrder } from '../platform/port';
import type { FulfillmentOrderHolder } from '../domain/holders';
import { liveLocks, type LockHolder } from './fulfillment-order-locks';

/**
 * A `processing` creation that has not written its record for this long is taken for dead and its locks are free
 * (a running creation moves every few seconds and leaves `processing` within minutes).
 */
export const LOCK_STALE_AFTER_MS = 15 * 60_000;

/**
 * Who holds the given fulfillment orders right now: an admin or automation export (the platform's export hold on
 * the fulfillment order), the merchant or another app (`unknown`; the service's own app holds do not count) or a label
 * creation (its live lock rows, `src/locks/fulfillment-order-locks.ts`). The one place
 * every caller asks (label creation and its dry run, pickup-point changes).
 */
export async function findHolders(
  em: EntityManager,
  input: { storeId: string; fulfillmentOrders: readonly PlatformFulfillmentOrder[]; staleAfterMs?: number },
): Promise<FulfillmentOrderHolder[]> {
  const locks = await liveLocks(em, {
    storeId: input.storeId,
    fulfillmentOrderGids: input.fulfillmentOrders.map((fo) => fo.id),
    staleAfterMs: input.staleAfterMs ?? LOCK_STALE_AFTER_MS,
  });
  return holdersOf(input.fulfillmentOrders, locks);
}

/** The holders, from the platform's export holds and the live lock rows (`liveLocks`, or a read that includes them). */
export function holdersOf(
  fulfillmentOrders: readonly PlatformFulfillmentOrder[],
  locks: readonly LockHolder[],
): FulfillmentOrderHolder[] {
  // An app hold is this service's own, placed for a creation in needs_attention: its lock rows report that creation.
  // Any other hold is an export the platform reports as one, or the merchant's or another app's (decision 0705).
  const holders: FulfillmentOrderHolder[] = fulfillmentOrders.flatMap((fo) => {
    const foreign = fo.holds.filter((h) => h.heldBy !== 'app');
    if (foreign.length === 0) return [];
    const heldBy = foreign.some((h) => h.heldBy === 'export') ? 'export' : 'unknown';
    return [{ fulfillmentOrderGid: fo.id, heldBy, labelCreationId: null, workflowId: null }];
  });
  for (const lock of locks) {
    holders.push({
      fulfillmentOrderGid: lock.fulfillmentOrderGid,
      heldBy: 'creation',
      labelCreationId: lock.labelCreationId,
      workflowId: lock.workflowId,
    });
  }
  return holders;
}

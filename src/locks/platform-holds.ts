import { Store } from '../db/entities/store';
import type { Orm } from '../db/orm';
import type { FulfillmentOrderHoldResult, StorePlatformPort } from '../platform/port';

/**
 * The store-platform hold of a creation in `needs_attention` (docs/decisions/0014-unresolved-creation-platform-hold.md).
 * Lock rows keep new API labels off its fulfillment orders; admin and automation exports happen on the platform, so
 * the creation also places the platform's fulfillment hold there, under its own ID as the handle, until it leaves
 * `needs_attention`. The creation activities call these; both are idempotent, so a retried activity is harmless.
 */
export interface PlatformHoldDeps {
  orm: Orm;
  platform: StorePlatformPort;
}

export interface UnresolvedCreationHoldInput {
  storeId: string;
  /** The creation (`lcr_...`); its ID is the hold's handle. */
  creationId: string;
  fulfillmentOrderGids: readonly string[];
}

/** What the platform says admins see on a held fulfillment order. */
export function unresolvedCreationHoldReason(creationId: string): string {
  return (
    `Label creation ${creationId} is unresolved (needs attention): its shipment may exist at the carrier. ` +
    'Exports stay blocked until it is resolved (POST /v1/label-creations/{id}/resolve) or obtains its label.'
  );
}

async function storeDomain(orm: Orm, storeId: string): Promise<string> {
  return (await orm.em.fork().findOneOrFail(Store, { id: storeId })).domain;
}

/**
 * Places the creation's hold on each of its fulfillment orders. A fulfillment order the platform no longer has, or
 * that is closed or cancelled, cannot be exported anyway and is skipped (its result says so). A platform that does
 * not answer throws `PlatformUnavailableError`, so the activity retries; another refusal throws
 * `PlatformRequestError`.
 */
export async function holdForUnresolvedCreation(
  deps: PlatformHoldDeps,
  input: UnresolvedCreationHoldInput,
): Promise<FulfillmentOrderHoldResult[]> {
  if (input.fulfillmentOrderGids.length === 0) return [];
  return deps.platform.holdFulfillmentOrders(await storeDomain(deps.orm, input.storeId), input.fulfillmentOrderGids, {
    reason: unresolvedCreationHoldReason(input.creationId),
    handle: input.creationId,
  });
}

/**
 * Removes the creation's hold (only its own handle) from each of its fulfillment orders; a hold or fulfillment order
 * already gone is fine. Throws like `holdForUnresolvedCreation`.
 */
export async function releaseUnresolvedCreationHold(
  deps: PlatformHoldDeps,
  input: UnresolvedCreationHoldInput,
): Promise<FulfillmentOrderHoldResult[]> {
  if (input.fulfillmentOrderGids.length === 0) return [];
  return deps.platform.releaseFulfillmentOrderHolds(
    await storeDomain(deps.orm, input.storeId),
    input.fulfillmentOrderGids,
    input.creationId,
  );
}

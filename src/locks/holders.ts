import type { EntityManager } from '@mikro-orm/postgresql';
import type { PlatformFulfillmentOrder } from '../platform/port';

/** Who holds a fulfillment order (spec `creation_in_progress` `details.held_by`). */
export type HolderKind = 'creation' | 'export' | 'unknown';

export interface FulfillmentOrderHolder {
  fulfillmentOrderGid: string;
  heldBy: HolderKind;
  /** The holding creation (`lcr_...`) when `heldBy` is `creation`. */
  labelCreationId: string | null;
}

/**
 * Who holds the given fulfillment orders right now: an admin or automation export (the platform's hold on the
 * fulfillment order) or a running label creation. The one place every caller asks (label creation and its dry run,
 * pickup-point changes), so the creation locks can change without touching them.
 */
export async function findHolders(
  em: EntityManager,
  input: { storeId: string; fulfillmentOrders: readonly PlatformFulfillmentOrder[] },
): Promise<FulfillmentOrderHolder[]> {
  const holders: FulfillmentOrderHolder[] = input.fulfillmentOrders
    .filter((fo) => fo.hold !== null)
    .map((fo) => ({ fulfillmentOrderGid: fo.id, heldBy: 'export', labelCreationId: null }));
  const gids = input.fulfillmentOrders.map((fo) => fo.id);
  if (gids.length === 0) return holders;
  const running = await em.execute<Array<{ id: string; fulfillment_order_gids: string[] }>>(
    `select id, fulfillment_order_gids from label_creations
      where store_id = ? and status = 'processing' and fulfillment_order_gids && array[?]::text[]`,
    [input.storeId, gids],
  );
  for (const creation of running) {
    for (const gid of creation.fulfillment_order_gids) {
      if (gids.includes(gid))
        holders.push({ fulfillmentOrderGid: gid, heldBy: 'creation', labelCreationId: creation.id });
    }
  }
  return holders;
}

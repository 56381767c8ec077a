/** Who holds a fulfillment order (spec `creation_in_progress` `details.held_by`). */
export type HolderKind = 'creation' | 'export' | 'unknown';

export interface FulfillmentOrderHolder {
  fulfillmentOrderGid: string;
  heldBy: HolderKind;
  /** The holding creation (`lcr_...`) when `heldBy` is `creation`. */
  labelCreationId: string | null;
  /** Its workflow, which wakes creations waiting for the fulfillment order when it releases it. */
  workflowId: string | null;
}

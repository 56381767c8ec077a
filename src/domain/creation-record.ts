/**
 * What a label creation records beside its status, as the domain defines it (the serializers map it to the wire): the
 * side effects on the store platform, and the attention object of an unclear outcome.
 */

export type SideEffectStatus = 'pending' | 'succeeded' | 'failed' | 'skipped';
export interface SideEffects {
  fulfillment: { mode: 'none' | 'fulfill' | 'fulfill_and_notify'; status: SideEffectStatus } | null;
  orderTags: { status: SideEffectStatus } | null;
}

/** The attention object as stored (spec "Attention object"), with ISO timestamps. */
export interface StoredAttention {
  reason: 'carrier_timeout' | 'carrier_error' | 'worker_lost' | 'label_not_retrieved' | 'confirmation_missing';
  shipmentAtCarrier: 'unknown' | 'exists';
  carrier: { code: string; name: string; accountId: string | null };
  carrierReference: string | null;
  carrierNote: 'draft_until_label_printed' | null;
  sentAt: string;
  resolveAllowedAt: string;
}

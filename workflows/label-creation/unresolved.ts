import type { SendToCarrierInput } from '../../activities/label-creation';
import type { StoredAttention } from '../../src/domain/creation-record';
import type { Created } from './prepare';

/** What a creation in `needs_attention` knows and keeps trying. */
export interface Unresolved {
  decision: Created;
  sendInput: SendToCarrierInput;
  reason: StoredAttention['reason'];
  exists: boolean;
  /** The carrier's reference, once known (carrier D's draft, an accepted shipment). */
  reference: string | null;
  sentAt: string;
  labelId: string | null;
  shipmentId: string | null;
}

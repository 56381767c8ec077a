import type { SideEffects } from '../../src/domain/creation-record';
import type { CarrierCall, CreationDecision, OrderRef } from '../../src/domain/creation-decision';
import type { CreationContext } from '../../src/domain/creation-context';
import type { CreationRequest } from '../../src/domain/creation-request';
import type { CodSource } from '../../src/domain/labels';
import type { CreationError, CreationWarning } from '../../src/domain/refusal';
import type { AcquireResult } from '../../src/locks/fulfillment-order-locks';

/** What the creation's activities take and answer: the workflow imports these with `import type`. */

export type PreparedCreation =
  | {
      kind: 'prepared';
      context: CreationContext;
      /** The order's label state the decision saw (`order_label_state`), checked again under the locks. */
      orderState: string;
    }
  /** The record is no longer `processing` (a late duplicate run of an attempt that moved on): nothing to do. */
  | { kind: 'stopped'; status: string | null };

export interface PrepareInput {
  creationId: string;
  storeId: string;
  request: CreationRequest;
  lockStaleAfterMs: number;
  /** Reads of the order the platform already failed before this step (the first step's, decision 1010). */
  failedPlatformReads?: number;
}

type Prepared = Extract<PreparedCreation, { kind: 'prepared' }>;

/** `prepareAndLockCreation`: the snapshot, the decision taken on it, and for a decision to create its locks. */
export type PreparedAndLocked =
  | (Prepared & { decision: Extract<CreationDecision, { kind: 'create' }>; locked: AcquireResult })
  | (Prepared & { decision: Exclude<CreationDecision, { kind: 'create' }>; locked: null })
  | Extract<PreparedCreation, { kind: 'stopped' }>;

export type SentToCarrier =
  | {
      kind: 'accepted';
      labelId: string;
      shipmentId: string;
      /** `pending` until the carrier assigns the shipment number (carrier B batch). */
      shipmentStatus: 'pending' | 'ready';
      trackingNumber: string | null;
      trackingUrl: string | null;
      carrierReference: string;
      /** The PDF is stored: returned with the shipment, or fetched by the same activity. */
      hasDocument: boolean;
      /** The label was recorded `ready` (final number and PDF in hand): the workflow has nothing left to finalize. */
      finalized: boolean;
      /** The carrier account's label tag (null: nothing to tag), so the workflow schedules only side effects to do. */
      labelTag: string | null;
      sentAt: string;
    }
  | { kind: 'rejected'; reason: string; sentAt: string }
  | {
      kind: 'unclear';
      reason: 'carrier_timeout' | 'carrier_error' | 'worker_lost';
      /** Carrier D left an unprinted draft, found by the reference. */
      draftReference: string | null;
      sentAt: string;
    }
  /**
   * Accepted, recorded `ready`, and with nothing to follow (`finishIfNothingFollows`, no label tag): the creation was
   * finished `succeeded` in this activity (docs/decisions/0024-succeed-in-the-carrier-call.md).
   */
  | { kind: 'succeeded'; labelId: string }
  /** The creation's locks were taken over (it stood still too long): nothing was sent. */
  | { kind: 'lost_locks' }
  /** Carrier protection refused the call (`carrier_unavailable`, `repeated_rejection`): nothing was sent. */
  | { kind: 'blocked'; error: CreationError };

/** What a look at the carrier found while the creation needs attention (`recoverShipment`). */
export type Recovered =
  /** Nothing found (or the carrier did not answer): still unknown. */
  | { kind: 'not_found' }
  /** Carrier D: an unprinted draft, found by the reference. */
  | { kind: 'draft'; carrierReference: string }
  /** The shipment exists, without a usable label yet (batch pending, PDF not fetched). */
  | { kind: 'exists'; labelId: string; shipmentId: string; carrierReference: string }
  /** The label is obtained: recorded with its PDF stored, ready to be finalized. */
  | {
      kind: 'obtained';
      labelId: string;
      shipmentId: string;
      carrierReference: string;
      trackingNumber: string | null;
      trackingUrl: string | null;
    }
  /** Carrier B refused the batch's shipment at import. */
  | { kind: 'import_rejected'; labelId: string };

export interface SendToCarrierInput {
  creationId: string;
  storeId: string;
  order: OrderRef;
  fulfillmentOrderGids: string[];
  carrierCall: CarrierCall;
  serviceName: string;
  codSource: CodSource;
  codToCarrier: { amount: string; currency: string };
  /**
   * Set when no side effect can follow the label (fulfillment `none`): a label recorded `ready` for an account without
   * a label tag then finishes the creation here, saving the workflow a local activity (decision 0024).
   */
  finishIfNothingFollows?: { queueTicketId: string | null };
}

/** What carrier protection and the carrier account's read look at of a call. */
export type CallTarget = Pick<SendToCarrierInput, 'creationId' | 'storeId' | 'carrierCall' | 'fulfillmentOrderGids'>;

/** `recoverShipment`: the carrier call, and what the creation already knows of its shipment. */
export type RecoverInput = SendToCarrierInput & {
  labelId: string | null;
  shipmentId: string | null;
  carrierReference: string | null;
};

/** What finishes a creation `succeeded` (`succeedCreation`, or the carrier call when nothing follows). */
export interface SucceedInput {
  creationId: string;
  /** The creation's store (optional for runs recorded before it was passed). */
  storeId?: string;
  queueTicketId: string | null;
  labelIds: string[];
  created: boolean;
  sideEffects: SideEffects;
  warnings?: CreationWarning[];
}

/**
 * A decision to create as the carrier call was made on it: kept with `sent_at` (`send_plan`), so a retry of the call
 * carries on from it, never from a decision taken again (docs/decisions/1010-prepare-in-the-carrier-call.md).
 */
export interface SendPlan {
  decision: Extract<CreationDecision, { kind: 'create' }>;
  sendInput: SendToCarrierInput;
}

/** `prepareAndSendToCarrier`: the prepare step's input, and what the carrier call's input is built from. */
export interface PrepareAndSendInput extends PrepareInput {
  workflowId: string;
  queueTicketId: string | null;
  /** The creation's 5-minute deadline to reach the carrier (epoch ms): a retry past it prepares nothing. */
  deadlineMs: number;
}

/**
 * What `prepareAndSendToCarrier` came to: the carrier's answer to a call made on the plan; or the prepare step's outcome
 * when it is not a decision to create with every lock taken (the workflow decides on it as after its own prepare
 * step); or nothing prepared (the step failed, or the deadline passed), for the workflow's own prepare step.
 */
export type PreparedAndSent =
  | ({ kind: 'sent'; sent: SentToCarrier } & SendPlan)
  | { kind: 'prepared'; outcome: PreparedAndLocked }
  | { kind: 'not_prepared'; platformReadFailed: boolean };

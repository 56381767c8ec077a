import { ApplicationFailure, defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { SendToCarrierInput } from '../../activities/label-creation/types';
import type { ContextCarrierAccount } from '../../src/domain/creation-context';
import type { CreationDecision } from '../../src/domain/creation-decision';
import type { CreationProgress } from '../../src/domain/creation-phases';
import type { CreationRequest } from '../../src/domain/creation-request';
import type { LabelCreationPhase, LabelCreationStatus } from '../../src/domain/labels';
import type { Refusal } from '../../src/domain/refusal';
import type { ResolveOutcome } from '../../src/domain/resolve';

/**
 * The label-creation workflow's contract: its name, IDs, input, updates, query and signals, and their types. The API,
 * the workflow and the tests import these definitions; no update, query or signal name is written anywhere else
 * (temporalio/samples-typescript `mutex`'s shared.ts).
 */

/** The workflow type the worker registers and the API starts, with its signature. */
export const LABEL_CREATION_WORKFLOW = 'labelCreationWorkflow';
export type LabelCreationWorkflow = (input: LabelCreationInput) => Promise<CreationSnapshot>;

/** `label-creation/<store>/<idempotency key>`: the business key, so a repeat finds the running creation. */
export function creationWorkflowId(storeId: string, idempotencyKey: string): string {
  return `label-creation/${storeId}/${idempotencyKey}`;
}

/** The workflow of an abandoned creation's 90-day retention timer. */
export function retentionWorkflowId(creationId: string): string {
  return `label-creation-retention/${creationId}`;
}

export interface CreationDurations {
  /** A creation that has not reached the carrier this long after it was created fails `not_started` (5 minutes). */
  notStartedMs: number;
  /** Fallback poll while a fulfillment order is held (a creation also wakes its waiters by signal). */
  lockRetryMs: number;
  /** A `processing` holder that has not moved this long is dead and its locks are free. */
  lockStaleMs: number;
  /** Poll of a covering label pending elsewhere, while this creation waits to adopt it. */
  adoptionPollMs: number;
  /** Carrier B: how long a batch may take to complete before the creation needs attention. */
  carrierPendingMaxMs: number;
  /** Poll of carrier B's batch status. */
  carrierPollMs: number;
  /** Earliest `not_created` resolve after the carrier was called (15 minutes). */
  resolveAllowedAfterMs: number;
  /** One HTTP call to the carrier (bounds the carrier activity's timeouts). */
  carrierTimeoutMs: number;
  /** While the creation needs attention: first and longest wait between looks at the carrier (doubling). */
  attentionRetryInitialMs: number;
  attentionRetryMaxMs: number;
  /** `needs_attention` without resolve this long: abandoned (24 hours). */
  abandonAfterMs: number;
  /** An abandoned creation's record is deleted this long after the creation was created (90 days). */
  abandonedDeleteAfterMs: number;
}

export interface LabelCreationInput {
  creationId: string;
  storeId: string;
  idempotencyKey: string;
  request: CreationRequest;
  /** When the API claimed the record: the 5-minute deadline runs from here. */
  createdAtMs: number;
  /** The creation's place in the store's write queue, freed when it leaves `processing`; null for none. */
  queueTicketId: string | null;
  durations: CreationDurations;
}

export interface CreationSnapshot {
  creationId: string;
  status: LabelCreationStatus;
  phase: LabelCreationPhase | null;
}

/** The state query's answer: the creation's progress, as its phase table moves it (src/domain/creation-phases.ts). */
export interface CreationState extends CreationSnapshot, CreationProgress {
  phase: LabelCreationPhase | null;
}

export interface AwaitOutcomeInput {
  /** The attempt the request belongs to: a request never joins another attempt under the same key. */
  creationId: string;
  /** `Prefer: wait`: how long the answer may wait for the creation to leave `processing`. */
  waitMs: number;
}

export interface ResolveInput {
  outcome: ResolveOutcome;
  trackingNumber: string | null;
  note: string | null;
  /** The API key that resolves (`ak_...`), recorded on the creation. */
  resolvedBy: string;
}

export interface RetentionInput {
  creationId: string;
  deleteAtMs: number;
}

/** Answers once the creation leaves `processing`, or at `waitMs`; validated so a request never joins another attempt. */
export const awaitOutcomeUpdate = defineUpdate<CreationSnapshot, [AwaitOutcomeInput]>('awaitOutcome');
/**
 * `POST /label-creations/{id}/resolve`: the validator refuses with the spec's code (the HTTP answer is the workflow's
 * own decision, docs/decisions/0016-resolve-as-update.md); an accepted resolve answers once the creation has moved.
 */
export const resolveUpdate = defineUpdate<CreationSnapshot, [ResolveInput]>('resolve');
/** The creation's state, for the Temporal Web UI ("Queries") and `temporal workflow query`. */
export const creationStateQuery = defineQuery<CreationState>('state');
/** A creation waiting for this one's fulfillment orders asks to be woken when they are released. */
export const notifyOnReleaseSignal = defineSignal<[{ workflowId: string }]>('notifyOnRelease');
/** The fulfillment orders a creation waited for were released. */
export const locksReleasedSignal = defineSignal<[]>('locksReleased');

/**
 * A refusal as a Temporal failure: non-retryable, its type the spec's code, the refusal itself its one detail. An
 * activity fails with it, and the resolve update's validator refuses with it; `fromFailure` reads it back.
 */
export function toFailure(r: Refusal): ApplicationFailure {
  const detail: Refusal = { code: r.code, message: r.message, details: r.details };
  if (r.retryAfterSeconds !== undefined) detail.retryAfterSeconds = r.retryAfterSeconds;
  return ApplicationFailure.create({ message: r.message, type: r.code, nonRetryable: true, details: [detail] });
}

/**
 * The refusal a failure carries (`toFailure`'s), or null for any other failure. By name rather than `instanceof`: the
 * failure may come from another copy of the SDK's classes (the workflow bundle, a client).
 */
export function fromFailure(failure: unknown): Refusal | null {
  if (!(failure instanceof Error) || failure.name !== 'ApplicationFailure') return null;
  const detail = (failure as { details?: unknown[] }).details?.[0] as Partial<Refusal> | undefined;
  if (!detail?.code) return null;
  const refusal: Refusal = {
    code: detail.code,
    message: detail.message ?? failure.message,
    details: detail.details ?? {},
  };
  if (detail.retryAfterSeconds !== undefined && detail.retryAfterSeconds !== null) {
    refusal.retryAfterSeconds = detail.retryAfterSeconds;
  }
  return refusal;
}

/**
 * The carrier call's input from a decision to create: pure, so the workflow (after the prepare step) and the activity
 * that prepares and sends in one (decision 1010) build the same input from the same decision.
 */
export function sendInputFor(
  ids: { creationId: string; storeId: string; queueTicketId: string | null },
  decision: Extract<CreationDecision, { kind: 'create' }>,
  carrierAccounts: readonly Pick<ContextCarrierAccount, 'id' | 'services'>[],
): SendToCarrierInput {
  const call = decision.carrierCall;
  const service = carrierAccounts
    .find((a) => a.id === call.carrierAccountId)
    ?.services.find((s) => s.code === call.serviceCode);
  return {
    creationId: ids.creationId,
    storeId: ids.storeId,
    order: decision.order,
    fulfillmentOrderGids: decision.targetFulfillmentOrderIds,
    carrierCall: call,
    serviceName: service?.name ?? call.serviceCode,
    codSource: decision.resolved.cod!.decided.source,
    codToCarrier: {
      amount: decision.resolved.cod!.toCarrier.amount,
      currency: decision.resolved.cod!.toCarrier.currency,
    },
    // Nothing to fulfil: a label ready at once with no tag to add finishes the creation in the carrier activity.
    ...(decision.fulfillment === 'none' ? { finishIfNothingFollows: { queueTicketId: ids.queueTicketId } } : {}),
  };
}

import {
  ActivityFailure,
  condition,
  defineQuery,
  defineSignal,
  defineUpdate,
  getExternalWorkflowHandle,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
  allHandlersFinished,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { PreparedCreation, SentToCarrier } from '../activities/label-creation';
import type { CreationError, SideEffects, StoredAttention } from '../src/creation/records';
import { CARRIERS } from '../src/carriers/catalog';
import { decideCreation, type CreationDecision } from '../src/domain/creation-decision';
import type { CreationRequest } from '../src/domain/creation-request';
import type { WaitFor } from '../src/domain/existing-labels';
import type { LabelCreationPhase, LabelCreationStatus } from '../src/domain/labels';
import type { Refusal } from '../src/domain/refusal';
import { CARRIER_ACCOUNT_ID, CREATION_STATUS, ORDER_ID } from './search-attributes';
import { workflowNow } from './workflow-time';

/**
 * One label creation attempt (`lcr_...`) of `POST /labels` (spec "Label creation"): workflow ID
 * `label-creation/<store>/<idempotency key>`, one run per attempt. The API claimed the creation record (binding the
 * key) before it started this run; every later write of the record is an activity of this workflow. The decision is
 * the same pure function the dry run uses (`src/domain/creation-decision.ts`), over a snapshot an activity loads.
 */

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

export interface CreationState extends CreationSnapshot {
  waitingFor: WaitFor | null;
  labelIds: string[];
  error: CreationError | null;
  attention: StoredAttention | null;
}

/** Answers once the creation leaves `processing`, or at `waitMs`; validated so a request never joins another attempt. */
export const awaitOutcomeUpdate = defineUpdate<CreationSnapshot, [{ creationId: string; waitMs: number }]>(
  'awaitOutcome',
);
/** The creation's state, for the Temporal Web UI ("Queries") and `temporal workflow query`. */
export const creationStateQuery = defineQuery<CreationState>('state');
/** A creation waiting for this one's fulfillment orders asks to be woken when they are released. */
export const notifyOnReleaseSignal = defineSignal<[{ workflowId: string }]>('notifyOnRelease');
/** The fulfillment orders a creation waited for were released. */
export const locksReleasedSignal = defineSignal<[]>('locksReleased');

const local = proxyLocalActivities<Activities>({
  startToCloseTimeout: '15 seconds',
  retry: { initialInterval: '200 milliseconds', backoffCoefficient: 2, maximumInterval: '5 seconds' },
});

const READS = {
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '10 seconds', maximumAttempts: 6 },
} as const;
const { checkShipment, fetchLabelDocument, fulfillOrder, tagOrder } = proxyActivities<Activities>(READS);

function carrierActivities(d: CreationDurations) {
  return proxyActivities<Activities>({
    // A create, a lookup after an unclear answer, and a print for carrier D: three carrier calls at most.
    startToCloseTimeout: 3 * d.carrierTimeoutMs + 10_000,
    // A lost worker is noticed within seconds; the retry only looks the shipment up (never creates again).
    heartbeatTimeout: '5 seconds',
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '10 seconds', maximumAttempts: 10 },
  });
}

function prepareActivity(remainingMs: number) {
  return proxyActivities<Activities>({
    startToCloseTimeout: '30 seconds',
    // The platform may be down: retried until the creation's deadline, then the creation did not start.
    scheduleToCloseTimeout: Math.max(1000, remainingMs),
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '15 seconds' },
  }).prepareCreation;
}

type Created = Extract<CreationDecision, { kind: 'create' }>;

export async function labelCreationWorkflow(input: LabelCreationInput): Promise<CreationSnapshot> {
  const { creationId, storeId, durations } = input;
  const deadline = input.createdAtMs + durations.notStartedMs;
  const state: CreationState = {
    creationId,
    status: 'processing',
    phase: 'queued',
    waitingFor: null,
    labelIds: [],
    error: null,
    attention: null,
  };
  const waiters = new Set<string>();
  let locksReleased = false;
  let released = false;

  const snapshot = (): CreationSnapshot => ({ creationId, status: state.status, phase: state.phase });
  setHandler(creationStateQuery, () => state);
  setHandler(
    awaitOutcomeUpdate,
    async ({ waitMs }) => {
      if (state.status === 'processing' && waitMs > 0) await condition(() => state.status !== 'processing', waitMs);
      return snapshot();
    },
    {
      validator: ({ creationId: asked }) => {
        if (asked !== creationId) throw new Error(`this run is attempt ${creationId}, not ${asked}`);
      },
    },
  );
  setHandler(notifyOnReleaseSignal, async ({ workflowId }) => {
    if (!released) waiters.add(workflowId);
    else await wake(workflowId);
  });
  setHandler(locksReleasedSignal, () => {
    locksReleased = true;
  });

  const begun = await local.beginCreationAttempt({ creationId });
  if (!begun.proceed) {
    // A duplicate run of an attempt that already moved on: nothing to do.
    state.status = (begun.status as LabelCreationStatus | null) ?? 'failed';
    state.phase = null;
    return snapshot();
  }

  const setStatus = (status: LabelCreationStatus) => {
    state.status = status;
    if (status !== 'processing') state.phase = null;
    upsertSearchAttributes([{ key: CREATION_STATUS, value: status }]);
  };
  const phase = async (next: LabelCreationPhase, waitingFor: WaitFor | null = null) => {
    state.phase = next;
    state.waitingFor = waitingFor;
    await local.setCreationPhase({ creationId, phase: next, waitingFor });
  };

  async function wake(workflowId: string) {
    try {
      await getExternalWorkflowHandle(workflowId).signal(locksReleasedSignal);
    } catch {
      // The waiter ended meanwhile; nothing to wake.
    }
  }

  /** A terminal change that releases the locks: wake every creation that waited for them. */
  async function releasedLocks() {
    released = true;
    for (const waiter of waiters) await wake(waiter);
    waiters.clear();
  }

  async function fail(error: CreationError) {
    // The record of this call is named, unless the code's own details name another creation (the one that blocks).
    const named = (error.details?.label_creation_id as string | null | undefined) ?? creationId;
    state.error = { ...error, details: { ...error.details, label_creation_id: named } };
    await local.failCreation({ creationId, error: state.error, queueTicketId: input.queueTicketId });
    setStatus('failed');
    await releasedLocks();
  }

  const refusalError = (r: Refusal): CreationError => ({
    code: r.code,
    message: r.message,
    details: r.details,
    ...(r.retryAfterSeconds !== undefined ? { retryAfterSeconds: r.retryAfterSeconds } : {}),
  });

  const notStarted = () =>
    fail({
      code: 'not_started',
      message: 'The creation did not reach the carrier within 5 minutes; nothing was created. Send the request again.',
    });

  /** Waits for held fulfillment orders: woken by the holding creation, or polled for exports and as a fallback. */
  async function waitForHolder(holderWorkflowIds: string[]) {
    locksReleased = false;
    for (const holder of holderWorkflowIds) {
      try {
        await getExternalWorkflowHandle(holder).signal(notifyOnReleaseSignal, {
          workflowId: workflowInfo().workflowId,
        });
      } catch {
        // The holder already ended: decide again at once.
        return;
      }
    }
    await condition(() => locksReleased, Math.max(1, Math.min(durations.lockRetryMs, deadline - workflowNow())));
  }

  // Preparing, deciding, waiting and locking: until the creation holds its fulfillment orders or has its answer.
  let create: Created | null = null;
  let prepared: PreparedCreation | null = null;
  while (!create) {
    if (workflowNow() >= deadline) return finish(await notStarted());
    try {
      prepared = await prepareActivity(deadline - workflowNow())({
        creationId,
        storeId,
        request: input.request,
        lockStaleAfterMs: durations.lockStaleMs,
      });
    } catch (error) {
      if (isTimeout(error)) return finish(await notStarted());
      const refusal = businessFailure(error);
      if (!refusal) throw error;
      return finish(await fail(refusal));
    }
    const decision = decideCreation(prepared.context, input.request, workflowNow());
    if (decision.order) upsertSearchAttributes([{ key: ORDER_ID, value: decision.order.id }]);
    await local.recordCreationDecision({
      creationId,
      order: decision.order ?? { id: '', legacyId: '', name: '' },
      fulfillmentOrderGids: decision.kind === 'refuse' ? [] : decision.targetFulfillmentOrderIds,
      resolved: decision.kind === 'create' ? decision.resolved : null,
      warnings: decision.kind === 'refuse' ? [] : decision.warnings,
    });
    if (decision.kind === 'refuse') return finish(await fail(refusalError(decision.refusal)));
    if (decision.kind === 'return_existing') {
      // Existing labels are returned as they are: nothing is fulfilled or tagged for them.
      await local.succeedCreation({
        creationId,
        queueTicketId: input.queueTicketId,
        labelIds: decision.labelIds,
        created: false,
        sideEffects: { fulfillment: null, orderTags: null },
        warnings: decision.warnings,
      });
      state.labelIds = decision.labelIds;
      setStatus('succeeded');
      return finish(await releasedLocks());
    }
    if (decision.kind === 'wait_for_existing') {
      await phase('waiting_for_lock', decision.waitFor);
      if (decision.waitFor.reason === 'label_pending') {
        await waitForPendingLabel(decision.waitFor.labelId);
      } else if (decision.waitFor.heldBy === 'creation') {
        const holders = prepared.context.holders.flatMap((h) =>
          h.heldBy === 'creation' && h.workflowId ? [h.workflowId] : [],
        );
        await waitForHolder([...new Set(holders)]);
      } else {
        await condition(() => false, Math.max(1, Math.min(durations.lockRetryMs, deadline - workflowNow())));
      }
      continue;
    }
    if (workflowNow() >= deadline) return finish(await notStarted());
    const locked = await local.takeFulfillmentOrderLocks({
      creationId,
      storeId,
      orderGid: decision.order.id,
      workflowId: workflowInfo().workflowId,
      fulfillmentOrderGids: decision.targetFulfillmentOrderIds,
      staleAfterMs: durations.lockStaleMs,
      expectedState: prepared.orderState,
    });
    if (locked.acquired) {
      create = decision;
      break;
    }
    if ('stale' in locked) continue;
    const holder = locked.holders[0]!;
    await phase('waiting_for_lock', {
      reason: 'fulfillment_order_held',
      heldBy: 'creation',
      labelCreationId: holder.labelCreationId,
      fulfillmentOrderIds: locked.holders.map((h) => h.fulfillmentOrderGid),
    });
    // `reject` and `create_new` do not wait: decide again, which answers `creation_in_progress` for them.
    if (input.request.onExisting === 'return')
      await waitForHolder([...new Set(locked.holders.map((h) => h.workflowId))]);
  }
  state.phase = 'sending_to_carrier';
  state.waitingFor = null;
  upsertSearchAttributes([{ key: CARRIER_ACCOUNT_ID, value: create.carrierCall.carrierAccountId }]);
  return finish(await send(create));

  async function waitForPendingLabel(labelId: string) {
    // Another process's label: nothing signals its completion, so its status is polled until the deadline.
    while (workflowNow() < deadline) {
      const label = await local.labelState({ storeId, labelId });
      if (!label || label.status !== 'pending') return;
      await condition(() => false, Math.max(1, Math.min(durations.adoptionPollMs, deadline - workflowNow())));
    }
  }

  async function send(decision: Created): Promise<void> {
    const carrier = carrierActivities(durations);
    const call = decision.carrierCall;
    const service = prepared!.context.carrierAccounts
      .find((a) => a.id === call.carrierAccountId)
      ?.services.find((s) => s.code === call.serviceCode);
    let sent: SentToCarrier;
    try {
      sent = await carrier.sendToCarrier({
        creationId,
        storeId,
        order: decision.order,
        fulfillmentOrderGids: decision.targetFulfillmentOrderIds,
        carrierCall: call,
        serviceName: service?.name ?? call.serviceCode,
        codSource: decision.resolved.cod!.decided.source,
        codToCarrier: {
          amount: decision.resolved.cod!.toCarrier.amount,
          currency: decision.resolved.cod!.toCarrier.currency,
        },
      });
    } catch {
      // Retries exhausted without an answer: the worker or the database kept failing mid-call.
      return needsAttention({
        reason: 'worker_lost',
        exists: false,
        carrierCode: call.carrierCode,
        accountId: call.carrierAccountId,
        reference: null,
        sentAt: new Date(workflowNow()).toISOString(),
      });
    }
    if (sent.kind === 'lost_locks') {
      return fail({
        code: 'not_started',
        message: 'The creation lost its hold on the fulfillment orders before the carrier call; nothing was created.',
      });
    }
    if (sent.kind === 'blocked') return fail(sent.error);
    if (sent.kind === 'rejected') {
      return fail({
        code: 'carrier_rejected',
        message: 'The carrier refused the shipment; nothing was created. Fix the cause and send again.',
        details: { reason: sent.reason },
      });
    }
    if (sent.kind === 'unclear') {
      return needsAttention({
        reason: sent.reason,
        exists: false,
        carrierCode: call.carrierCode,
        accountId: call.carrierAccountId,
        reference: sent.draftReference,
        sentAt: sent.sentAt,
      });
    }
    await phase('waiting_for_carrier');
    state.labelIds = [sent.labelId];
    let tracking = { trackingNumber: sent.trackingNumber, trackingUrl: sent.trackingUrl };
    if (sent.shipmentStatus === 'pending') {
      const completed = await awaitBatch(call.carrierAccountId, sent.shipmentId);
      if (completed.status === 'import_rejected') {
        await local.failCreationLabel({ storeId, labelId: sent.labelId, reason: 'carrier_import_rejected' });
        return fail({
          code: 'carrier_rejected',
          message: 'The carrier refused the shipment at import after accepting its batch.',
          details: { reason: 'other' },
        });
      }
      if (completed.status === 'pending') {
        return needsAttention({
          reason: 'confirmation_missing',
          exists: true,
          carrierCode: call.carrierCode,
          accountId: call.carrierAccountId,
          reference: sent.carrierReference,
          sentAt: sent.sentAt,
        });
      }
      tracking = { trackingNumber: completed.trackingNumber, trackingUrl: completed.trackingUrl };
    }
    if (!sent.hasDocument) {
      try {
        await fetchLabelDocument({
          storeId,
          carrierAccountId: call.carrierAccountId,
          shipmentId: sent.shipmentId,
          labelId: sent.labelId,
        });
      } catch {
        return needsAttention({
          reason: 'label_not_retrieved',
          exists: true,
          carrierCode: call.carrierCode,
          accountId: call.carrierAccountId,
          reference: sent.carrierReference,
          sentAt: sent.sentAt,
        });
      }
    }
    await phase('finalizing');
    await local.finalizeCreationLabel({
      storeId,
      labelId: sent.labelId,
      trackingNumber: tracking.trackingNumber,
      trackingUrl: tracking.trackingUrl,
      weightGrams: call.weightGrams,
    });
    const sideEffects = await applySideEffects(decision, tracking);
    await local.succeedCreation({
      creationId,
      queueTicketId: input.queueTicketId,
      labelIds: [sent.labelId],
      created: true,
      sideEffects,
    });
    setStatus('succeeded');
    await releasedLocks();
  }

  async function awaitBatch(carrierAccountId: string, shipmentId: string) {
    const until = workflowNow() + durations.carrierPendingMaxMs;
    let wait = durations.carrierPollMs;
    for (;;) {
      const status = await checkShipment({ storeId, carrierAccountId, shipmentId });
      if (status.status !== 'pending' || workflowNow() >= until) return status;
      await condition(() => false, Math.min(wait, Math.max(1, until - workflowNow())));
      wait = Math.min(wait * 2, 30_000);
    }
  }

  async function applySideEffects(
    decision: Created,
    tracking: { trackingNumber: string | null; trackingUrl: string | null },
  ): Promise<SideEffects> {
    const mode = decision.fulfillment;
    let fulfillment: SideEffects['fulfillment'] = { mode, status: 'skipped' };
    if (mode !== 'none') {
      const status = await fulfillOrder({
        storeId,
        fulfillmentOrderGids: decision.targetFulfillmentOrderIds,
        mode,
        ...tracking,
        carrierCode: decision.carrierCall.carrierCode,
      }).catch(() => 'failed' as const);
      fulfillment = { mode, status };
    }
    const tags = await tagOrder({
      storeId,
      orderGid: decision.order.id,
      carrierAccountId: decision.carrierCall.carrierAccountId,
    }).catch(() => 'failed' as const);
    return { fulfillment, orderTags: { status: tags } };
  }

  async function needsAttention(a: {
    reason: StoredAttention['reason'];
    exists: boolean;
    carrierCode: string;
    accountId: string;
    reference: string | null;
    sentAt: string;
  }) {
    const carrier = CARRIERS[a.carrierCode];
    state.attention = {
      reason: a.reason,
      shipmentAtCarrier: a.exists ? 'exists' : 'unknown',
      carrier: { code: a.carrierCode, name: carrier?.name ?? a.carrierCode, accountId: a.accountId },
      carrierReference: carrier?.referenceKind ? a.reference : null,
      carrierNote: a.carrierCode === 'carrier_d' && !a.exists ? 'draft_until_label_printed' : null,
      sentAt: a.sentAt,
      resolveAllowedAt: new Date(new Date(a.sentAt).getTime() + durations.resolveAllowedAfterMs).toISOString(),
    };
    await local.creationNeedsAttention({
      creationId,
      queueTicketId: input.queueTicketId,
      attention: state.attention,
    });
    setStatus('needs_attention');
  }

  async function finish(_: void): Promise<CreationSnapshot> {
    // Every waiting request gets its answer before the run ends.
    await condition(allHandlersFinished);
    return snapshot();
  }
}

function isTimeout(error: unknown): boolean {
  return error instanceof ActivityFailure && error.cause?.name === 'TimeoutFailure';
}

/** A non-retryable activity failure that carries a spec refusal (its type is the error code). */
function businessFailure(error: unknown): CreationError | null {
  if (!(error instanceof ActivityFailure)) return null;
  const cause = error.cause as { name?: string; details?: unknown[] } | undefined;
  const detail = cause?.details?.[0] as CreationError | undefined;
  return cause?.name === 'ApplicationFailure' && detail?.code ? detail : null;
}

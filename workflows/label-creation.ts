import {
  ActivityFailure,
  ApplicationFailure,
  ParentClosePolicy,
  condition,
  sleep,
  startChild,
  defineQuery,
  defineSignal,
  defineUpdate,
  getExternalWorkflowHandle,
  log,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
  allHandlersFinished,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { PreparedAndLocked, Recovered, SendToCarrierInput, SentToCarrier } from '../activities/label-creation';
import type { CreationError, SideEffects, StoredAttention } from '../src/creation/records';
import { CARRIERS } from '../src/carriers/catalog';
import { decisionRecord, type CreationDecision } from '../src/domain/creation-decision';
import type { CreationRequest } from '../src/domain/creation-request';
import type { WaitFor } from '../src/domain/existing-labels';
import type { LabelCreationPhase, LabelCreationStatus } from '../src/domain/labels';
import type { Refusal } from '../src/domain/refusal';
import { decideResolve, nextAttentionWait, type Resolution, type ResolveOutcome } from '../src/domain/resolve';
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

export interface CreationState extends CreationSnapshot {
  waitingFor: WaitFor | null;
  labelIds: string[];
  error: CreationError | null;
  attention: StoredAttention | null;
  resolution: Resolution | null;
}

export interface ResolveInput {
  outcome: ResolveOutcome;
  trackingNumber: string | null;
  note: string | null;
  /** The API key that resolves (`ak_...`), recorded on the creation. */
  resolvedBy: string;
}

/** Answers once the creation leaves `processing`, or at `waitMs`; validated so a request never joins another attempt. */
export const awaitOutcomeUpdate = defineUpdate<CreationSnapshot, [{ creationId: string; waitMs: number }]>(
  'awaitOutcome',
);
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

const local = proxyLocalActivities<Activities>({
  startToCloseTimeout: '15 seconds',
  retry: { initialInterval: '200 milliseconds', backoffCoefficient: 2, maximumInterval: '5 seconds' },
});

const READS = {
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '10 seconds', maximumAttempts: 6 },
} as const;
const {
  checkShipment,
  fetchLabelDocument,
  fulfillOrder,
  tagOrder,
  holdUnresolvedFulfillmentOrders,
  releaseUnresolvedFulfillmentOrders,
} = proxyActivities<Activities>(READS);

function carrierActivities(d: CreationDurations) {
  return proxyActivities<Activities>({
    // A create, a lookup after an unclear answer, and a print for carrier D: three carrier calls at most.
    startToCloseTimeout: 3 * d.carrierTimeoutMs + 10_000,
    // A lost worker is noticed within seconds; the retry only looks the shipment up (never creates again).
    heartbeatTimeout: '5 seconds',
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '10 seconds', maximumAttempts: 10 },
  });
}

/** One look at the carrier while the creation needs attention: a failed look is simply retried at the next one. */
function recoverActivity(d: CreationDurations) {
  return proxyActivities<Activities>({
    // A lookup, a status call and a label download at most.
    startToCloseTimeout: 3 * d.carrierTimeoutMs + 10_000,
    retry: { maximumAttempts: 1 },
  }).recoverShipment;
}

/**
 * `preparing`, the decision and, to create, the locks (all or none, recorded with the decision): one local activity
 * (docs/decisions/0023-decide-and-lock-in-one-step.md), so the carrier call's scheduling follows in the same workflow
 * task (a regular activity's task round trip is the largest share of a creation's time, decision 0018).
 */
function prepareActivity(remainingMs: number) {
  return proxyLocalActivities<Activities>({
    startToCloseTimeout: '30 seconds',
    // Retried until the creation's deadline, then the creation did not start; a store platform that stays down fails
    // it sooner, with `shopify_unavailable` (the activity counts its reads, docs/decisions/0027).
    scheduleToCloseTimeout: Math.max(1000, remainingMs),
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '15 seconds' },
  }).prepareAndLockCreation;
}

type Created = Extract<CreationDecision, { kind: 'create' }>;

/** What a creation in `needs_attention` knows and keeps trying. */
interface Unresolved {
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
    resolution: null,
  };
  const waiters = new Set<string>();
  /** A look at the carrier (and what follows from it) is under way: a resolve waits for it, then decides again. */
  let busy = false;
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
  const resolveDecision = (outcome: ResolveOutcome) =>
    decideResolve(
      {
        status: state.status,
        attention: state.status === 'needs_attention' ? state.attention : null,
        resolution: state.resolution,
      },
      outcome,
      workflowNow(),
    );
  const refuseResolve = (outcome: ResolveOutcome) => {
    const decision = resolveDecision(outcome);
    if (decision.kind !== 'refuse') return decision;
    const r = decision.refusal;
    throw ApplicationFailure.create({
      message: r.message,
      type: r.code,
      nonRetryable: true,
      details: [{ code: r.code, message: r.message, details: r.details, retryAfterSeconds: r.retryAfterSeconds }],
    });
  };
  setHandler(
    resolveUpdate,
    async (input) => {
      await condition(() => !busy);
      // Decided again: the look that was under way may have found the shipment.
      if (refuseResolve(input.outcome).kind === 'repeat') return snapshot();
      state.resolution = { ...input, resolvedAt: new Date(workflowNow()).toISOString() };
      await condition(() => state.status !== 'needs_attention');
      return snapshot();
    },
    { validator: (input: ResolveInput) => void refuseResolve(input.outcome) },
  );
  setHandler(notifyOnReleaseSignal, async ({ workflowId }) => {
    if (!released) waiters.add(workflowId);
    else await wake(workflowId);
  });
  setHandler(locksReleasedSignal, () => {
    locksReleased = true;
  });

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
  let prepared: Extract<PreparedAndLocked, { kind: 'prepared' }> | null = null;
  while (!create) {
    if (workflowNow() >= deadline) return finish(await notStarted());
    let outcome: PreparedAndLocked;
    try {
      outcome = await prepareActivity(deadline - workflowNow())({
        creationId,
        storeId,
        workflowId: workflowInfo().workflowId,
        request: input.request,
        lockStaleAfterMs: durations.lockStaleMs,
      });
    } catch (error) {
      if (isTimeout(error)) return finish(await notStarted());
      const refusal = businessFailure(error);
      if (!refusal) throw error;
      return finish(await fail(refusal));
    }
    if (outcome.kind === 'stopped') {
      // A duplicate run of an attempt that already moved on: nothing to do.
      state.status = (outcome.status as LabelCreationStatus | null) ?? 'failed';
      state.phase = null;
      return finish();
    }
    prepared = outcome;
    // Decided by the activity with the same pure function the dry run uses; the workflow does not decide again.
    const decision = outcome.decision;
    const record = decisionRecord(decision);
    if (decision.order) {
      upsertSearchAttributes([
        { key: ORDER_ID, value: decision.order.id },
        ...(decision.kind === 'create'
          ? [{ key: CARRIER_ACCOUNT_ID, value: decision.carrierCall.carrierAccountId }]
          : []),
      ]);
    }
    // A decision to create is recorded with its locks, in one step below.
    if (decision.kind !== 'create') await local.recordCreationDecision({ creationId, ...record });
    if (decision.kind === 'refuse') return finish(await fail(refusalError(decision.refusal)));
    if (decision.kind === 'return_existing') {
      // Existing labels are returned as they are: nothing is fulfilled or tagged for them.
      await local.succeedCreation({
        creationId,
        storeId,
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
    // Past the deadline nothing goes to the carrier: failing releases the locks the activity took.
    if (workflowNow() >= deadline) return finish(await notStarted());
    // A decision to create always comes with the activity's attempt at its locks.
    const locked = outcome.locked!;
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
    const sendInput: SendToCarrierInput = {
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
      // Nothing to fulfil: a label ready at once with no tag to add finishes the creation in the carrier activity.
      ...(decision.fulfillment === 'none' ? { finishIfNothingFollows: { queueTicketId: input.queueTicketId } } : {}),
    };
    const unclear = (u: Omit<Unresolved, 'decision' | 'sendInput'>) => needsAttention({ decision, sendInput, ...u });
    let sent: SentToCarrier;
    try {
      sent = await carrier.sendToCarrier(sendInput);
    } catch {
      // Retries exhausted without an answer: the worker or the database kept failing mid-call.
      return unclear({
        reason: 'worker_lost',
        exists: false,
        reference: null,
        sentAt: new Date(workflowNow()).toISOString(),
        labelId: null,
        shipmentId: null,
      });
    }
    if (sent.kind === 'succeeded') {
      // The activity recorded the label and the success (decision 0024): only the workflow's own state is left.
      state.labelIds = [sent.labelId];
      setStatus('succeeded');
      return releasedLocks();
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
      return unclear({
        reason: sent.reason,
        exists: false,
        reference: sent.draftReference,
        sentAt: sent.sentAt,
        labelId: null,
        shipmentId: null,
      });
    }
    // `waiting_for_carrier` only when the creation does wait: a batch still pending, or a PDF still to fetch.
    if (sent.shipmentStatus === 'pending' || !sent.hasDocument) await phase('waiting_for_carrier');
    state.labelIds = [sent.labelId];
    const known = { labelId: sent.labelId, shipmentId: sent.shipmentId, reference: sent.carrierReference };
    let tracking = { trackingNumber: sent.trackingNumber, trackingUrl: sent.trackingUrl };
    if (sent.shipmentStatus === 'pending') {
      const completed = await awaitBatch(call.carrierAccountId, sent.shipmentId);
      if (completed.status === 'import_rejected') return importRejected(sent.labelId);
      if (completed.status === 'pending') {
        return unclear({ reason: 'confirmation_missing', exists: true, sentAt: sent.sentAt, ...known });
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
        return unclear({ reason: 'label_not_retrieved', exists: true, sentAt: sent.sentAt, ...known });
      }
    }
    await complete(decision, sent.labelId, tracking, sent.labelTag, sent.finalized);
  }

  /**
   * The label is obtained and its PDF stored: finalize it (phase `finalizing`), apply the side effects, succeed.
   * `labelTag` is the account's tag when known (undefined: the tag activity looks); `finalized` when the carrier
   * activity already recorded the label `ready`.
   */
  async function complete(
    decision: Created,
    labelId: string,
    tracking: { trackingNumber: string | null; trackingUrl: string | null },
    labelTag?: string | null,
    finalized = false,
  ): Promise<void> {
    if (state.status === 'processing') {
      state.phase = 'finalizing';
      state.waitingFor = null;
    }
    if (!finalized) {
      await local.finalizeCreationLabel({
        creationId,
        storeId,
        labelId,
        trackingNumber: tracking.trackingNumber,
        trackingUrl: tracking.trackingUrl,
        weightGrams: decision.carrierCall.weightGrams,
      });
    }
    const sideEffects = await applySideEffects(decision, tracking, labelTag);
    await local.succeedCreation({
      creationId,
      storeId,
      queueTicketId: input.queueTicketId,
      labelIds: [labelId],
      created: true,
      sideEffects,
    });
    state.labelIds = [labelId];
    setStatus('succeeded');
    await releasedLocks();
  }

  /** Carrier B refused the batch's shipment at import: the label fails, and the creation with `carrier_rejected`. */
  async function importRejected(labelId: string): Promise<void> {
    await local.failCreationLabel({ storeId, labelId, reason: 'carrier_import_rejected' });
    return fail({
      code: 'carrier_rejected',
      message: 'The carrier refused the shipment at import after accepting its batch.',
      details: { reason: 'other' },
    });
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

  /**
   * Fulfilment and the order tag, side by side (they touch different things on the platform), each scheduled only
   * when there is something to do: `fulfillment: none` and an account without a label tag cost no task.
   */
  async function applySideEffects(
    decision: Created,
    tracking: { trackingNumber: string | null; trackingUrl: string | null },
    labelTag: string | null | undefined,
  ): Promise<SideEffects> {
    const mode = decision.fulfillment;
    const [fulfillment, tags] = await Promise.all([
      mode === 'none'
        ? ({ mode, status: 'skipped' } as const)
        : fulfillOrder({
            storeId,
            fulfillmentOrderGids: decision.targetFulfillmentOrderIds,
            mode,
            ...tracking,
            carrierCode: decision.carrierCall.carrierCode,
          })
            .catch(() => 'failed' as const)
            .then((status) => ({ mode, status })),
      labelTag === null
        ? ('skipped' as const)
        : tagOrder({
            storeId,
            orderGid: decision.order.id,
            carrierAccountId: decision.carrierCall.carrierAccountId,
          }).catch(() => 'failed' as const),
    ]);
    return { fulfillment, orderTags: { status: tags } };
  }

  /**
   * The platform's hold on the fulfillment orders while the creation needs attention (admin and automation cannot
   * export). Best effort past its retries: the lock rows keep every API path off them either way.
   */
  async function platformHold(action: 'hold' | 'release', u: Unresolved): Promise<void> {
    const target = { storeId, creationId, fulfillmentOrderGids: u.sendInput.fulfillmentOrderGids };
    try {
      if (action === 'hold') await holdUnresolvedFulfillmentOrders(target);
      else await releaseUnresolvedFulfillmentOrders(target);
    } catch (error) {
      log.warn(`platform ${action} of the fulfillment orders failed`, { error: String(error) });
    }
  }

  /** Enters `needs_attention` (the fulfillment orders stay locked) and stays there until the outcome is known. */
  async function needsAttention(u: Unresolved): Promise<void> {
    const carrier = CARRIERS[u.sendInput.carrierCall.carrierCode];
    const code = u.sendInput.carrierCall.carrierCode;
    state.attention = {
      reason: u.reason,
      shipmentAtCarrier: u.exists ? 'exists' : 'unknown',
      carrier: { code, name: carrier?.name ?? code, accountId: u.sendInput.carrierCall.carrierAccountId },
      carrierReference: carrier?.referenceKind ? u.reference : null,
      carrierNote: code === 'carrier_d' && !u.exists ? 'draft_until_label_printed' : null,
      sentAt: u.sentAt,
      // Whole seconds, as on the wire: the time a merchant reads is the time the resolve is taken from.
      resolveAllowedAt: new Date(
        Math.floor(new Date(u.sentAt).getTime() / 1000) * 1000 + durations.resolveAllowedAfterMs,
      ).toISOString(),
    };
    await local.creationNeedsAttention({
      creationId,
      queueTicketId: input.queueTicketId,
      attention: state.attention,
    });
    setStatus('needs_attention');
    await platformHold('hold', u);
    return untilResolved(u);
  }

  /**
   * `needs_attention` (docs/decisions/0015-needs-attention-loop.md): looks for the shipment at the carrier by the
   * stable reference, with backoff, until the label is obtained (succeeded), the carrier refuses it at import
   * (failed), the merchant resolves, or 24 hours pass (abandoned). Every wait is a durable timer.
   */
  async function untilResolved(u: Unresolved): Promise<void> {
    const abandonAt = workflowNow() + durations.abandonAfterMs;
    const recover = recoverActivity(durations);
    for (let attempt = 0; ; attempt += 1) {
      await condition(
        () => state.resolution !== null,
        Math.max(
          1,
          nextAttentionWait(attempt, {
            initialMs: durations.attentionRetryInitialMs,
            maxMs: durations.attentionRetryMaxMs,
            nowMs: workflowNow(),
            abandonAtMs: abandonAt,
          }),
        ),
      );
      if (state.resolution) return applyResolution(u, state.resolution);
      if (workflowNow() >= abandonAt) return abandon(u, null);
      busy = true;
      try {
        const done = await lookOnce(u, recover);
        if (done) return;
      } finally {
        busy = false;
      }
    }
  }

  /** One look at the carrier; true when it settled the creation. */
  async function lookOnce(u: Unresolved, recover: ReturnType<typeof recoverActivity>) {
    let found: Recovered;
    try {
      found = await recover({
        ...u.sendInput,
        labelId: u.labelId,
        shipmentId: u.shipmentId,
        carrierReference: u.reference,
      });
    } catch {
      // The carrier or the database did not answer this time: look again later.
      return false;
    }
    if (found.kind === 'obtained') {
      // The platform refuses to fulfil a held fulfillment order: the hold goes first.
      await platformHold('release', u);
      await complete(u.decision, found.labelId, {
        trackingNumber: found.trackingNumber,
        trackingUrl: found.trackingUrl,
      });
      return true;
    }
    if (found.kind === 'import_rejected') {
      await importRejected(found.labelId);
      await platformHold('release', u);
      return true;
    }
    if (found.kind === 'exists' || found.kind === 'draft') await learned(u, found);
    return false;
  }

  /** A late acceptance or a draft found: `attention` shows it (and `not_created` is refused once the shipment exists). */
  async function learned(u: Unresolved, found: Extract<Recovered, { kind: 'exists' | 'draft' }>) {
    const before = state.attention!;
    if (found.kind === 'exists') {
      u.labelId = found.labelId;
      u.shipmentId = found.shipmentId;
      state.labelIds = [found.labelId];
    }
    u.reference = found.carrierReference;
    const carrier = CARRIERS[before.carrier.code];
    const attention: StoredAttention = {
      ...before,
      shipmentAtCarrier: found.kind === 'exists' ? 'exists' : before.shipmentAtCarrier,
      carrierReference: carrier?.referenceKind ? found.carrierReference : null,
      carrierNote: found.kind === 'exists' ? null : before.carrierNote,
    };
    if (JSON.stringify(attention) === JSON.stringify(before)) return;
    state.attention = attention;
    await local.updateCreationAttention({ creationId, attention });
  }

  async function applyResolution(u: Unresolved, resolution: Resolution): Promise<void> {
    if (resolution.outcome === 'shipment_exists') return abandon(u, resolution);
    state.error = {
      code: 'resolved_not_created',
      message: 'Resolved as not created: no shipment exists. The same request can be sent again.',
      details: { label_creation_id: creationId },
    };
    await local.resolveCreationNotCreated({ creationId, error: state.error, resolution });
    setStatus('failed');
    await releasedLocks();
    await platformHold('release', u);
  }

  /**
   * `abandoned`: the locks are released and the key stays bound; the pending label is failed `not_finalized`. The
   * record is deleted 90 days after creation by a small workflow of its own, so this one ends now (its ID, the
   * idempotency key, is free for a new attempt once the key's binding expires).
   */
  async function abandon(u: Unresolved, resolution: Resolution | null): Promise<void> {
    if (u.labelId) await local.failCreationLabel({ storeId, labelId: u.labelId, reason: 'not_finalized' });
    await local.abandonUnresolvedCreation({ creationId, resolution });
    setStatus('abandoned');
    await releasedLocks();
    await platformHold('release', u);
    await startChild(abandonedCreationRetentionWorkflow, {
      workflowId: `label-creation-retention/${creationId}`,
      args: [{ creationId, deleteAtMs: input.createdAtMs + durations.abandonedDeleteAfterMs }],
      parentClosePolicy: ParentClosePolicy.ABANDON,
    });
  }

  async function finish(_?: void): Promise<CreationSnapshot> {
    // Every waiting request gets its answer before the run ends.
    await condition(allHandlersFinished);
    return snapshot();
  }
}

/**
 * The failure of the prepare step. A local activity's failure reaches the workflow as the activity's own failure (its
 * `ApplicationFailure`, or a `TimeoutFailure` at its schedule-to-close timeout), not wrapped in an `ActivityFailure`
 * as a regular activity's is: both shapes are read.
 */
function activityCause(error: unknown): { name?: string; details?: unknown[] } | undefined {
  const failure = error instanceof ActivityFailure ? error.cause : error;
  return failure instanceof Error ? failure : undefined;
}

function isTimeout(error: unknown): boolean {
  return activityCause(error)?.name === 'TimeoutFailure';
}

/** A non-retryable activity failure that carries a spec refusal (its type is the error code). */
function businessFailure(error: unknown): CreationError | null {
  const cause = activityCause(error);
  const detail = cause?.details?.[0] as CreationError | undefined;
  return cause?.name === 'ApplicationFailure' && detail?.code ? detail : null;
}

/**
 * Spec: an abandoned creation's record is deleted 90 days after creation (until then it blocks its fulfillment orders
 * for new API labels). One durable timer, started by the creation's workflow as it abandons.
 */
export async function abandonedCreationRetentionWorkflow(input: { creationId: string; deleteAtMs: number }) {
  const remaining = input.deleteAtMs - workflowNow();
  if (remaining > 0) await sleep(remaining);
  await local.deleteAbandonedCreation({ creationId: input.creationId });
}

import { condition, patched } from '@temporalio/workflow';
import { refusal } from '../../src/domain/refusal';
import { sendInputFor } from './contract';
import type { SendToCarrierInput, SentToCarrier } from '../../activities/label-creation';
import { workflowNow } from '../workflow-time';
import { boundedWith, carrierActivities, local } from './activities';
import { activitySummary, timerSummary } from './details';
import { needsAttention } from './attention';
import type { Unresolved } from './unresolved';
import { complete, importRejected, type Tracking } from './finalize';
import type { Created, Prepared } from './prepare';
import type { CreationRun } from './run';

/**
 * The patch of decision 0137: `worker_lost`'s `sent_at` is the one the record holds, and a call the record never marked
 * sent decides again. Runs that did not take it used the workflow's time.
 */
const RECORDED_SENT_AT = 'worker-lost-recorded-sent-at';
/** The patch of decision 0138: a creation that lost its locks before the carrier call decides again. */
const DECIDE_AGAIN_AFTER_LOST_LOCKS = 'decide-again-after-lost-locks';

/**
 * How the carrier step ended: `settled` (the creation ended, or waits in `needs_attention`), or `decide_again`: nothing
 * was sent and the creation prepares, decides and locks once more (within its 5 minutes).
 */
export type SendStep = 'settled' | 'decide_again';

const settled = async (done: Promise<void>): Promise<SendStep> => {
  await done;
  return 'settled';
};

/**
 * `sending_to_carrier` and `waiting_for_carrier`: the one create call, then what its answer asks for (carrier B's
 * batch, a PDF still to fetch), ending succeeded, failed or in `needs_attention`.
 */
export async function sendToCarrier(run: CreationRun, decision: Created, prepared: Prepared): Promise<SendStep> {
  const { creationId, storeId, durations } = run;
  const carrierName = run.carrier?.name ?? decision.carrierCall.carrierCode;
  const carrier = carrierActivities(durations, activitySummary.send(carrierName, run.order));
  const ids = { creationId, storeId, queueTicketId: run.input.queueTicketId };
  const sendInput = sendInputFor(ids, decision, prepared.context.carrierAccounts);
  let sent: SentToCarrier;
  try {
    sent = await carrier.sendToCarrier(sendInput);
  } catch {
    return workerLost(run, decision, sendInput);
  }
  return afterSend(run, decision, sendInput, sent);
}

/**
 * Retries exhausted without an answer: the worker or the database kept failing mid-call. The shipment is unknown
 * since the call was marked sent, so `resolve_allowed_at` counts from then (spec: 15 minutes after `sent_at`, "when
 * the carrier was called"); a call never marked sent never reached the carrier.
 */
export async function workerLost(
  run: CreationRun,
  decision: Created,
  sendInput: SendToCarrierInput,
): Promise<SendStep> {
  const sentAt = patched(RECORDED_SENT_AT)
    ? await local.creationSentAt({ creationId: run.creationId })
    : new Date(workflowNow()).toISOString();
  if (sentAt === null) return 'decide_again';
  return settled(
    needsAttention(run, {
      decision,
      sendInput,
      reason: 'worker_lost',
      exists: false,
      reference: null,
      sentAt,
      labelId: null,
      shipmentId: null,
    }),
  );
}

/** What the carrier call's answer asks for: the creation's end, or the batch, the PDF and the side effects to follow. */
export async function afterSend(
  run: CreationRun,
  decision: Created,
  sendInput: SendToCarrierInput,
  sent: SentToCarrier,
): Promise<SendStep> {
  if (sent.kind === 'lost_locks') {
    // Nothing was sent: the spec's answers for held fulfillment orders (wait, or `creation_in_progress`) and its
    // 5 minutes (`not_started`) apply as to any creation before the carrier call.
    if (patched(DECIDE_AGAIN_AFTER_LOST_LOCKS)) return 'decide_again';
    return settled(
      run.fail(
        refusal(
          'not_started',
          'The creation lost its hold on the fulfillment orders before the carrier call; nothing was created.',
        ),
      ),
    );
  }
  return settled(carrierAnswered(run, decision, sendInput, sent));
}

/** The carrier call was made (or refused before it by carrier protection): the creation's end, or what follows. */
async function carrierAnswered(
  run: CreationRun,
  decision: Created,
  sendInput: SendToCarrierInput,
  sent: Exclude<SentToCarrier, { kind: 'lost_locks' }>,
): Promise<void> {
  const { storeId } = run;
  const call = decision.carrierCall;
  const carrierName = run.carrier?.name ?? call.carrierCode;
  const unclear = (u: Omit<Unresolved, 'decision' | 'sendInput'>) => needsAttention(run, { decision, sendInput, ...u });
  if (sent.kind === 'succeeded') {
    // The activity recorded the label and the success (decision 0024): only the workflow's own state is left.
    run.settle({ kind: 'succeed', labelIds: [sent.labelId] });
    return run.releasedLocks();
  }
  if (sent.kind === 'blocked') return run.fail(sent.error);
  if (sent.kind === 'rejected') {
    return run.fail({
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
  if (sent.shipmentStatus === 'pending' || !sent.hasDocument) await run.move({ kind: 'await_carrier' });
  run.apply({ kind: 'label_recorded', labelIds: [sent.labelId] });
  const known = { labelId: sent.labelId, shipmentId: sent.shipmentId, reference: sent.carrierReference };
  let tracking: Tracking = { trackingNumber: sent.trackingNumber, trackingUrl: sent.trackingUrl };
  if (sent.shipmentStatus === 'pending') {
    const completed = await awaitBatch(run, call.carrierAccountId, sent.shipmentId);
    if (completed.status === 'import_rejected') return importRejected(run, sent.labelId);
    if (completed.status === 'pending') {
      return unclear({ reason: 'confirmation_missing', exists: true, sentAt: sent.sentAt, ...known });
    }
    tracking = { trackingNumber: completed.trackingNumber, trackingUrl: completed.trackingUrl };
  }
  if (!sent.hasDocument) {
    try {
      await boundedWith(activitySummary.fetchLabel(carrierName, run.order)).fetchLabelDocument({
        storeId,
        carrierAccountId: call.carrierAccountId,
        shipmentId: sent.shipmentId,
        labelId: sent.labelId,
      });
    } catch {
      return unclear({ reason: 'label_not_retrieved', exists: true, sentAt: sent.sentAt, ...known });
    }
  }
  await complete(run, decision, sent.labelId, tracking, sent.labelTag, sent.finalized);
}

/** Carrier B: the batch's status, polled with backoff until it completes or `carrierPendingMaxMs` passes. */
async function awaitBatch(run: CreationRun, carrierAccountId: string, shipmentId: string) {
  const until = workflowNow() + run.durations.carrierPendingMaxMs;
  let wait = run.durations.carrierPollMs;
  for (;;) {
    const summary = activitySummary.checkBatch(run.carrier?.name ?? carrierAccountId, shipmentId, run.order);
    const status = await boundedWith(summary).checkShipment({ storeId: run.storeId, carrierAccountId, shipmentId });
    if (status.status !== 'pending' || workflowNow() >= until) return status;
    await condition(() => false, Math.min(wait, Math.max(1, until - workflowNow())), {
      summary: timerSummary.batch(run.carrier?.name ?? carrierAccountId, shipmentId),
    });
    wait = Math.min(wait * 2, 30_000);
  }
}

import { condition } from '@temporalio/workflow';
import { refusal } from '../../src/domain/refusal';
import { sendInputFor } from './contract';
import type { SendToCarrierInput, SentToCarrier } from '../../activities/label-creation';
import { workflowNow } from '../workflow-time';
import { boundedWith, carrierActivities } from './activities';
import { activitySummary, timerSummary } from './details';
import { needsAttention } from './attention';
import type { Unresolved } from './unresolved';
import { complete, importRejected, type Tracking } from './finalize';
import type { Created, Prepared } from './prepare';
import type { CreationRun } from './run';

/**
 * `sending_to_carrier` and `waiting_for_carrier`: the one create call, then what its answer asks for (carrier B's
 * batch, a PDF still to fetch), ending succeeded, failed or in `needs_attention`.
 */
export async function sendToCarrier(run: CreationRun, decision: Created, prepared: Prepared): Promise<void> {
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

/** Retries exhausted without an answer: the worker or the database kept failing mid-call. */
export function workerLost(run: CreationRun, decision: Created, sendInput: SendToCarrierInput): Promise<void> {
  return needsAttention(run, {
    decision,
    sendInput,
    reason: 'worker_lost',
    exists: false,
    reference: null,
    sentAt: new Date(workflowNow()).toISOString(),
    labelId: null,
    shipmentId: null,
  });
}

/** What the carrier call's answer asks for: the creation's end, or the batch, the PDF and the side effects to follow. */
export async function afterSend(
  run: CreationRun,
  decision: Created,
  sendInput: SendToCarrierInput,
  sent: SentToCarrier,
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
  if (sent.kind === 'lost_locks') {
    return run.fail(
      refusal(
        'not_started',
        'The creation lost its hold on the fulfillment orders before the carrier call; nothing was created.',
      ),
    );
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

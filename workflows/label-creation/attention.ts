import { condition } from '@temporalio/workflow';
import type { Recovered } from '../../activities/label-creation';
import type { StoredAttention } from '../../src/domain/creation-record';
import { CARRIERS } from '../../src/domain/carrier-catalog';
import { nextAttentionWait } from '../../src/domain/resolve';
import { workflowNow } from '../workflow-time';
import { local, recoverActivity } from './activities';
import { activitySummary, timerSummary } from './details';
import { complete, importRejected } from './finalize';
import { platformHold } from './platform-hold';
import { abandon, applyResolution } from './resolution';
import type { CreationRun } from './run';
import type { Unresolved } from './unresolved';

/** Enters `needs_attention` (the fulfillment orders stay locked) and stays there until the outcome is known. */
export async function needsAttention(run: CreationRun, u: Unresolved): Promise<void> {
  const carrier = CARRIERS[u.sendInput.carrierCall.carrierCode];
  const code = u.sendInput.carrierCall.carrierCode;
  const attention: StoredAttention = {
    reason: u.reason,
    shipmentAtCarrier: u.exists ? 'exists' : 'unknown',
    carrier: { code, name: carrier?.name ?? code, accountId: u.sendInput.carrierCall.carrierAccountId },
    carrierReference: carrier?.referenceKind ? u.reference : null,
    carrierNote: code === 'carrier_d' && !u.exists ? 'draft_until_label_printed' : null,
    sentAt: u.sentAt,
    // Whole seconds, as on the wire: the time a merchant reads is the time the resolve is taken from.
    resolveAllowedAt: new Date(
      Math.floor(new Date(u.sentAt).getTime() / 1000) * 1000 + run.durations.resolveAllowedAfterMs,
    ).toISOString(),
  };
  await local.creationNeedsAttention({
    creationId: run.creationId,
    queueTicketId: run.input.queueTicketId,
    attention,
  });
  run.settle({ kind: 'need_attention', attention });
  await platformHold(run, 'hold', u.sendInput.fulfillmentOrderGids);
  return untilResolved(run, u);
}

/**
 * `needs_attention` (docs/decisions/0015-needs-attention-loop.md): looks for the shipment at the carrier by the
 * stable reference, with backoff, until the label is obtained (succeeded), the carrier refuses it at import
 * (failed), the merchant resolves, or 24 hours pass (abandoned). Every wait is a durable timer.
 */
async function untilResolved(run: CreationRun, u: Unresolved): Promise<void> {
  const abandonAt = workflowNow() + run.durations.abandonAfterMs;
  run.abandonAtMs = abandonAt;
  for (let attempt = 0; ; attempt += 1) {
    const wait = Math.max(
      1,
      nextAttentionWait(attempt, {
        initialMs: run.durations.attentionRetryInitialMs,
        maxMs: run.durations.attentionRetryMaxMs,
        nowMs: workflowNow(),
        abandonAtMs: abandonAt,
      }),
    );
    run.nextLookAtMs = workflowNow() + wait;
    run.describe();
    await condition(() => run.state.resolution !== null, wait, {
      summary: timerSummary.nextLook(run.carrier?.name ?? u.decision.carrierCall.carrierCode, run.order),
    });
    run.nextLookAtMs = null;
    if (run.state.resolution) return applyResolution(run, u, run.state.resolution);
    if (workflowNow() >= abandonAt) return abandon(run, u, null);
    run.busy = true;
    run.describe();
    try {
      const done = await lookOnce(run, u, recoverActivity(run.durations, lookSummary(run, u)));
      if (done) return;
    } finally {
      run.busy = false;
    }
  }
}

const lookSummary = (run: CreationRun, u: Unresolved) =>
  activitySummary.look(
    run.state.attention?.carrier.name ?? u.sendInput.carrierCall.carrierCode,
    run.order,
    u.reference,
  );

/** One look at the carrier; true when it settled the creation. */
async function lookOnce(run: CreationRun, u: Unresolved, recover: ReturnType<typeof recoverActivity>) {
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
    await platformHold(run, 'release', u.sendInput.fulfillmentOrderGids);
    await complete(run, u.decision, found.labelId, {
      trackingNumber: found.trackingNumber,
      trackingUrl: found.trackingUrl,
    });
    return true;
  }
  if (found.kind === 'import_rejected') {
    await importRejected(run, found.labelId);
    await platformHold(run, 'release', u.sendInput.fulfillmentOrderGids);
    return true;
  }
  if (found.kind === 'exists' || found.kind === 'draft') await learned(run, u, found);
  return false;
}

/** A late acceptance or a draft found: `attention` shows it (and `not_created` is refused once the shipment exists). */
async function learned(run: CreationRun, u: Unresolved, found: Extract<Recovered, { kind: 'exists' | 'draft' }>) {
  const before = run.state.attention!;
  if (found.kind === 'exists') {
    u.labelId = found.labelId;
    u.shipmentId = found.shipmentId;
    run.apply({ kind: 'label_recorded', labelIds: [found.labelId] });
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
  run.apply({ kind: 'learn', attention });
  await local.updateCreationAttention({ creationId: run.creationId, attention });
}

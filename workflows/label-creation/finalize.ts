import type { SideEffects } from '../../src/domain/creation-record';
import { boundedWith, local } from './activities';
import { activitySummary } from './details';
import type { Created } from './prepare';
import type { CreationRun } from './run';

export interface Tracking {
  trackingNumber: string | null;
  trackingUrl: string | null;
}

/**
 * The label is obtained and its PDF stored: finalize it (phase `finalizing`), apply the side effects, succeed.
 * `labelTag` is the account's tag when known (undefined: the tag activity looks); `finalized` when the carrier
 * activity already recorded the label `ready`.
 */
export async function complete(
  run: CreationRun,
  decision: Created,
  labelId: string,
  tracking: Tracking,
  labelTag?: string | null,
  finalized = false,
): Promise<void> {
  const { creationId, storeId } = run;
  // From `needs_attention` (a look found the label) the creation succeeds without this phase.
  if (run.state.status === 'processing') run.apply({ kind: 'finalize' });
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
  const sideEffects = await applySideEffects(run, decision, tracking, labelTag);
  await local.succeedCreation({
    creationId,
    storeId,
    queueTicketId: run.input.queueTicketId,
    labelIds: [labelId],
    created: true,
    sideEffects,
  });
  run.settle({ kind: 'succeed', labelIds: [labelId] });
  await run.releasedLocks();
}

/** Carrier B refused the batch's shipment at import: the label fails, and the creation with `carrier_rejected`. */
export async function importRejected(run: CreationRun, labelId: string): Promise<void> {
  await local.failCreationLabel({ storeId: run.storeId, labelId, reason: 'carrier_import_rejected' });
  return run.fail({
    code: 'carrier_rejected',
    message: 'The carrier refused the shipment at import after accepting its batch.',
    details: { reason: 'other' },
  });
}

/**
 * Fulfilment and the order tag, side by side (they touch different things on the platform), each scheduled only
 * when there is something to do: `fulfillment: none` and an account without a label tag cost no task.
 */
async function applySideEffects(
  run: CreationRun,
  decision: Created,
  tracking: Tracking,
  labelTag: string | null | undefined,
): Promise<SideEffects> {
  const mode = decision.fulfillment;
  const [fulfillment, tags] = await Promise.all([
    mode === 'none'
      ? ({ mode, status: 'skipped' } as const)
      : boundedWith(activitySummary.fulfil(mode, run.order))
          .fulfillOrder({
            storeId: run.storeId,
            fulfillmentOrderGids: decision.targetFulfillmentOrderIds,
            mode,
            ...tracking,
            carrierCode: decision.carrierCall.carrierCode,
          })
          .catch(() => 'failed' as const)
          .then((status) => ({ mode, status })),
    labelTag === null
      ? ('skipped' as const)
      : boundedWith(activitySummary.tag(run.order))
          .tagOrder({
            storeId: run.storeId,
            orderGid: decision.order.id,
            carrierAccountId: decision.carrierCall.carrierAccountId,
          })
          .catch(() => 'failed' as const),
  ]);
  return { fulfillment, orderTags: { status: tags } };
}

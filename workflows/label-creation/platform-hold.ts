import { log } from '@temporalio/workflow';
import { boundedWith } from './activities';
import { activitySummary } from './details';
import type { CreationRun } from './run';

/**
 * The platform's hold on the fulfillment orders while the creation needs attention (admin and automation cannot
 * export). Best effort past its retries: the lock rows keep every API path off them either way.
 */
export async function platformHold(
  run: CreationRun,
  action: 'hold' | 'release',
  fulfillmentOrderGids: string[],
): Promise<void> {
  const target = {
    storeId: run.storeId,
    creationId: run.creationId,
    fulfillmentOrderGids,
  };
  const platform = boundedWith(activitySummary.platformHold(action, run.order));
  try {
    if (action === 'hold') await platform.holdUnresolvedFulfillmentOrders(target);
    else await platform.releaseUnresolvedFulfillmentOrders(target);
  } catch (error) {
    log.warn(`platform ${action} of the fulfillment orders failed`, { error: String(error) });
  }
}

import { sleep } from '@temporalio/workflow';
import { workflowNow } from '../workflow-time';
import { local } from './activities';
import type { RetentionInput } from './contract';
import { timerSummary } from './details';

/**
 * Spec: an abandoned creation's record is deleted 90 days after creation (until then it blocks its fulfillment orders
 * for new API labels). One durable timer, started by the creation's workflow as it abandons.
 */
export async function abandonedCreationRetentionWorkflow(input: RetentionInput): Promise<void> {
  const remaining = input.deleteAtMs - workflowNow();
  if (remaining > 0) await sleep(remaining, { summary: timerSummary.retention(input.creationId) });
  await local.deleteAbandonedCreation({ creationId: input.creationId });
}

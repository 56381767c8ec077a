import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { PurgeRequestLogInput, PurgeRequestLogResult } from '../activities/request-log';

const { purgeRequestLog } = proxyActivities<Activities>({
  startToCloseTimeout: '5 minutes',
  retry: { initialInterval: '10 seconds', maximumAttempts: 5 },
});

/** Run by the `request-log-purge` Schedule; the delete is idempotent, so retries are safe. */
export async function purgeRequestLogWorkflow(input: PurgeRequestLogInput): Promise<PurgeRequestLogResult> {
  return purgeRequestLog(input);
}

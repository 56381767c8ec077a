import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { ImportPacketaFeedResult } from '../activities/pickup-feed';

// A run of the whole network downloads and reads over 100 MB: minutes on a slow link. The heartbeat notices a lost
// worker within a minute; what passes with time is retried twice, then the next scheduled run tries again.
const { importPacketaFeed } = proxyActivities<Activities>({
  startToCloseTimeout: '30 minutes',
  heartbeatTimeout: '1 minute',
  retry: { initialInterval: '1 minute', backoffCoefficient: 2, maximumAttempts: 3 },
});

/** Run by the `packeta-pickup-feed` Schedule: imports Packeta's pickup-point feed (decision 1220). */
export async function importPacketaFeedWorkflow(): Promise<ImportPacketaFeedResult> {
  return importPacketaFeed();
}

// Records histories of the current workflows for the replay test. Run after a deliberate, compatible workflow
// change: `node --import tsx test/replay/record-histories.ts` with DATABASE_URL / TEMPORAL_ADDRESS of a running
// `npm run dev` (or any server with the worker running on TEMPORAL_TASK_QUEUE).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { loadConfig } from '../../src/config';
import { connectTemporal } from '../../src/temporal/connection';

async function main(): Promise<void> {
  const config = loadConfig();
  const client = await connectTemporal(config.temporal);
  const runs: Array<[string, string, unknown[]]> = [
    ['purge-request-log', 'purgeRequestLogWorkflow', [{ retentionMs: 90 * 86_400_000 }]],
    ['deliver-notifications', 'deliverNotificationsWorkflow', []],
  ];
  for (const [name, type, args] of runs) {
    const handle = await client.workflow.start(type, {
      taskQueue: config.temporal.taskQueue,
      workflowId: `record-${name}-${Date.now()}`,
      args,
    });
    await handle.result();
    const history = await handle.fetchHistory();
    writeFileSync(join(__dirname, 'histories', `${name}.json`), historyToJSON(history));
    process.stdout.write(`recorded ${name}\n`);
  }
  await client.connection.close();
}

void main();

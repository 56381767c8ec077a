import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { Worker } from '@temporalio/worker';
import { workflowInterceptorModules } from '../../src/temporal/workflow-source';

// Replays histories recorded from earlier versions of the workflows (test/replay/record-histories.ts): a change
// that would break running workflows fails here with a non-determinism error. The workers run the request ID's log
// interceptor module (src/temporal/workflow-source.ts), so the replay does too.
const dir = join(__dirname, '..', 'replay', 'histories');

describe('workflow replay', () => {
  it.each(readdirSync(dir).filter((f) => f.endsWith('.json')))('%s replays deterministically', async (file) => {
    const history = historyFromJSON(JSON.parse(readFileSync(join(dir, file), 'utf8')));
    await expect(
      Worker.runReplayHistory(
        {
          workflowsPath: require.resolve('../../workflows'),
          interceptors: { workflowModules: workflowInterceptorModules(false) },
        },
        history,
        `replay-${file}`,
      ),
    ).resolves.toBeUndefined();
  });
});

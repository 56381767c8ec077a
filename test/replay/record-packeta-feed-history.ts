// Records a history of the Packeta feed import (decision 1220), for the replay test (test/unit/replay.test.ts). Run
// after a deliberate, compatible change of the workflow:
//   TEMPORAL_CLI_PATH=~/.cache/shipping-label-api/temporal-1.5.1/temporal node --import tsx test/replay/record-packeta-feed-history.ts
// It serves a fake feed of its own, starts what the integration tests start with the worker importing from it, runs
// the workflow and writes its history into test/replay/histories/.
import { FakeFeed, startFakeFeedServer } from '../../src/carriers/packeta/feed/fake-feed';
import { generatedFeedTexts } from '../../src/carriers/packeta/feed/generated-feed';
import { recordHistories, recordWorkflow } from './recording';

const KEY = 'recordfeedkey000';

void (async () => {
  const feed = new FakeFeed(new Set([KEY]));
  const texts = generatedFeedTexts(200);
  for (const file of ['branch', 'box'] as const) feed.publish(file, texts[file], new Date());
  const server = await startFakeFeedServer(feed);
  // The worker of the setup reads its environment from this process.
  Object.assign(process.env, { PACKETA_FEED_API_KEY: KEY, PACKETA_FEED_URL: server.baseUrl });
  recordHistories(async (app) => {
    const workflowId = `record-packeta-feed-${Date.now()}`;
    await app.temporal.workflow.start('importPacketaFeedWorkflow', {
      taskQueue: app.config.temporal.taskQueue,
      workflowId,
      args: [],
    });
    await recordWorkflow(app, 'import-packeta-feed', workflowId);
    await server.close();
  });
})();

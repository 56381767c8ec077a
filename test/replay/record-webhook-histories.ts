// Records a history of the webhook delivery workflow (two failed attempts, then delivered), for the replay test
// (test/unit/replay.test.ts). Run after a deliberate, compatible change of the workflow:
//   TEMPORAL_CLI_PATH=~/.cache/shipping-label-api/temporal-1.5.1/temporal node --import tsx test/replay/record-webhook-histories.ts
// It starts what the integration tests start, registers a sandbox receiver that fails twice, creates a label over
// HTTP and writes the delivery's history into test/replay/histories/.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { recordHistories } from './recording';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { aCarrierAAccount, anOrderOnPlatform, aRule } from '../helpers/creation';
import { labelctlJson } from '../helpers/labelctl';
import { aStoreWithKey } from '../helpers/stores';
import { failNext, receiverUrl, untilReceived } from '../helpers/webhooks';

recordHistories(async (app) => {
  const shop = await aStoreWithKey(app.orm);
  const account = await aCarrierAAccount(app.orm, shop.storeId);
  await aRule(app.orm, shop.storeId, { priority: 1, carrierAccountId: account.id, serviceCode: 'a_home' });
  const endpoint = await labelctlJson('webhooks', 'add', shop.storeId, receiverUrl('record-retried'));
  await failNext('record-retried', { fail_next: 2, status: 503 });
  const order = await anOrderOnPlatform(shop.domain);
  await app.request('POST', '/v1/labels', {
    headers: { ...shop.auth, 'Idempotency-Key': 'record-webhook-1', Prefer: 'wait=30' },
    body: { order_id: order.orderId },
  });
  const [delivery] = await untilReceived('record-retried', 3);
  const eventId = delivery!.headers['shipping-label-event-id'];
  const handle = app.temporal.workflow.getHandle(`webhook-delivery/${eventId}/${endpoint.id}`);
  await handle.result();
  writeFileSync(
    join(__dirname, 'histories', 'webhook-delivery-retried.json'),
    historyToJSON(await handle.fetchHistory()),
  );
  process.stdout.write('recorded webhook-delivery-retried\n');
});

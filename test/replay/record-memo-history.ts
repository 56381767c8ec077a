// Records one label-creation history started by the API as it starts creations since the request-ID memo
// (workflows/request-id-interceptor.ts), for the replay test. Other histories are left as they were recorded:
//   TEMPORAL_CLI_PATH=~/.cache/shipping-label-api/temporal-1.5.1/temporal node --import tsx test/replay/record-memo-history.ts
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { recordHistories } from './recording';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { aCarrierAAccount, anOrderOnPlatform, aRule } from '../helpers/creation';
import { aStoreWithKey } from '../helpers/stores';

recordHistories(async (app) => {
  const shop = await aStoreWithKey(app.orm);
  const account = await aCarrierAAccount(app.orm, shop.storeId);
  await aRule(app.orm, shop.storeId, { priority: 1, carrierAccountId: account.id, serviceCode: 'a_home' });
  const order = await anOrderOnPlatform(shop.domain);
  const res = await app.request('POST', '/v1/labels', {
    headers: { ...shop.auth, 'Idempotency-Key': 'record-memo-1', Prefer: 'wait=30' },
    body: { order_id: order.orderId, fulfillment: 'fulfill' },
  });
  if (res.status !== 201) throw new Error(`creation answered ${res.status}`);
  const handle = app.temporal.workflow.getHandle(`label-creation/${shop.storeId}/record-memo-1`);
  await handle.result();
  const history = await handle.fetchHistory();
  const memo = history.events?.[0]?.workflowExecutionStartedEventAttributes?.memo?.fields ?? {};
  if (!('request_id' in memo)) throw new Error('the start carries no request_id memo');
  writeFileSync(join(__dirname, 'histories', 'label-creation-request-memo.json'), historyToJSON(history));
  process.stdout.write('recorded label-creation-request-memo\n');
});

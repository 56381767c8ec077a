// Records label-creation histories of runs started since decision 1010 (the prepare step inside the carrier call's
// activity, behind the `prepare-in-carrier-call` patch), for the replay test. Other histories are left as recorded:
//   TEMPORAL_CLI_PATH=~/.cache/shipping-label-api/temporal-1.5.1/temporal node --import tsx test/replay/record-prepare-in-call-histories.ts
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { recordHistories } from './recording';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { aCarrierAAccount, anOrderOnPlatform, aRule } from '../helpers/creation';
import { aStoreWithKey } from '../helpers/stores';
import type { TestApp } from '../helpers/test-app';

/** Creates with `body` under `key`, waits for the run to close, and writes its history as `name`. */
async function record(
  app: TestApp,
  shop: Awaited<ReturnType<typeof aStoreWithKey>>,
  name: string,
  key: string,
  body: Record<string, unknown>,
): Promise<void> {
  const res = await app.request('POST', '/v1/labels', {
    headers: { ...shop.auth, 'Idempotency-Key': key, Prefer: 'wait=30' },
    body,
  });
  if (res.status >= 500) throw new Error(`creation answered ${res.status}`);
  const handle = app.temporal.workflow.getHandle(`label-creation/${shop.storeId}/${key}`);
  await handle.result().catch(() => undefined);
  const history = await handle.fetchHistory();
  const patched = history.events?.some((e) => e.markerRecordedEventAttributes?.markerName === 'core_patch');
  if (!patched) throw new Error(`${name}: the run did not take the prepare-in-carrier-call patch`);
  writeFileSync(join(__dirname, 'histories', `${name}.json`), historyToJSON(history));
  process.stdout.write(`recorded ${name} (${res.status})\n`);
}

recordHistories(async (app) => {
  const shop = await aStoreWithKey(app.orm);
  const account = await aCarrierAAccount(app.orm, shop.storeId);
  await aRule(app.orm, shop.storeId, { priority: 1, carrierAccountId: account.id, serviceCode: 'a_home' });
  const fulfilled = await anOrderOnPlatform(shop.domain);
  await record(app, shop, 'label-creation-prepared-in-call-fulfilled', 'prepared-in-call-1', {
    order_id: fulfilled.orderId,
    fulfillment: 'fulfill',
  });
  const plain = await anOrderOnPlatform(shop.domain);
  await record(app, shop, 'label-creation-prepared-in-call-finished', 'prepared-in-call-2', {
    order_id: plain.orderId,
  });
  // Returned by the first step as the prepare outcome (a refusal): decided on by the workflow.
  await record(app, shop, 'label-creation-prepared-in-call-refused', 'prepared-in-call-3', { order_id: '999999999' });
});

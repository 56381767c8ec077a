import { setTimeout as sleep } from 'node:timers/promises';
import { aCarrierAAccount, anOrderOnPlatform, aRule } from '../helpers/creation';
import { startAppWithOwnWorker, type AppWithOwnWorker } from '../helpers/own-worker';
import { aStoreWithKey } from '../helpers/stores';

/**
 * The order's name in an answer given before the creation has read the order itself (decision 0033): a worker of
 * this file's own starts each creation's first step 3 s late, as a busy worker would, so only the API's own read of the
 * order can name it in an answer due sooner.
 */
const FIRST_STEP_LATE_MS = 3_000;

let own: AppWithOwnWorker;
beforeAll(async () => {
  own = await startAppWithOwnWorker({
    taskQueue: `order-name-${process.pid}`,
    activities: (activities) => ({
      async prepareAndSendToCarrier(input: Parameters<typeof activities.prepareAndSendToCarrier>[0]) {
        await sleep(FIRST_STEP_LATE_MS);
        return activities.prepareAndSendToCarrier(input);
      },
    }),
  });
});
afterAll(async () => own?.stop());

it.each(['wait=0', 'wait=1'])(
  'an order named by ID is named in the 202 with Prefer: %s and in the poll, before the creation has read it',
  async (prefer) => {
    const { app } = own;
    const shop = await aStoreWithKey(app.orm);
    const account = await aCarrierAAccount(app.orm, shop.storeId);
    await aRule(app.orm, shop.storeId, { priority: 1, carrierAccountId: account.id, serviceCode: 'a_home' });
    const order = await anOrderOnPlatform(shop.domain);
    const named = { id: order.orderGid, legacy_id: order.orderId, name: order.name };
    const res = await app.request('POST', '/v1/labels', {
      headers: { ...shop.auth, 'Idempotency-Key': `late-${order.orderId}`, Prefer: prefer },
      body: { order_id: order.orderId },
    });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ status: 'processing', phase: 'queued', order: named });
    // Kept on the record: a poll names it too, while the creation still has not read the order.
    const poll = await app.request('GET', `/v1/label-creations/${res.body.id}`, { headers: shop.auth });
    expect(poll.body).toMatchObject({ phase: 'queued', order: named });
    const done = await app.request('GET', `/v1/label-creations/${res.body.id}`, {
      headers: { ...shop.auth, Prefer: 'wait=20' },
    });
    expect(done.body).toMatchObject({ status: 'succeeded', order: named });
  },
);

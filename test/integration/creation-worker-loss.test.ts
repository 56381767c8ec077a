import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { aCarrierAAccount, anOrderOnPlatform, aRule } from '../helpers/creation';
import { spawnTs, stop } from '../helpers/processes';
import { eventually, ledger, scriptFaults } from '../helpers/sandbox';
import { aStoreWithKey } from '../helpers/stores';
import { startTestApp, type TestApp } from '../helpers/test-app';

/**
 * Exactly-once under a lost worker: a worker of its own (its own task queue, so the run's shared worker never picks the
 * creation up) is killed while the carrier is working on the create, and a new worker finishes the creation.
 */
const queue = `worker-loss-${process.pid}`;
const workerEnv = {
  ...process.env,
  TEMPORAL_TASK_QUEUE: queue,
  // The carrier answers after 4 s here: well within the call's timeout, so only the kill makes the outcome unclear.
  CARRIER_TIMEOUT: '10s',
  WORKER_MANAGES_SCHEDULES: 'false',
  LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'warn',
};
const startWorker = () => spawnTs(join(__dirname, '..', '..', 'src', 'worker.ts'), workerEnv, 'loss-worker');

let app: TestApp;
let worker: ChildProcess | undefined;
beforeAll(async () => {
  app = await startTestApp({ env: { TEMPORAL_TASK_QUEUE: queue, CARRIER_TIMEOUT: '10s' } });
});
afterAll(async () => {
  await stop(worker);
  await app.close();
});

describe('a worker killed in the middle of a creation', () => {
  it('is replaced by a new one that completes the creation with exactly one shipment', async () => {
    worker = await startWorker();
    const shop = await aStoreWithKey(app.orm);
    const account = await aCarrierAAccount(app.orm, shop.storeId);
    await aRule(app.orm, shop.storeId, { priority: 1, carrierAccountId: account.id, serviceCode: 'a_home' });
    const order = await anOrderOnPlatform(shop.domain);
    await scriptFaults(account.id, [{ type: 'slow', delay_ms: 4000 }]);
    const started = await app.request('POST', '/v1/labels', {
      headers: { ...shop.auth, 'Idempotency-Key': `loss-${order.orderId}`, Prefer: 'wait=0' },
      body: { order_id: order.orderId },
    });
    expect(started.status).toBe(202);
    // The carrier call is under way: the record says it was sent.
    await eventually(async () => {
      const [row] = await app.orm.em
        .fork()
        .execute<Array<{ sent_at: string | null }>>('select sent_at from label_creations where id = ?', [
          started.body.id,
        ]);
      return row?.sent_at ? true : null;
    }, 200);
    worker.kill('SIGKILL');
    await new Promise((resolve) => worker!.once('exit', resolve));
    worker = await startWorker();
    const done = await app.request('GET', `/v1/label-creations/${started.body.id}`, {
      headers: { ...shop.auth, Prefer: 'wait=60' },
    });
    expect(done.body).toMatchObject({ status: 'succeeded', created: true, labels: [{ status: 'ready' }] });
    // The retry on the new worker looked the shipment up by the creation's reference instead of creating it again.
    expect(await ledger(account.id)).toEqual([expect.objectContaining({ reference: started.body.id })]);
  }, 120_000);
});

import { DefaultLogger, Runtime, type LogEntry } from '@temporalio/worker';
import { workflowInterceptorModules } from '../../src/temporal/workflow-source';
import { aCarrierAAccount, anOrderOnPlatform, aRule } from '../helpers/creation';
import { aStoreWithKey } from '../helpers/stores';
import { startAppWithOwnWorker, type AppWithOwnWorker } from '../helpers/own-worker';
import type { TestApp } from '../helpers/test-app';

/**
 * Tracing off (the default): a creation's workflow still names the request that started it on every log line, from
 * the SDK's "Workflow started" on (the start's memo, workflows/request-id-interceptor.ts), and a repeat of the request
 * joins the run without renaming it. A worker of this file's own (its own task queue, the bundle's interceptor modules
 * as src/worker.ts gives them) runs in this process so that its log lines can be read.
 */
const queue = `workflow-logs-${process.pid}`;
const sdkLogs: LogEntry[] = [];

let app: TestApp;
let own: AppWithOwnWorker;
beforeAll(async () => {
  Runtime.install({ logger: new DefaultLogger('DEBUG', (entry) => sdkLogs.push(entry)) });
  own = await startAppWithOwnWorker({
    taskQueue: queue,
    worker: { interceptors: { workflowModules: workflowInterceptorModules(false) } },
  });
  app = own.app;
}, 120_000);
afterAll(() => own?.stop());

it("names the starting request on every log line of a creation's workflow, tracing off", async () => {
  const shop = await aStoreWithKey(app.orm);
  const account = await aCarrierAAccount(app.orm, shop.storeId);
  await aRule(app.orm, shop.storeId, { priority: 1, carrierAccountId: account.id, serviceCode: 'a_home' });
  const order = await anOrderOnPlatform(shop.domain);
  const send = () =>
    app.request('POST', '/v1/labels', {
      headers: { ...shop.auth, 'Idempotency-Key': `logged-${order.orderId}`, Prefer: 'wait=30' },
      body: { order_id: order.orderId },
    });
  const first = await send();
  expect(first.status).toBe(201);
  const repeat = await send();
  expect(repeat.status).toBe(201);
  const requestId = first.headers.get('x-request-id');
  expect(repeat.headers.get('x-request-id')).not.toBe(requestId);

  const workflowId = `label-creation/${shop.storeId}/logged-${order.orderId}`;
  const lines = sdkLogs.filter((entry) => entry.meta?.workflowId === workflowId && !entry.meta.activityId);
  expect(lines.map((entry) => entry.message)).toEqual(
    expect.arrayContaining(['Workflow started', 'Workflow completed']),
  );
  expect(lines.filter((entry) => entry.meta?.request_id !== requestId)).toEqual([]);
  // The start's memo is visible to operators too (the Web UI and `temporal workflow describe` show it).
  const description = await app.temporal.workflow.getHandle(workflowId).describe();
  expect(description.memo).toEqual({ request_id: requestId });
});

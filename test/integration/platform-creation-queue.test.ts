import { aCarrierAAccount, anOrderOnPlatform, aRule } from '../helpers/creation';
import { expectError } from '../helpers/errors';
import { aDatabaseOfItsOwn } from '../helpers/own-database';
import { startAppWithOwnWorker, type AppWithOwnWorker } from '../helpers/own-worker';
import { sampleValue } from '../helpers/prometheus';
import { control } from '../helpers/sandbox';
import { aStoreWithKey } from '../helpers/stores';
import { startTestApp, type TestApp } from '../helpers/test-app';

// Spec "Errors": 503 `temporarily_unavailable` when the platform-wide creation queue is full (`Retry-After: 30`);
// docs/decisions/0407-platform-creation-queue.md. The queue counts creations of every store, so this file runs on a
// database of its own: two API processes and a worker of its own, with a cap of 2.

let db: Awaited<ReturnType<typeof aDatabaseOfItsOwn>>;
let first: AppWithOwnWorker;
let second: TestApp;

beforeAll(async () => {
  db = await aDatabaseOfItsOwn();
  const env = { DATABASE_URL: db.url, CREATION_QUEUE_PLATFORM_MAX: '2' };
  const taskQueue = `platform-queue-${process.pid}`;
  first = await startAppWithOwnWorker({ taskQueue, env });
  second = await startTestApp({ env: { ...env, TEMPORAL_TASK_QUEUE: taskQueue } });
});
afterAll(async () => {
  await second?.close();
  await first?.stop();
  await db?.drop();
});

/** A store of the own database creating at carrier A. */
async function aShop(app: TestApp) {
  const shop = await aStoreWithKey(app.orm);
  const account = await aCarrierAAccount(app.orm, shop.storeId);
  await aRule(app.orm, shop.storeId, { priority: 1, carrierAccountId: account.id, serviceCode: 'a_home' });
  return shop;
}

// An export holding the order's fulfillment order keeps its creation in flight (`waiting_for_lock`) until released,
// however slowly the machine runs.
const exportHold = (domain: string, fo: string, action: 'hold' | 'release') =>
  control('POST', `/_control/stores/${domain}/fulfillment-orders/${fo}/${action}`, { reason: 'automation export' });

type Shop = Awaited<ReturnType<typeof aShop>>;

const create = (app: TestApp, shop: Shop, key: string, orderId: string, wait = 'wait=0') =>
  app.request('POST', '/v1/labels', {
    headers: { ...shop.auth, 'Idempotency-Key': key, Prefer: wait },
    body: { order_id: orderId },
  });

it('holds at most CREATION_QUEUE_PLATFORM_MAX creations in flight across stores and API processes; then 503 with Retry-After: 30', async () => {
  const a = await aShop(first.app);
  const b = await aShop(second);
  const [a1, a2, b1, b2] = await Promise.all([
    anOrderOnPlatform(a.domain),
    anOrderOnPlatform(a.domain),
    anOrderOnPlatform(b.domain),
    anOrderOnPlatform(b.domain),
  ]);

  // One creation of each store, through each process, held by an export: the queue is full.
  const held = [
    [a.domain, a1],
    [b.domain, b1],
  ] as const;
  for (const [domain, order] of held) await exportHold(domain, order.fulfillmentOrderIds[0]!, 'hold');
  const inFlight = [
    await create(first.app, a, `queue-${a1.orderId}`, a1.orderId),
    await create(second, b, `queue-${b1.orderId}`, b1.orderId),
  ];
  expect(inFlight.map((res) => res.status)).toEqual([202, 202]);

  // Every store is refused now, whichever process answers; each store's own queue still has room.
  for (const [app, shop, order] of [
    [first.app, b, b2],
    [second, a, a2],
  ] as const) {
    const refused = await create(app, shop, `queue-${order.orderId}`, order.orderId);
    expectError(refused, 503, 'temporarily_unavailable', { retry: 'later', next_action: 'retry_later' });
    expect(refused.headers.get('retry-after')).toBe('30');
    // Nothing was created and no key was bound.
    const bound = await app.request('GET', `/v1/label-creations?idempotency_key=queue-${order.orderId}`, {
      headers: shop.auth,
    });
    expect(bound.body.data).toEqual([]);
  }

  const metrics = (await second.request('GET', '/metrics')).text;
  expect(sampleValue(metrics, 'shipping_label_creation_queue')).toBe(2);
  expect(sampleValue(metrics, 'shipping_label_creation_queue_limit')).toBe(2);

  // Leaving processing gives the places back: the refused requests, sent again, are admitted.
  for (const [domain, order] of held) await exportHold(domain, order.fulfillmentOrderIds[0]!, 'release');
  for (const [res, app, shop] of [
    [inFlight[0]!, first.app, a],
    [inFlight[1]!, second, b],
  ] as const) {
    const done = await app.request('GET', `/v1/label-creations/${res.body.id}`, {
      headers: { ...shop.auth, Prefer: 'wait=20' },
    });
    expect(done.body.status).toBe('succeeded');
  }
  const again = await create(second, a, `queue-${a2.orderId}`, a2.orderId, 'wait=20');
  expect(again.status).toBe(201);
  expect(sampleValue((await first.app.request('GET', '/metrics')).text, 'shipping_label_creation_queue')).toBe(0);
});

import { inTransaction } from '../../src/db/transaction';
import { acquireLocks } from '../../src/locks/fulfillment-order-locks';
import { updateLabelState } from '../../src/db/labels-repository';
import { aCarrierAAccount, aCreationRecord, anOrderOnPlatform, aRule } from '../helpers/creation';
import { expectError } from '../helpers/errors';
import { aLabel } from '../helpers/labels';
import { control, eventually, ledger, scriptFaults } from '../helpers/sandbox';
import { aStoreWithKey } from '../helpers/stores';
import { startTestApp, type TestApp } from '../helpers/test-app';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => app.close());

type Shop = Awaited<ReturnType<typeof aStoreWithKey>>;

async function aShopWithCarrierA() {
  const shop = await aStoreWithKey(app.orm);
  const account = await aCarrierAAccount(app.orm, shop.storeId);
  await aRule(app.orm, shop.storeId, { priority: 1, carrierAccountId: account.id, serviceCode: 'a_home' });
  return { shop, account };
}

const create = (
  on: TestApp,
  shop: Shop,
  key: string,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
) =>
  on.request('POST', '/v1/labels', {
    headers: { ...shop.auth, 'Idempotency-Key': key, Prefer: 'wait=30', ...headers },
    body,
  });

const hold = (domain: string, fo: string) =>
  control('POST', `/_control/stores/${domain}/fulfillment-orders/${fo}/hold`, { reason: 'automation export' });
const release = (domain: string, fo: string) =>
  control('POST', `/_control/stores/${domain}/fulfillment-orders/${fo}/release`);

async function creationRow(id: string) {
  const [row] = await app.orm.em
    .fork()
    .execute<Array<{ status: string; phase: string | null }>>(
      'select status, phase from label_creations where id = ?',
      [id],
    );
  return row!;
}

describe('a fulfillment order held by an export', () => {
  it('reject answers 409 creation_in_progress (held_by export, Retry-After 5); return waits and then creates', async () => {
    const { shop, account } = await aShopWithCarrierA();
    const order = await anOrderOnPlatform(shop.domain);
    const fo = order.fulfillmentOrderIds[0]!;
    await hold(shop.domain, fo);
    const refused = await create(app, shop, `reject-${order.orderId}`, {
      order_id: order.orderId,
      on_existing: 'reject',
    });
    // Refused on arrival (decision 0120): no creation holds it, and none was stored for this request.
    expectError(refused, 409, 'creation_in_progress', {
      held_by: 'export',
      label_creation_id: null,
      retry: 'later',
      next_action: 'retry_later',
    });
    expect(refused.headers.get('retry-after')).toBe('5');

    const waiting = await create(
      app,
      shop,
      `return-${order.orderId}`,
      { order_id: order.orderId },
      { Prefer: 'wait=1' },
    );
    expect(waiting.status).toBe(202);
    expect(waiting.body).toMatchObject({
      status: 'processing',
      phase: 'waiting_for_lock',
      waiting_for: {
        reason: 'fulfillment_order_held',
        held_by: 'export',
        fulfillment_order_ids: order.fulfillmentOrderGids,
      },
    });
    expect(await ledger(account.id)).toEqual([]);
    await release(shop.domain, fo);
    const done = await app.request('GET', `/v1/label-creations/${waiting.body.id}`, {
      headers: { ...shop.auth, Prefer: 'wait=30' },
    });
    expect(done.body).toMatchObject({ status: 'succeeded', created: true });
    expect(await ledger(account.id)).toHaveLength(1);
  });

  it('fails not_started when the carrier is not reached within the deadline, and releases the key', async () => {
    const quick = await startTestApp({ env: { CREATION_NOT_STARTED_AFTER: '3s' } });
    try {
      const { shop, account } = await aShopWithCarrierA();
      const order = await anOrderOnPlatform(shop.domain);
      await hold(shop.domain, order.fulfillmentOrderIds[0]!);
      const key = `deadline-${order.orderId}`;
      const res = await create(quick, shop, key, { order_id: order.orderId });
      expectError(res, 503, 'not_started', {
        label_creation_id: expect.stringMatching(/^lcr_/),
        retry: 'later',
        next_action: 'retry_later',
      });
      expect(await creationRow(res.body.error.details.label_creation_id)).toEqual({ status: 'failed', phase: null });
      await release(shop.domain, order.fulfillmentOrderIds[0]!);
      const again = await create(quick, shop, key, { order_id: order.orderId });
      expect(again.status).toBe(201);
      expect(await ledger(account.id)).toHaveLength(1);
    } finally {
      await quick.close();
    }
  });
});

describe('a fulfillment order held by another creation', () => {
  it('return waits for the holder (woken by it) and returns its label; reject answers creation_in_progress', async () => {
    const { shop, account } = await aShopWithCarrierA();
    const order = await anOrderOnPlatform(shop.domain);
    // Slow, but within the carrier timeout (2 s in tests): the first creation holds the lock meanwhile.
    await scriptFaults(account.id, [{ type: 'slow', delay_ms: 1500 }]);
    const first = await create(app, shop, `first-${order.orderId}`, { order_id: order.orderId }, { Prefer: 'wait=0' });
    expect(first.status).toBe(202);
    await eventually(
      async () => ((await creationRow(first.body.id)).phase === 'sending_to_carrier' ? true : null),
      100,
    );

    const refused = await create(app, shop, `second-${order.orderId}`, {
      order_id: order.orderId,
      on_existing: 'reject',
    });
    expectError(refused, 409, 'creation_in_progress', {
      held_by: 'creation',
      label_creation_id: first.body.id,
      retry: 'later',
      next_action: 'retry_later',
    });
    const waiter = await create(app, shop, `third-${order.orderId}`, { order_id: order.orderId });
    expect([waiter.status, waiter.body.error ?? null]).toEqual([200, null]);
    expect(waiter.body).toMatchObject({ status: 'succeeded', created: false });
    const made = await app.request('GET', `/v1/label-creations/${first.body.id}`, { headers: shop.auth });
    expect(made.body).toMatchObject({ status: 'succeeded', created: true });
    expect(waiter.body.labels.map((l: { id: string }) => l.id)).toEqual(
      made.body.labels.map((l: { id: string }) => l.id),
    );
    expect(await ledger(account.id)).toHaveLength(1);
  });

  it('never counts a dead holder: a lock whose creation stopped moving is taken over', async () => {
    const { shop, account } = await aShopWithCarrierA();
    const order = await anOrderOnPlatform(shop.domain);
    const dead = await aCreationRecord(app.orm, {
      storeId: shop.storeId,
      orderGid: order.orderGid,
      fulfillmentOrderGids: order.fulfillmentOrderGids,
      status: 'processing',
    });
    const em = app.orm.em.fork();
    await em.execute(
      `update label_creations set updated_at = now() - interval '20 minutes', key_bound = false where id = ?`,
      [dead],
    );
    await em.execute(
      'insert into fulfillment_order_locks (store_id, fulfillment_order_gid, label_creation_id, workflow_id) values (?, ?, ?, ?)',
      [shop.storeId, order.fulfillmentOrderGids[0], dead, 'label-creation/gone'],
    );
    const res = await create(app, shop, `takeover-${order.orderId}`, {
      order_id: order.orderId,
      on_existing: 'reject',
    });
    expect(res.status).toBe(201);
    expect(await ledger(account.id)).toHaveLength(1);
  });
});

describe('a covering label pending under 10 minutes', () => {
  it('is adopted: the creation finishes with it once it is ready (created false)', async () => {
    const { shop, account } = await aShopWithCarrierA();
    const order = await anOrderOnPlatform(shop.domain);
    const pending = await aLabel(app.orm, shop.storeId, {
      orderId: order.orderId,
      orderName: order.name,
      fulfillmentOrderIds: order.fulfillmentOrderGids,
      carrierCode: 'carrier_a',
      status: 'pending',
      source: 'flow',
      createdAt: new Date(Date.now() - 60_000),
    });
    const res = await create(app, shop, `adopt-${order.orderId}`, { order_id: order.orderId }, { Prefer: 'wait=1' });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({
      phase: 'waiting_for_lock',
      waiting_for: { reason: 'label_pending', label_id: pending.id },
    });
    await updateLabelState(app.orm.em.fork(), {
      storeId: shop.storeId,
      labelId: pending.id,
      patch: { status: 'ready', trackingNumber: 'Z0000000001' },
      now: new Date(),
    });
    const done = await app.request('GET', `/v1/label-creations/${res.body.id}`, {
      headers: { ...shop.auth, Prefer: 'wait=30' },
    });
    expect(done.body).toMatchObject({
      status: 'succeeded',
      created: false,
      labels: [{ id: pending.id, status: 'ready' }],
    });
    expect(await ledger(account.id)).toEqual([]);
  });
});

describe('fulfillment-order locks', () => {
  it('are taken all-or-nothing without deadlocks when creations want overlapping sets', async () => {
    const { shop } = await aShopWithCarrierA();
    const fos = Array.from({ length: 6 }, (_, i) => `gid://shopify/FulfillmentOrder/${900000 + i}`);
    const creations = await Promise.all(
      Array.from({ length: 12 }, () =>
        aCreationRecord(app.orm, {
          storeId: shop.storeId,
          orderGid: 'gid://shopify/Order/1',
          fulfillmentOrderGids: [],
          status: 'processing',
        }),
      ),
    );
    // Each creation wants three neighbouring fulfillment orders, in shuffled order: the sets overlap pairwise.
    const results = await Promise.all(
      creations.map((id, i) =>
        inTransaction(app.orm, (tx) =>
          acquireLocks(tx, {
            storeId: shop.storeId,
            orderGid: 'gid://shopify/Order/1',
            labelCreationId: id,
            workflowId: `wf-${id}`,
            fulfillmentOrderGids: [fos[(i + 2) % 6]!, fos[i % 6]!, fos[(i + 1) % 6]!],
            staleAfterMs: 60_000,
            expectedState: '',
          }),
        ),
      ),
    );
    const winners = creations.filter((_, i) => results[i]!.acquired);
    expect(winners.length).toBeGreaterThanOrEqual(1);
    const rows = await app.orm.em
      .fork()
      .execute<Array<{ fulfillment_order_gid: string; label_creation_id: string }>>(
        'select fulfillment_order_gid, label_creation_id from fulfillment_order_locks where store_id = ?',
        [shop.storeId],
      );
    // Every held fulfillment order belongs to a winner, which holds all three of its own.
    for (const row of rows) expect(winners).toContain(row.label_creation_id);
    for (const winner of winners) expect(rows.filter((r) => r.label_creation_id === winner)).toHaveLength(3);
    expect(new Set(rows.map((r) => r.fulfillment_order_gid)).size).toBe(rows.length);
  });
});

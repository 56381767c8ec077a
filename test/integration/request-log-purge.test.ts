import { REQUEST_LOG_PURGE_SCHEDULE_ID } from '../../src/temporal/schedules';
import { aCreationRecord } from '../helpers/creation';
import { aStoreWithKey } from '../helpers/stores';
import { startTestApp, type TestApp } from '../helpers/test-app';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => app.close());

const DAY = 86_400_000;

describe('request log purge (a Temporal workflow run by the worker)', () => {
  it('deletes rows older than the retention and keeps the rest', async () => {
    const { storeId } = await aStoreWithKey(app.orm);
    const conn = app.orm.em.fork();
    const insert = (requestId: string, ageMs: number) =>
      conn.execute(
        `insert into request_log (request_id, store_id, method, endpoint, status, created_at) values (?, ?, 'GET', '/v1/shop', 200, ?)`,
        [requestId, storeId, new Date(Date.now() - ageMs)],
      );
    await insert(`req_old_${storeId}`, 91 * DAY);
    await insert(`req_edge_${storeId}`, 89 * DAY);
    await insert(`req_new_${storeId}`, 1000);
    for (const [key, ageMs] of [
      ['stale-key-1', 3 * DAY],
      ['fresh-key-1', 1000],
    ] as const) {
      await conn.execute(
        `insert into idempotency_keys (store_id, endpoint, key, request_hash, state, created_at) values (?, 'POST /labels/{label_id}/printed', ?, 'h', 'completed', ?)`,
        [storeId, key, new Date(Date.now() - ageMs)],
      );
    }

    const result = await app.temporal.workflow.execute('purgeRequestLogWorkflow', {
      taskQueue: app.config.temporal.taskQueue,
      workflowId: `test-purge-${storeId}`,
      args: [{ retentionMs: 90 * DAY }],
    });
    expect(result).toMatchObject({ deleted: expect.any(Number) });
    expect((result as { deleted: number }).deleted).toBeGreaterThanOrEqual(1);

    const keys = await conn.execute<{ key: string }[]>(
      'select key from idempotency_keys where store_id = ? order by key',
      [storeId],
    );
    expect(keys.map((k) => k.key)).toEqual(['fresh-key-1']);
    const rows = await conn.execute<{ request_id: string }[]>(
      'select request_id from request_log where store_id = ? order by request_id',
      [storeId],
    );
    expect(rows.map((r) => r.request_id).sort()).toEqual([`req_edge_${storeId}`, `req_new_${storeId}`].sort());
  });

  it('deletes webhook events past their retention with their deliveries and attempts, unless a delivery is pending', async () => {
    const { storeId } = await aStoreWithKey(app.orm);
    const conn = app.orm.em.fork();
    const endpoint = `we_${storeId}`;
    await conn.execute(
      `insert into webhook_endpoints (id, store_id, url, topics) values (?, ?, 'https://hooks.example.test/x', '{label_creation.updated}')`,
      [endpoint, storeId],
    );
    /** An event of `ageMs` with one delivery in `status` and one attempt. */
    const anEvent = async (name: string, ageMs: number, status: 'delivered' | 'failed' | 'pending') => {
      const at = new Date(Date.now() - ageMs);
      const event = `evt_${name}_${storeId}`;
      const delivery = `whd_${name}_${storeId}`;
      await conn.execute(
        `insert into webhook_events (id, store_id, topic, resource_id, transition_key, payload, created_at)
         values (?, ?, 'label_creation.updated', ?, 'succeeded', '{}', ?)`,
        [event, storeId, `lcr_${name}`, at],
      );
      await conn.execute(
        `insert into webhook_deliveries (id, store_id, event_id, endpoint_id, workflow_id, kind, status, created_at)
         values (?, ?, ?, ?, ?, 'automatic', ?, ?)`,
        [delivery, storeId, event, endpoint, `webhook-delivery/${event}/${endpoint}`, status, at],
      );
      await conn.execute(
        `insert into webhook_delivery_attempts (delivery_id, attempt, started_at, status_code, duration_ms)
         values (?, 1, ?, 200, 5)`,
        [delivery, at],
      );
      return { event, delivery };
    };
    const old = await anEvent('old', 31 * DAY, 'delivered');
    const oldFailed = await anEvent('oldfailed', 40 * DAY, 'failed');
    const redelivering = await anEvent('redelivering', 45 * DAY, 'pending');
    const recent = await anEvent('recent', 29 * DAY, 'delivered');

    const result = await app.temporal.workflow.execute('purgeRequestLogWorkflow', {
      taskQueue: app.config.temporal.taskQueue,
      workflowId: `test-purge-webhooks-${storeId}`,
      args: [{ retentionMs: 90 * DAY, webhookRetentionMs: 30 * DAY }],
    });
    expect((result as { webhookEvents: number }).webhookEvents).toBeGreaterThanOrEqual(2);

    const events = await conn.execute<{ id: string }[]>(
      'select id from webhook_events where store_id = ? order by id',
      [storeId],
    );
    expect(events.map((e) => e.id).sort()).toEqual([recent.event, redelivering.event].sort());
    const deliveries = await conn.execute<{ id: string }[]>('select id from webhook_deliveries where store_id = ?', [
      storeId,
    ]);
    expect(deliveries.map((d) => d.id).sort()).toEqual([recent.delivery, redelivering.delivery].sort());
    const attempts = await conn.execute<{ delivery_id: string }[]>(
      'select delivery_id from webhook_delivery_attempts where delivery_id in (?, ?, ?, ?)',
      [old.delivery, oldFailed.delivery, redelivering.delivery, recent.delivery],
    );
    expect(attempts.map((a) => a.delivery_id).sort()).toEqual([recent.delivery, redelivering.delivery].sort());
    // The endpoint stays: removing events never removes where they were sent.
    expect(await conn.execute('select id from webhook_endpoints where id = ?', [endpoint])).toHaveLength(1);
  });

  it('is scheduled by the worker with the configured retention', async () => {
    const description = await app.temporal.schedule.getHandle(REQUEST_LOG_PURGE_SCHEDULE_ID).describe();
    expect(description.action.type).toBe('startWorkflow');
    if (description.action.type !== 'startWorkflow') throw new Error('unexpected action');
    expect(description.action.workflowType).toBe('purgeRequestLogWorkflow');
    expect(description.action.args).toEqual([
      {
        retentionMs: 90 * DAY,
        staleCreationAfterMs: app.config.creation.notStartedMs + 60_000,
        webhookRetentionMs: 30 * DAY,
        shopifyRedactRetryMs: app.config.privacy.redactRetryMs,
      },
    ]);
    expect(description.action.taskQueue).toBe(app.config.temporal.taskQueue);
  });

  it('fails creations nothing carries on any more (never sent, past their deadline): key and locks released', async () => {
    const { storeId } = await aStoreWithKey(app.orm);
    const em = app.orm.em.fork();
    const orphan = await aCreationRecord(app.orm, {
      storeId,
      orderGid: 'gid://shopify/Order/1',
      fulfillmentOrderGids: ['gid://shopify/FulfillmentOrder/1'],
      status: 'processing',
    });
    const sent = await aCreationRecord(app.orm, {
      storeId,
      orderGid: 'gid://shopify/Order/2',
      fulfillmentOrderGids: [],
      status: 'processing',
    });
    await em.execute(
      `update label_creations set created_at = date_trunc('milliseconds', now()) - interval '10 minutes' where id in (?)`,
      [[orphan, sent]],
    );
    await em.execute(`update label_creations set sent_at = now() - interval '9 minutes' where id = ?`, [sent]);
    await em.execute(
      'insert into fulfillment_order_locks (store_id, fulfillment_order_gid, label_creation_id, workflow_id) values (?, ?, ?, ?)',
      [storeId, 'gid://shopify/FulfillmentOrder/1', orphan, 'gone'],
    );
    const result = await app.temporal.workflow.execute('purgeRequestLogWorkflow', {
      taskQueue: app.config.temporal.taskQueue,
      workflowId: `test-sweep-${storeId}`,
      args: [{ retentionMs: 90 * DAY, staleCreationAfterMs: 6 * 60_000 }],
    });
    expect((result as { abandonedClaims: number }).abandonedClaims).toBeGreaterThanOrEqual(1);
    const rows = await em.execute<
      Array<{ id: string; status: string; key_bound: boolean; error: { code: string } | null }>
    >('select id, status, key_bound, error from label_creations where store_id = ? order by id', [storeId]);
    expect(rows.find((r) => r.id === orphan)).toMatchObject({
      status: 'failed',
      key_bound: false,
      error: { code: 'not_started' },
    });
    // One that reached the carrier is left to its workflow (it may still finish).
    expect(rows.find((r) => r.id === sent)).toMatchObject({ status: 'processing', key_bound: true });
    expect(await em.execute('select 1 from fulfillment_order_locks where label_creation_id = ?', [orphan])).toEqual([]);
  });
});

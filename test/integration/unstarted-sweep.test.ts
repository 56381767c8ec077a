import { claimCreation } from '../../src/creation/records';
import { normalizeCreationRequest, requestedWire } from '../../src/domain/creation-request';
import { parseOrderId } from '../../src/domain/platform-ids';
import { inTransaction } from '../../src/db/transaction';
import { newId, randomToken } from '../../src/ids';
import { createWriteLimits } from '../../src/limits/write-limits';
import { creationWire } from '../../src/api/label-creations/creation-wire';
import { readCreationById } from '../../src/creation/records';
import { recordCreationUpdated } from '../../src/webhooks/publish';
import { creationWorkflowId } from '../../workflows/label-creation/contract';
import { WORKER_PUBLIC_BASE_URL } from '../helpers/global-setup';
import { labelctlJson } from '../helpers/labelctl';
import { eventually } from '../helpers/sandbox';
import { aStoreWithKey } from '../helpers/stores';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { receivedBy, receiverUrl, untilReceived } from '../helpers/webhooks';

// The hourly housekeeping fails a creation nothing carries on any more like every other failure before the carrier
// (docs/decisions/0407-platform-creation-queue.md): `label_creation.updated` through the outbox exactly once, and its
// daily unit and write-queue place handed back.

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ env: { PUBLIC_BASE_URL: WORKER_PUBLIC_BASE_URL } });
});
afterAll(async () => app.close());

const DAY = 86_400_000;

/** A store with a webhook endpoint at a receiver of its own. */
async function aShopWithEndpoint() {
  const shop = await aStoreWithKey(app.orm);
  const receiver = `sweep-${randomToken(10)}`;
  await labelctlJson('webhooks', 'add', shop.storeId, receiverUrl(receiver));
  return { shop, receiver };
}

/**
 * A creation as `POST /labels` leaves it when its API process stops between the claim and the workflow's start: its
 * daily unit and write-queue place taken, the record claimed, no workflow. Claimed 10 minutes ago.
 */
async function anOrphan(shop: Awaited<ReturnType<typeof aStoreWithKey>>) {
  const limits = createWriteLimits({ orm: app.orm, now: () => new Date() });
  const id = newId('labelCreation');
  await limits.creationUnits.reserve({ storeId: shop.storeId, unitId: id, createNew: false });
  const ticket = await limits.writeQueue.enter(shop.storeId);
  const orderId = String(Date.now());
  const request = normalizeCreationRequest({ order_id: orderId });
  const order = parseOrderId(orderId)!;
  const key = `orphan-${id}`;
  await claimCreation(app.orm.em.fork(), {
    id,
    storeId: shop.storeId,
    apiKeyId: shop.keyId,
    idempotencyKey: key,
    requestHash: 'orphan',
    requested: requestedWire(request),
    clientReference: null,
    workflowId: creationWorkflowId(shop.storeId, key),
    order: { gid: order.gid, legacyId: order.legacyId },
    orderName: null,
    queueTicketId: ticket.id,
    now: new Date(Date.now() - 10 * 60_000),
    keyTtlMs: app.config.creation.keyTtlMs,
  });
  return { id, ticketId: ticket.id };
}

const sweep = (name: string) =>
  app.temporal.workflow.execute('purgeRequestLogWorkflow', {
    taskQueue: app.config.temporal.taskQueue,
    workflowId: `test-${name}-${randomToken(8)}`,
    args: [{ retentionMs: 90 * DAY, staleCreationAfterMs: 6 * 60_000 }],
  });

it('fails the orphan not_started once, even swept twice at once: one event, its unit returned, its place handed back', async () => {
  const { shop, receiver } = await aShopWithEndpoint();
  const orphan = await anOrphan(shop);
  const em = app.orm.em.fork();

  // Two runs at once, as two workers' would be: one of them fails it.
  await Promise.all([sweep('sweep-a'), sweep('sweep-b')]);

  const read = await app.request('GET', `/v1/label-creations/${orphan.id}`, { headers: shop.auth });
  expect(read.body).toMatchObject({
    id: orphan.id,
    status: 'failed',
    error: { code: 'not_started', details: { label_creation_id: orphan.id } },
  });
  const [unit] = await em.execute<Array<{ state: string }>>('select state from creation_units where unit_id = ?', [
    orphan.id,
  ]);
  expect(unit!.state).toBe('returned');
  expect(await em.execute('select 1 from rate_limit_leases where id = ?', [orphan.ticketId])).toEqual([]);

  const [delivery] = await untilReceived(receiver, 1);
  const event = JSON.parse(delivery!.body);
  expect(event).toMatchObject({
    topic: 'label_creation.updated',
    errorCode: 'not_started',
    data: { object: { id: orphan.id, status: 'failed', error: { code: 'not_started' } } },
  });
  // A third run finds nothing more to do; the receiver never gets a second event for it.
  await sweep('sweep-c');
  const events = await em.execute('select id from webhook_events where resource_id = ?', [orphan.id]);
  expect(events).toHaveLength(1);
  expect(await receivedBy(receiver)).toHaveLength(1);
});

it('delivers an event its run wrote but stopped before delivering (the outbox relay)', async () => {
  const { shop, receiver } = await aShopWithEndpoint();
  const orphan = await anOrphan(shop);
  // A run that wrote the failure and its event, then stopped before starting the deliveries.
  await inTransaction(app.orm, async (tx) => {
    await tx.execute(
      `update label_creations set status = 'failed', error = '{"code":"not_started","message":"m"}'::jsonb,
              key_bound = false where id = ?`,
      [orphan.id],
    );
    const row = (await readCreationById(tx, orphan.id))!;
    const renderCreation = (r: typeof row, now: Date) =>
      creationWire(app.orm, r, { baseUrl: WORKER_PUBLIC_BASE_URL, now });
    expect(await recordCreationUpdated(tx, { now: () => new Date(), renderCreation }, row, 'failed')).not.toBeNull();
  });
  expect(await receivedBy(receiver)).toEqual([]);

  await sweep('relay');
  const [delivery] = await untilReceived(receiver, 1);
  expect(JSON.parse(delivery!.body)).toMatchObject({ errorCode: 'not_started', data: { object: { id: orphan.id } } });
  await eventually(async () => {
    const rows = await app.orm.em
      .fork()
      .execute<Array<{ status: string }>>(
        'select d.status from webhook_deliveries d join webhook_events e on e.id = d.event_id where e.resource_id = ?',
        [orphan.id],
      );
    return rows.length === 1 && rows[0]!.status === 'delivered' ? rows : null;
  });
});

import { ApplicationFailure } from '@temporalio/common';
import type { PrepareAndSendInput, SendToCarrierInput } from '../../activities/label-creation';
import { aCarrierAAccount, aCreationRecord, anOrderOnPlatform, aRule } from '../helpers/creation';
import { expectError } from '../helpers/errors';
import { startAppWithOwnWorker, type AppWithOwnWorker } from '../helpers/own-worker';
import { ledger, scriptFaults } from '../helpers/sandbox';
import { aStoreWithKey } from '../helpers/stores';
import type { TestApp } from '../helpers/test-app';
import { isoSeconds, MINUTE } from '../helpers/time';

/**
 * Creations whose attempts were lost, over HTTP, on a worker of this file's own (its own task queue) whose activities
 * are the project's, changed per store where a test needs a loss:
 * - the carrier call whose retries ran out (`worker_lost`, spec "Attention object"): `sent_at` is when the carrier was
 *   called, and `resolve_allowed_at` 15 minutes after it (decision 0137);
 * - a creation that lost its fulfillment-order locks before the carrier call decides again, with the spec's answers
 *   for held fulfillment orders and its 5 minutes (decision 0138).
 */
const queue = `lost-attempts-${process.pid}`;

/** Stores whose first step's carrier call is lost after it was made: its last retry failed too. */
const callLostAfterSending = new Set<string>();
/** Stores whose first step is lost before anything was marked sent: the workflow prepares and sends on its own. */
const firstStepLost = new Set<string>();
/** What the first carrier call of a store's creation finds of its locks: gone, or taken over by another creation. */
const locksLostBeforeCall = new Map<string, { takenOverBy: string | null }>();
/** Creations whose carrier call already lost its locks once. */
const lostOnce = new Set<string>();

let app: TestApp;
let own: AppWithOwnWorker;
beforeAll(async () => {
  own = await startAppWithOwnWorker({
    taskQueue: queue,
    activities: (activities, ownApp) => ({
      async prepareAndSendToCarrier(input: PrepareAndSendInput) {
        if (firstStepLost.has(input.storeId)) {
          throw ApplicationFailure.nonRetryable('the first step was lost through every retry', 'WorkerLost');
        }
        const result = await activities.prepareAndSendToCarrier(input);
        if (callLostAfterSending.has(input.storeId) && result.kind === 'sent') {
          throw ApplicationFailure.nonRetryable('the carrier call was lost through every retry', 'WorkerLost');
        }
        return result;
      },
      async sendToCarrier(input: SendToCarrierInput) {
        const loss = locksLostBeforeCall.get(input.storeId);
        if (loss && !lostOnce.has(input.creationId)) {
          lostOnce.add(input.creationId);
          const em = ownApp.orm.em.fork();
          if (loss.takenOverBy) {
            await em.execute(
              `update fulfillment_order_locks set label_creation_id = ?, workflow_id = ? where label_creation_id = ?`,
              [loss.takenOverBy, `label-creation/${input.storeId}/other`, input.creationId],
            );
          } else {
            await em.execute('delete from fulfillment_order_locks where label_creation_id = ?', [input.creationId]);
          }
        }
        return activities.sendToCarrier(input);
      },
    }),
  });
  app = own.app;
}, 120_000);
afterAll(() => own?.stop());

async function aShop() {
  const shop = await aStoreWithKey(app.orm);
  const account = await aCarrierAAccount(app.orm, shop.storeId);
  await aRule(app.orm, shop.storeId, { priority: 1, carrierAccountId: account.id, serviceCode: 'a_home' });
  return { shop, account };
}

const create = (auth: Record<string, string>, key: string, body: Record<string, unknown>) =>
  app.request('POST', '/v1/labels', { headers: { ...auth, 'Idempotency-Key': key, Prefer: 'wait=60' }, body });

async function recordedSentAt(creationId: string): Promise<number> {
  const [row] = await app.orm.em
    .fork()
    .execute<Array<{ sent_at: Date }>>('select sent_at from label_creations where id = ?', [creationId]);
  return new Date(row!.sent_at).getTime();
}

describe('a carrier call whose retries ran out (worker_lost)', () => {
  it('needs attention with the sent_at of the call, and resolve_allowed_at 15 minutes after it', async () => {
    const { shop, account } = await aShop();
    callLostAfterSending.add(shop.storeId);
    const order = await anOrderOnPlatform(shop.domain);
    // The carrier holds the call for 2.5 s and drops it having made nothing: the loss comes seconds after sent_at.
    await scriptFaults(account.id, [{ type: 'timeout_not_created', hold_ms: 2500 }]);
    const res = await create(shop.auth, `lost-${order.orderId}`, { order_id: order.orderId });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({
      status: 'needs_attention',
      next_action: 'manual_check',
      attention: { reason: 'worker_lost', shipment_at_carrier: 'unknown' },
    });
    const sentAt = await recordedSentAt(res.body.id);
    expect(res.body.attention.sent_at).toBe(isoSeconds(sentAt));
    expect(res.body.attention.resolve_allowed_at).toBe(isoSeconds(sentAt + 15 * MINUTE));
    const stored = await app.request('GET', `/v1/label-creations/${res.body.id}`, { headers: shop.auth });
    expect(stored.status).toBe(200);
    expect(stored.body.attention).toEqual(res.body.attention);
    expect(await ledger(account.id)).toEqual([]);
  });
});

describe('a creation that lost its locks before the carrier call', () => {
  it('decides again: with its fulfillment orders free it takes them again and creates the label', async () => {
    const { shop, account } = await aShop();
    firstStepLost.add(shop.storeId);
    locksLostBeforeCall.set(shop.storeId, { takenOverBy: null });
    const order = await anOrderOnPlatform(shop.domain);
    const res = await create(shop.auth, `relocked-${order.orderId}`, { order_id: order.orderId });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ status: 'succeeded', created: true, error: null });
    expect(lostOnce.has(res.body.id)).toBe(true);
    // The first call found its locks gone and sent nothing; the second made the one shipment.
    expect(await ledger(account.id)).toEqual([expect.objectContaining({ reference: res.body.id })]);
  });

  it('decides again: another creation holds its fulfillment orders now, so `reject` answers creation_in_progress', async () => {
    const { shop, account } = await aShop();
    const order = await anOrderOnPlatform(shop.domain);
    const other = await aCreationRecord(app.orm, {
      storeId: shop.storeId,
      orderGid: order.orderGid,
      fulfillmentOrderGids: order.fulfillmentOrderGids,
      status: 'processing',
    });
    firstStepLost.add(shop.storeId);
    locksLostBeforeCall.set(shop.storeId, { takenOverBy: other });
    const res = await create(shop.auth, `taken-${order.orderId}`, { order_id: order.orderId, on_existing: 'reject' });
    expectError(
      res,
      409,
      'creation_in_progress',
      expect.objectContaining({ held_by: 'creation', label_creation_id: other, retry: 'later' }),
    );
    expect(res.headers.get('retry-after')).toBe('5');
    expect(await ledger(account.id)).toEqual([]);
  });
});

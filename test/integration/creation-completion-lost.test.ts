import type { PreparedAndSent, SentToCarrier } from '../../activities/label-creation';
import { aCarrierAAccount, anOrderOnPlatform, aRule } from '../helpers/creation';
import { ledger } from '../helpers/sandbox';
import { aStoreWithKey } from '../helpers/stores';
import { startAppWithOwnWorker, type AppWithOwnWorker } from '../helpers/own-worker';
import type { TestApp } from '../helpers/test-app';

/**
 * The carrier call that also finished the creation (docs/decisions/0024-succeed-in-the-carrier-call.md) loses its
 * completion, as when its worker dies right after the commit: Temporal runs it again, and the retry must neither call
 * the carrier again nor touch the finished creation. The call is the creation's first step, prepared in the same
 * activity (decision 1010): the retry carries on from the plan the creation was marked sent with, never preparing
 * again. A worker of this file's own, on its own task queue, runs the project's activities with the first step's
 * completion thrown away.
 */
const queue = `completion-lost-${process.pid}`;
const lostResults: SentToCarrier[] = [];
/** The label's row version as the lost attempt left it (every update of a label moves it). */
let versionAfterLostAttempt: string | null = null;
/** What the retry answered: the plan it carried on from, and the carrier call's answer on it. */
const retried: PreparedAndSent[] = [];

async function rowVersion(labelId: string): Promise<string> {
  const [row] = await app.orm.em
    .fork()
    .execute<Array<{ row_version: string }>>('select row_version from labels where id = ?', [labelId]);
  return String(row!.row_version);
}

let app: TestApp;
let own: AppWithOwnWorker;
beforeAll(async () => {
  own = await startAppWithOwnWorker({
    taskQueue: queue,
    activities: (activities) => ({
      async prepareAndSendToCarrier(input: Parameters<typeof activities.prepareAndSendToCarrier>[0]) {
        const result: PreparedAndSent = await activities.prepareAndSendToCarrier(input);
        if (lostResults.length === 0 && result.kind === 'sent') {
          lostResults.push(result.sent);
          if (result.sent.kind === 'succeeded') versionAfterLostAttempt = await rowVersion(result.sent.labelId);
          throw new Error('the completion of this attempt was lost');
        }
        if (result.kind === 'sent') retried.push(result);
        return result;
      },
    }),
  });
  app = own.app;
}, 120_000);
afterAll(() => own?.stop());

describe('a carrier call whose completion is lost after it finished the creation', () => {
  it('is retried without a second shipment and without changing the finished creation', async () => {
    const shop = await aStoreWithKey(app.orm);
    const account = await aCarrierAAccount(app.orm, shop.storeId);
    await aRule(app.orm, shop.storeId, { priority: 1, carrierAccountId: account.id, serviceCode: 'a_home' });
    const order = await anOrderOnPlatform(shop.domain);
    const key = `completion-lost-${order.orderId}`;
    const res = await app.request('POST', '/v1/labels', {
      headers: { ...shop.auth, 'Idempotency-Key': key, Prefer: 'wait=30' },
      body: { order_id: order.orderId },
    });

    // The lost attempt had finished the creation; the answer is that creation and its one label.
    expect(lostResults).toHaveLength(1);
    const lost = lostResults[0]!;
    expect(lost.kind).toBe('succeeded');
    expect(res.status).toBe(201);
    expect(res.body.status).toBe('succeeded');
    expect(res.body.labels.map((l: { id: string }) => l.id)).toEqual([(lost as { labelId: string }).labelId]);
    expect(await ledger(account.id)).toEqual([expect.objectContaining({ reference: res.body.id })]);

    // Temporal ran the call a second time; that attempt found the creation finished and did nothing more.
    const history = await app.temporal.workflow.getHandle(`label-creation/${shop.storeId}/${key}`).fetchHistory();
    const events = history.events ?? [];
    expect(events.find((e) => e.activityTaskStartedEventAttributes)?.activityTaskStartedEventAttributes?.attempt).toBe(
      2,
    );
    const completed = events.findIndex((e) => e.activityTaskCompletedEventAttributes);
    expect(
      events.slice(completed).filter((e) => e.markerRecordedEventAttributes || e.activityTaskScheduledEventAttributes),
    ).toEqual([]);
    // The retry carried on from the plan the creation was marked sent with: the same decision, not a new one.
    expect(retried).toEqual([
      expect.objectContaining({
        kind: 'sent',
        sent: lost,
        sendInput: expect.objectContaining({ creationId: res.body.id }),
      }),
    ]);
    // Written once: the retry did not touch the label.
    expect(versionAfterLostAttempt).not.toBeNull();
    expect(await rowVersion(res.body.labels[0].id)).toBe(versionAfterLostAttempt);
  });
});

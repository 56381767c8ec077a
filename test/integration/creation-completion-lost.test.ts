import type { SentToCarrier } from '../../activities/label-creation';
import { aCarrierAAccount, anOrderOnPlatform, aRule } from '../helpers/creation';
import { ledger } from '../helpers/sandbox';
import { aStoreWithKey } from '../helpers/stores';
import { startAppWithOwnWorker, type AppWithOwnWorker } from '../helpers/own-worker';
import type { TestApp } from '../helpers/test-app';

/**
 * The carrier call that also finished the creation (docs/decisions/0024-succeed-in-the-carrier-call.md) loses its
 * completion, as when its worker dies right after the commit: Temporal runs it again, and the retry must neither call
 * the carrier again nor touch the finished creation. A worker of this file's own, on its own task queue, runs the
 * project's activities with the first carrier call's completion thrown away.
 */
const queue = `completion-lost-${process.pid}`;
const lostResults: SentToCarrier[] = [];
/** The label's row version as the lost attempt left it (every update of a label moves it). */
let versionAfterLostAttempt: string | null = null;

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
      async sendToCarrier(input: Parameters<typeof activities.sendToCarrier>[0]) {
        const result = await activities.sendToCarrier(input);
        if (lostResults.length === 0) {
          lostResults.push(result);
          if (result.kind === 'succeeded') versionAfterLostAttempt = await rowVersion(result.labelId);
          throw new Error('the completion of this attempt was lost');
        }
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
    // Written once: the retry did not touch the label.
    expect(versionAfterLostAttempt).not.toBeNull();
    expect(await rowVersion(res.body.labels[0].id)).toBe(versionAfterLostAttempt);
  });
});

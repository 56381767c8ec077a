// Records label-creation histories of runs whose attempts were lost, behind the `worker-lost-recorded-sent-at` and
// `decide-again-after-lost-locks` patches (decisions 0137, 0138), for the replay test. Other histories are left as
// recorded:
//   TEMPORAL_CLI_PATH=~/.cache/shipping-label-api/temporal-1.5.1/temporal node --import tsx test/replay/record-lost-attempt-histories.ts
import { ApplicationFailure } from '@temporalio/common';
import type { PrepareAndSendInput, SendToCarrierInput } from '../../activities/label-creation';
import { aCarrierAAccount, anOrderOnPlatform, aRule } from '../helpers/creation';
import { startAppWithOwnWorker } from '../helpers/own-worker';
import { scriptFaults } from '../helpers/sandbox';
import { aStoreWithKey } from '../helpers/stores';
import type { TestApp } from '../helpers/test-app';
import { patchesOf, recordHistories, recordWorkflow } from './recording';

/** How a recorded creation's attempts are lost, by the key it is created under. */
type Loss = 'call_lost_after_sending' | 'call_lost_before_sending' | 'locks_lost';
const losses = new Map<string, Loss>();
/** The key of each creation, from its workflow ID (the first step sees it; the carrier call does not). */
const keyOf = new Map<string, string>();
/** Creations whose own carrier call was already lost once (only its first is). */
const callLost = new Set<string>();

async function create(app: TestApp, shop: Awaited<ReturnType<typeof aStoreWithKey>>, key: string, loss: Loss) {
  losses.set(key, loss);
  const order = await anOrderOnPlatform(shop.domain);
  const res = await app.request('POST', '/v1/labels', {
    headers: { ...shop.auth, 'Idempotency-Key': key, Prefer: 'wait=30' },
    body: { order_id: order.orderId },
  });
  if (res.status >= 500) throw new Error(`creation answered ${res.status}: ${res.text}`);
  return res;
}

recordHistories(async () => {
  const own = await startAppWithOwnWorker({
    taskQueue: `record-lost-attempts-${process.pid}`,
    env: { RESOLVE_ALLOWED_AFTER: '1s', ATTENTION_RETRY_INITIAL: '200ms', ATTENTION_RETRY_MAX: '500ms' },
    activities: (activities, app) => ({
      async prepareAndSendToCarrier(input: PrepareAndSendInput) {
        const key = input.workflowId.split('/').pop()!;
        keyOf.set(input.creationId, key);
        const loss = losses.get(key);
        // Lost through every retry before it marked anything sent: the workflow's own prepare step follows.
        if (loss && loss !== 'call_lost_after_sending') throw ApplicationFailure.nonRetryable('lost', 'WorkerLost');
        const result = await activities.prepareAndSendToCarrier(input);
        // Lost through every retry after the call was made.
        if (loss === 'call_lost_after_sending' && result.kind === 'sent') {
          throw ApplicationFailure.nonRetryable('lost after the call', 'WorkerLost');
        }
        return result;
      },
      async sendToCarrier(input: SendToCarrierInput) {
        const loss = losses.get(keyOf.get(input.creationId) ?? '');
        if (loss && !callLost.has(input.creationId)) {
          callLost.add(input.creationId);
          if (loss === 'call_lost_before_sending') throw ApplicationFailure.nonRetryable('lost', 'WorkerLost');
          await app.orm.em
            .fork()
            .execute('delete from fulfillment_order_locks where label_creation_id = ?', [input.creationId]);
        }
        return activities.sendToCarrier(input);
      },
    }),
  });
  const { app } = own;
  try {
    const shop = await aStoreWithKey(app.orm);
    const account = await aCarrierAAccount(app.orm, shop.storeId);
    await aRule(app.orm, shop.storeId, { priority: 1, carrierAccountId: account.id, serviceCode: 'a_home' });

    // worker_lost from the recorded sent_at, then resolved not_created once allowed.
    await scriptFaults(account.id, [{ type: 'timeout_not_created', hold_ms: 1500 }]);
    const lost = await create(app, shop, 'record-worker-lost-sent-at', 'call_lost_after_sending');
    await new Promise((r) =>
      setTimeout(r, Math.max(0, Date.parse(lost.body.attention.resolve_allowed_at) - Date.now()) + 100),
    );
    const resolved = await app.request('POST', `/v1/label-creations/${lost.body.id}/resolve`, {
      headers: shop.auth,
      body: { outcome: 'not_created' },
    });
    if (resolved.status !== 200) throw new Error(`resolve answered ${resolved.status}: ${resolved.text}`);
    const runs: Array<[string, string, string]> = [
      ['label-creation-worker-lost-recorded-sent-at', 'record-worker-lost-sent-at', 'worker-lost-recorded-sent-at'],
    ];
    await create(app, shop, 'record-never-marked-sent', 'call_lost_before_sending');
    runs.push(['label-creation-decided-again-never-sent', 'record-never-marked-sent', 'worker-lost-recorded-sent-at']);
    await create(app, shop, 'record-locks-lost', 'locks_lost');
    runs.push(['label-creation-decided-again-lost-locks', 'record-locks-lost', 'decide-again-after-lost-locks']);
    for (const [name, key, patch] of runs) {
      const history = await recordWorkflow(app, name, `label-creation/${shop.storeId}/${key}`);
      if (!patchesOf(history).includes(patch)) throw new Error(`${name}: the run took no ${patch} patch`);
    }
  } finally {
    await own.stop();
  }
});

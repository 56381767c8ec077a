// Records histories of the label-creation workflow along its main paths, for the replay test
// (test/unit/replay.test.ts). Run after a deliberate, compatible change of the workflow:
//   TEMPORAL_CLI_PATH=~/.cache/shipping-label-api/temporal-1.5.1/temporal node --import tsx test/replay/record-creation-histories.ts
// It starts what the integration tests start (a Temporal dev server, a fresh database, the sandbox and a worker),
// drives each path over HTTP and writes one history per path into test/replay/histories/.
import { aCarrierAAccount, anOrderOnPlatform, aRule } from '../helpers/creation';
import { aCarrierAccount } from '../helpers/labels';
import { control, ledger, scriptFaults } from '../helpers/sandbox';
import { aStoreWithKey } from '../helpers/stores';
import type { TestApp } from '../helpers/test-app';
import { recordHistories, recordResolvedCreation, recordWorkflow } from './recording';

type Shop = Awaited<ReturnType<typeof aStoreWithKey>>;

async function shopWith(app: TestApp, carrierCode: 'carrier_a' | 'carrier_b') {
  const shop = await aStoreWithKey(app.orm);
  const account =
    carrierCode === 'carrier_a'
      ? await aCarrierAAccount(app.orm, shop.storeId)
      : await aCarrierAccount(app.orm, shop.storeId, {
          carrierCode,
          services: [{ code: 'b_standard', name: 'Standard', codSupported: true, pickupPointRequired: false }],
          sender: { name: 'Shop', countryCode: 'CZ', iban: 'CZ6508000000192000145399' },
        });
  const service = carrierCode === 'carrier_a' ? 'a_home' : 'b_standard';
  await aRule(app.orm, shop.storeId, { priority: 1, carrierAccountId: account.id, serviceCode: service });
  return { shop, account };
}

// Short needs_attention durations, so those runs end (abandoned, resolved or succeeded) and can be recorded.
recordHistories(
  async (app) => {
    const create = (shop: Shop, key: string, body: Record<string, unknown>) =>
      app.request('POST', '/v1/labels', {
        headers: { ...shop.auth, 'Idempotency-Key': key, Prefer: 'wait=30' },
        body,
      });
    const record = (name: string, storeId: string, key: string) =>
      recordWorkflow(app, `label-creation-${name}`, `label-creation/${storeId}/${key}`);
    const a = await shopWith(app, 'carrier_a');
    const order = await anOrderOnPlatform(a.shop.domain);
    await create(a.shop, 'record-created-1', { order_id: order.orderId, fulfillment: 'fulfill' });
    await record('created', a.shop.storeId, 'record-created-1');
    await create(a.shop, 'record-returned-1', { order_id: order.orderId });
    await record('returned-existing', a.shop.storeId, 'record-returned-1');
    await create(a.shop, 'record-refused-1', { order_id: '999999999' });
    await record('refused', a.shop.storeId, 'record-refused-1');
    // Nothing to fulfil or tag: the carrier call finishes the creation (decision 0024).
    const plain = await anOrderOnPlatform(a.shop.domain);
    await create(a.shop, 'record-finished-in-call-1', { order_id: plain.orderId });
    await record('finished-in-carrier-call', a.shop.storeId, 'record-finished-in-call-1');

    const held = await anOrderOnPlatform(a.shop.domain);
    const fo = held.fulfillmentOrderIds[0]!;
    await control('POST', `/_control/stores/${a.shop.domain}/fulfillment-orders/${fo}/hold`, { reason: 'export' });
    await app.request('POST', '/v1/labels', {
      headers: { ...a.shop.auth, 'Idempotency-Key': 'record-waited-1', Prefer: 'wait=0' },
      body: { order_id: held.orderId },
    });
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await control('POST', `/_control/stores/${a.shop.domain}/fulfillment-orders/${fo}/release`);
    await record('waited-for-export', a.shop.storeId, 'record-waited-1');

    const unclear = await anOrderOnPlatform(a.shop.domain);
    await scriptFaults(a.account.id, [{ type: 'timeout_not_created', hold_ms: 5000 }]);
    const abandoned = await create(a.shop, 'record-unclear-1', { order_id: unclear.orderId });
    // Left alone: abandoned after the (shortened) 24 hours, then deleted by its retention workflow.
    await record('needs-attention', a.shop.storeId, 'record-unclear-1');
    await recordWorkflow(app, 'label-creation-retention', `label-creation-retention/${abandoned.body.id}`);

    await recordResolvedCreation(app, a, 'resolved-not-created', 'not_created');
    await recordResolvedCreation(app, a, 'resolved-shipment-exists', 'shipment_exists');

    const b = await shopWith(app, 'carrier_b');
    const batch = await anOrderOnPlatform(b.shop.domain);
    await create(b.shop, 'record-batch-1', { order_id: batch.orderId });
    await record('batch', b.shop.storeId, 'record-batch-1');

    // Carrier B's batch completes only after the creation needed attention: it succeeds on its own.
    await control('PUT', `/_control/carrier-accounts/${b.account.id}/settings`, { batch_completion: 'manual' });
    const late = await anOrderOnPlatform(b.shop.domain);
    const pending = await create(b.shop, 'record-attention-succeeded-1', { order_id: late.orderId });
    if (pending.body.status !== 'needs_attention') throw new Error(`expected needs_attention: ${pending.text}`);
    const batches = (await ledger(b.account.id)).filter((s) => s.reference === pending.body.id);
    await control('POST', `/_control/carrier-accounts/${b.account.id}/batches/${batches[0].batch_id}/complete`);
    await record('attention-succeeded', b.shop.storeId, 'record-attention-succeeded-1');
  },
  {
    env: {
      RESOLVE_ALLOWED_AFTER: '1s',
      ATTENTION_RETRY_INITIAL: '200ms',
      ATTENTION_RETRY_MAX: '500ms',
      CREATION_ABANDON_AFTER: '3s',
      ABANDONED_CREATION_DELETE_AFTER: '8s',
      CARRIER_PENDING_MAX: '1s',
    },
  },
);

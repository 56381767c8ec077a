// Records histories of the workflows as they run after the phase table (decision 1110), the Web UI details
// (decision 0903) and the Shopify app's webhooks (decision 0708), beside the earlier versions' histories, for the
// replay test. Run after a deliberate, compatible change of these workflows:
//   TEMPORAL_CLI_PATH=~/.cache/shipping-label-api/temporal-1.5.1/temporal node --import tsx test/replay/record-phase-table-histories.ts
import { shopifyWebhookWorkflowId } from '../../workflows/shopify-webhook-contract';
import { aCarrierAAccount, anOrderOnPlatform, aRule } from '../helpers/creation';
import { labelctlJson } from '../helpers/labelctl';
import { deployAppOnFake, install, postWebhook, type DeployedApp } from '../helpers/shopify-app';
import { aStoreWithKey } from '../helpers/stores';
import { failNext, receiverUrl, untilReceived } from '../helpers/webhooks';
import { randomToken } from '../../src/ids';
import { recordHistories, recordResolvedCreation, recordWorkflow } from './recording';

const SUFFIX = 'phase-table';

let shopify: DeployedApp;
recordHistories(
  async (app) => {
    const shop = await aStoreWithKey(app.orm);
    const account = await aCarrierAAccount(app.orm, shop.storeId);
    await aRule(app.orm, shop.storeId, { priority: 1, carrierAccountId: account.id, serviceCode: 'a_home' });
    const endpoint = await labelctlJson('webhooks', 'add', shop.storeId, receiverUrl(`record-${SUFFIX}`));
    await failNext(`record-${SUFFIX}`, { fail_next: 2, status: 503 });

    // A creation that succeeds, and the delivery of its event (two failed attempts, then delivered).
    const order = await anOrderOnPlatform(shop.domain);
    const key = `record-created-${SUFFIX}`;
    await app.request('POST', '/v1/labels', {
      headers: { ...shop.auth, 'Idempotency-Key': key, Prefer: 'wait=30' },
      body: { order_id: order.orderId },
    });
    await recordWorkflow(app, `label-creation-created-${SUFFIX}`, `label-creation/${shop.storeId}/${key}`);
    const [delivery] = await untilReceived(`record-${SUFFIX}`, 3);
    const eventId = delivery!.headers['shipping-label-event-id'];
    await recordWorkflow(app, `webhook-delivery-retried-${SUFFIX}`, `webhook-delivery/${eventId}/${endpoint.id}`);

    // A creation left needing attention, resolved once allowed.
    await recordResolvedCreation(app, { shop, account }, `resolved-not-created-${SUFFIX}`, 'not_created');

    // A Shopify webhook, processed by its workflow.
    const domain = `shop-${randomToken(8).toLowerCase()}.myshopify.com`;
    if ((await install(shopify, domain)).status !== 200) throw new Error('the install failed');
    const webhookId = `record-${SUFFIX}-${randomToken(8)}`;
    const posted = await postWebhook(shopify, {
      shop: domain,
      webhookId,
      topic: 'shop/redact',
      body: JSON.stringify({ shop_id: 1, shop_domain: domain }),
    });
    if (posted.status !== 200) throw new Error(`the webhook answered ${posted.status}`);
    await recordWorkflow(app, `shopify-webhook-shop-redact-${SUFFIX}`, shopifyWebhookWorkflowId(webhookId));
  },
  async () => {
    shopify = await deployAppOnFake();
    const env = { RESOLVE_ALLOWED_AFTER: '1s', ATTENTION_RETRY_INITIAL: '200ms', ATTENTION_RETRY_MAX: '500ms' };
    return { env: { ...shopify.env, ...env }, port: shopify.port };
  },
);

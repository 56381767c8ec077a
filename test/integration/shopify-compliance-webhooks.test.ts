import { WorkflowNotFoundError } from '@temporalio/client';
import { randomToken } from '../../src/ids';
import { shopifyWebhookWorkflowId } from '../../workflows/shopify-webhook-contract';
import { labelctl, labelctlJson } from '../helpers/labelctl';
import { sampleValue } from '../helpers/prometheus';
import { control, eventually } from '../helpers/sandbox';
import { deployAppOnFake, install, postWebhook, shopifySends, type DeployedApp } from '../helpers/shopify-app';
import { startTestApp, type TestApp } from '../helpers/test-app';

/**
 * Compliance webhooks that are never lost (docs/decisions/0718): a shop with no store is answered 200 keeping only
 * the event ID, one event under two webhook IDs is processed once, a stored webhook whose workflow never started is
 * started by the hourly housekeeping, and a redaction blocked for 25 days shows in a gauge and in `labelctl`.
 */
let app: TestApp;
let shopify: DeployedApp;

beforeAll(async () => {
  shopify = await deployAppOnFake();
  app = await startTestApp({ env: { ...shopify.env, SHOPIFY_REDACT_RETRY: '300ms' }, port: shopify.port });
});

afterAll(async () => {
  await app?.close();
});

const DAY = 86_400_000;
const aShop = () => `shop-${randomToken(8).toLowerCase()}.myshopify.com`;
const sql = <T>(text: string, values: unknown[] = []) => app.orm.em.fork().execute<T[]>(text, values);

async function anInstalledStore(): Promise<{ shop: string; storeId: string }> {
  const shop = aShop();
  expect((await install(shopify, shop)).status).toBe(200);
  const [row] = await sql<{ id: string }>('select id from stores where domain = ?', [shop]);
  return { shop, storeId: row!.id };
}

const processed = (webhookId: string) =>
  eventually(async () => {
    const [row] = await sql<{ processed_at: Date | null; outcome: Record<string, unknown> | null }>(
      'select processed_at, outcome from shopify_webhooks where webhook_id = ?',
      [webhookId],
    );
    return row?.processed_at ? row : null;
  }, 200);

/** A creation of the order in `needs_attention` (an unclear carrier call), holding the recipient's name. */
async function aCreationNeedingAttention(storeId: string, orderLegacyId: string): Promise<string> {
  const id = `lcr_${randomToken(20)}`;
  await sql(
    `insert into label_creations (id, store_id, status, idempotency_key, request_hash, order_gid, order_legacy_id,
         order_name, client_reference, requested)
     values (?, ?, 'needs_attention', ?, 'hash', ?, ?, '#1', 'for Jana Nováková', ?::jsonb)`,
    [
      id,
      storeId,
      `key-${id}`,
      `gid://shopify/Order/${orderLegacyId}`,
      orderLegacyId,
      JSON.stringify({ order_id: `gid://shopify/Order/${orderLegacyId}`, client_reference: 'for Jana Nováková' }),
    ],
  );
  return id;
}

async function scrape(): Promise<string> {
  const res = await app.request('GET', '/metrics');
  expect(res.status).toBe(200);
  return res.text;
}

const workflowExists = async (webhookId: string) => {
  try {
    await app.temporal.workflow.getHandle(shopifyWebhookWorkflowId(webhookId)).describe();
    return true;
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return false;
    throw error;
  }
};

describe('Shopify compliance webhooks', () => {
  it('answers 200 to a well-signed webhook of a shop with no store, keeping only its event ID; 401 to a bad HMAC', async () => {
    const shop = aShop();
    const eventId = `evt-${randomToken(12)}`;
    const body = JSON.stringify({ shop_id: 1, shop_domain: shop, customer: { email: 'jana@example.com' } });

    const first = await postWebhook(shopify, { shop, topic: 'customers/redact', body, eventId });
    expect(first.status).toBe(200);
    expect(await first.json()).toMatchObject({ received: false });
    const retried = await postWebhook(shopify, { shop, topic: 'customers/redact', body, eventId });
    expect(retried.status).toBe(200);
    const forged = await postWebhook(shopify, { shop, topic: 'customers/redact', body, eventId, secret: 'nope' });
    expect(forged.status).toBe(401);

    expect(await sql('select event_id from shopify_webhook_unknown_shop_events where event_id = ?', [eventId])).toEqual(
      [{ event_id: eventId }],
    );
    expect(await sql('select 1 from shopify_webhooks where shop_domain = ? or event_id = ?', [shop, eventId])).toEqual(
      [],
    );
    expect(await sql('select 1 from stores where domain = ?', [shop])).toEqual([]);
  });

  it('processes one event delivered under two webhook IDs once; without an event ID the webhook ID deduplicates', async () => {
    const { shop, storeId } = await anInstalledStore();
    const first = await shopifySends(shop, 'customers/redact', {
      customer: { id: 7300, email: 'jana@example.com', phone: null },
      orders_to_redact: [],
    });
    expect(first.status).toBe(200);
    expect(JSON.parse(first.body)).toMatchObject({ received: true, webhook_id: first.webhook_id });
    await processed(first.webhook_id);
    // Shopify sends the same event again under a new webhook ID.
    const again = await control('POST', `/_control/shopify/${shop}/webhooks/${first.webhook_id}/redeliver`);
    expect(again.body.status).toBe(200);
    const second = again.body.webhook_id as string;
    expect(second).not.toBe(first.webhook_id);
    expect(JSON.parse(again.body.body as string)).toMatchObject({ received: false, webhook_id: second });

    expect(await sql('select webhook_id from shopify_webhooks where store_id = ?', [storeId])).toEqual([
      { webhook_id: first.webhook_id },
    ]);
    expect(await workflowExists(first.webhook_id)).toBe(true);
    expect(await workflowExists(second)).toBe(false);

    const noEvent = `wh-${randomToken(12)}`;
    const scopes = JSON.stringify({ current: ['read_orders'] });
    for (const expected of [true, false]) {
      const res = await postWebhook(shopify, { shop, topic: 'app/scopes_update', body: scopes, webhookId: noEvent });
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ received: expected });
    }
    expect(await sql('select event_id from shopify_webhooks where webhook_id = ?', [noEvent])).toEqual([
      { event_id: noEvent },
    ]);
  });

  it('starts a stored webhook whose workflow never started at the hourly housekeeping', async () => {
    const { shop, storeId } = await anInstalledStore();
    const webhookId = `wh-${randomToken(12)}`;
    // What the intake leaves when its process stops between the row's commit and the workflow's start.
    await sql(
      `insert into shopify_webhooks (webhook_id, event_id, shop_domain, store_id, topic, api_version, payload, received_at)
       values (?, ?, ?, ?, 'customers/data_request', '2026-10', ?::jsonb, ?)`,
      [
        webhookId,
        `evt-${randomToken(12)}`,
        shop,
        storeId,
        JSON.stringify({ customer: { id: 7400, email: 'petr@example.com' }, orders_requested: [] }),
        new Date(Date.now() - 5 * 60_000),
      ],
    );
    expect(await workflowExists(webhookId)).toBe(false);

    const result = await app.temporal.workflow.execute('purgeRequestLogWorkflow', {
      taskQueue: app.config.temporal.taskQueue,
      workflowId: `test-shopify-restart-${randomToken(8)}`,
      args: [{ retentionMs: 90 * DAY, shopifyRedactRetryMs: 300 }],
    });
    expect((result as { shopifyWebhooksStarted: number }).shopifyWebhooksStarted).toBeGreaterThanOrEqual(1);
    expect((await processed(webhookId)).outcome).toMatchObject({ export: 'queued' });
    expect(await sql(`select kind from notifications where store_id = ? and customer_ref = '7400'`, [storeId])).toEqual(
      [{ kind: 'privacy.customer_data_export' }],
    );
  });

  it('shows a redaction blocked by a needs_attention creation for 25 days in the gauge, the alert’s metric and labelctl', async () => {
    const { shop, storeId } = await anInstalledStore();
    const order = String(Date.now() % 1_000_000_000);
    const blocking = await aCreationNeedingAttention(storeId, order);
    const before = sampleValue(await scrape(), 'shipping_label_shopify_redactions_overdue')!;

    const redact = await shopifySends(shop, 'customers/redact', {
      customer: { id: 7500, email: 'jana@example.com', phone: null },
      orders_to_redact: [Number(order)],
    });
    expect(redact.status).toBe(200);
    // The request was 26 days ago: moved back in the database rather than waited for.
    await sql('update shopify_webhooks set triggered_at = ?, received_at = ? where webhook_id = ?', [
      new Date(Date.now() - 26 * DAY),
      new Date(Date.now() - 26 * DAY),
      redact.webhook_id,
    ]);

    const metrics = await scrape();
    expect(sampleValue(metrics, 'shipping_label_shopify_redactions_overdue')).toBe(before + 1);
    expect(sampleValue(metrics, 'shipping_label_shopify_redaction_oldest_age_seconds')).toBeGreaterThanOrEqual(
      26 * 86_400 - 60,
    );

    const listed = (await labelctlJson('store', 'privacy', shop)) as Array<Record<string, unknown>>;
    expect(listed).toEqual([
      expect.objectContaining({
        webhook_id: redact.webhook_id,
        topic: 'customers/redact',
        age_days: 26,
        overdue: true,
        blocked_by: [`${blocking} (needs_attention)`],
      }),
    ]);
    const text = await labelctl('store', 'privacy', shop);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('OVERDUE');
    expect(text.stdout).toContain(`blocked by ${blocking} (needs_attention)`);

    // Resolved (here: ended), the redaction runs at its next look and leaves the gauge.
    await sql(`update label_creations set status = 'failed' where id = ?`, [blocking]);
    await processed(redact.webhook_id);
    expect(sampleValue(await scrape(), 'shipping_label_shopify_redactions_overdue')).toBe(before);
    expect(await labelctlJson('store', 'privacy', shop)).toEqual([]);
    const [creation] = await sql<{ client_reference: string | null }>(
      'select client_reference from label_creations where id = ?',
      [blocking],
    );
    expect(creation!.client_reference).toBeNull();
  });
});

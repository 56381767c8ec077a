import { revokeApiKey } from '../../src/access/api-keys';
import { randomToken } from '../../src/ids';
import { ormPoolReader } from '../../src/metrics/pool-metrics';
import { aCarrierAAccount, anOrderOnPlatform, aRule } from '../helpers/creation';
import { labelctlJson } from '../helpers/labelctl';
import { sampleSum, sampleValue, scrapeWorker } from '../helpers/prometheus';
import { control, eventually, scriptFaults } from '../helpers/sandbox';
import { aStoreWithKey } from '../helpers/stores';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { failNext, receiverUrl, untilReceived } from '../helpers/webhooks';

/**
 * The metrics an on-call reads (docs/operators.md "Metrics"): each moves when its event happens. The run's database
 * and worker are shared with the other test files running at the same time, so store-wide gauges and the worker's
 * counters are asserted as "at least", and exactly only where the series is this test's own (its carrier account,
 * its app's pool).
 */
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => app.close());

async function scrapeApi(): Promise<string> {
  const res = await app.request('GET', '/metrics');
  expect(res.status).toBe(200);
  return res.text;
}

async function aShop() {
  const shop = await aStoreWithKey(app.orm, {
    limits: { write_key_per_second: 100, write_shop_per_minute: 1000, dry_run_key_per_second: 100 },
  });
  const account = await aCarrierAAccount(app.orm, shop.storeId);
  await aRule(app.orm, shop.storeId, { priority: 1, carrierAccountId: account.id, serviceCode: 'a_home' });
  return { shop, account };
}
type Shop = Awaited<ReturnType<typeof aShop>>['shop'];

async function create(shop: Shop, body: Record<string, unknown> = {}) {
  const order = await anOrderOnPlatform(shop.domain);
  return app.request('POST', '/v1/labels', {
    headers: { ...shop.auth, 'Idempotency-Key': `key-${order.orderId}`, Prefer: 'wait=30' },
    body: { order_id: order.orderId, ...body },
  });
}

const CARRIER_CALLS = 'shipping_label_carrier_call_duration_seconds_count';
const PLATFORM_CALLS = 'shipping_label_platform_call_duration_seconds_count';

describe('carrier and platform calls', () => {
  it('the worker times each carrier and platform call by carrier, operation and outcome', async () => {
    const { shop, account } = await aShop();
    const before = await scrapeWorker();
    expect((await create(shop)).body.status).toBe('succeeded');
    await scriptFaults(account.id, [{ type: 'server_error', times: 1 }]);
    expect((await create(shop)).body.status).toBe('needs_attention');
    const after = await scrapeWorker();
    const delta = (name: string, labels: Record<string, string>) =>
      sampleSum(after, name, labels) - sampleSum(before, name, labels);
    const created = { carrier: 'carrier_a', operation: 'createShipment' };
    expect(delta(CARRIER_CALLS, { ...created, outcome: 'ok' })).toBeGreaterThanOrEqual(1);
    expect(delta(CARRIER_CALLS, { ...created, outcome: 'unavailable' })).toBeGreaterThanOrEqual(1);
    expect(delta(PLATFORM_CALLS, { outcome: 'ok' })).toBeGreaterThanOrEqual(1);
    // Buckets in seconds (the worker's override of the SDK's millisecond defaults).
    expect(
      sampleSum(after, 'shipping_label_carrier_call_duration_seconds_bucket', { ...created, outcome: 'ok', le: '60' }),
    ).toBeGreaterThanOrEqual(1);
  });

  it('the API times its own platform calls, a platform refusing as unavailable', async () => {
    const { shop } = await aShop();
    const order = await anOrderOnPlatform(shop.domain);
    const dryRun = () =>
      app.request('POST', '/v1/labels', { headers: shop.auth, body: { order_id: order.orderId, dry_run: true } });
    const before = await scrapeApi();
    expect((await dryRun()).status).toBe(200);
    expect(
      (await control('POST', `/_control/stores/${shop.domain}/faults`, { faults: [{ type: 'unavailable', times: 1 }] }))
        .status,
    ).toBe(201);
    expect((await dryRun()).status).toBe(503);
    const after = await scrapeApi();
    const delta = (labels: Record<string, string>) =>
      sampleSum(after, PLATFORM_CALLS, labels) - sampleSum(before, PLATFORM_CALLS, labels);
    // This app's registry: exactly its own calls.
    // A dry run by order ID reads the order with its fulfillment orders in one call.
    expect(delta({ operation: 'getOrderWithFulfillmentOrders', outcome: 'ok' })).toBeGreaterThanOrEqual(1);
    expect(delta({ outcome: 'unavailable' })).toBe(1);
  });
});

describe('what waits in PostgreSQL, read on scrape', () => {
  it('counts creations in needs_attention with the age of the oldest, and opens an account circuit', async () => {
    const { shop, account } = await aShop();
    const series = { carrier_account: account.id, carrier: 'carrier_a' };
    expect(sampleValue(await scrapeApi(), 'shipping_label_carrier_circuit_open', series)).toBeUndefined();
    const threshold = app.config.carrierProtection.circuitThreshold;
    await scriptFaults(account.id, [{ type: 'server_error', times: threshold }]);
    let firstSentAt = '';
    for (let i = 0; i < threshold; i += 1) {
      const res = await create(shop);
      expect(res.body.status).toBe('needs_attention');
      firstSentAt ||= res.body.attention.sent_at as string;
      if (i === 0) {
        const text = await scrapeApi();
        expect(sampleValue(text, 'shipping_label_carrier_circuit_open', series)).toBe(0);
        expect(sampleValue(text, 'shipping_label_carrier_unclear_in_a_row', series)).toBe(1);
      }
    }
    const text = await scrapeApi();
    expect(sampleValue(text, 'shipping_label_carrier_circuit_open', series)).toBe(1);
    expect(sampleValue(text, 'shipping_label_carrier_unclear_in_a_row', series)).toBe(threshold);
    expect(sampleValue(text, 'shipping_label_creations_needing_attention')).toBeGreaterThanOrEqual(threshold);
    // The oldest is at least as old as this test's first unclear creation.
    const ownAge = (Date.now() - Date.parse(firstSentAt)) / 1000;
    expect(sampleValue(text, 'shipping_label_creations_needing_attention_oldest_seconds')).toBeGreaterThanOrEqual(
      ownAge - 1,
    );
  });

  it('counts webhook attempts by outcome, and pending deliveries with the age of the oldest', async () => {
    const { shop } = await aShop();
    const flaky = `r-${randomToken(10)}`;
    const down = `r-${randomToken(10)}`;
    await labelctlJson('webhooks', 'add', shop.storeId, receiverUrl(flaky));
    await labelctlJson('webhooks', 'add', shop.storeId, receiverUrl(down));
    await failNext(flaky, { fail_next: 1, status: 503 });
    await failNext(down, { fail_next: 1000, status: 503 });
    const before = await scrapeWorker();
    expect((await create(shop)).body.status).toBe('succeeded');
    await untilReceived(flaky, 2);
    // The receiver that keeps failing holds a pending delivery; its age grows.
    const pending = await eventually(
      async () => {
        const text = await scrapeApi();
        return (sampleValue(text, 'shipping_label_webhook_delivery_oldest_pending_seconds') ?? 0) >= 1 ? text : null;
      },
      100,
      100,
    );
    expect(sampleValue(pending, 'shipping_label_webhook_deliveries_pending')).toBeGreaterThanOrEqual(1);
    const after = await eventually(
      async () => {
        const text = await scrapeWorker();
        const delivered = sampleSum(text, 'shipping_label_webhook_attempts', { outcome: 'delivered' });
        return delivered > sampleSum(before, 'shipping_label_webhook_attempts', { outcome: 'delivered' }) ? text : null;
      },
      100,
      100,
    );
    const delta = (outcome: string) =>
      sampleSum(after, 'shipping_label_webhook_attempts', { outcome }) -
      sampleSum(before, 'shipping_label_webhook_attempts', { outcome });
    expect(delta('retry')).toBeGreaterThanOrEqual(2);
    expect(delta('delivered')).toBeGreaterThanOrEqual(1);
  });

  it('counts the e-mail outbox with the age of its oldest mail', async () => {
    const { storeId, keyId } = await aStoreWithKey(app.orm);
    const queuedAt = Date.now();
    await revokeApiKey(app.orm.em.fork(), { storeId, keyId, now: new Date() });
    const text = await scrapeApi();
    // The test worker has no SMTP transport: the mail stays in the outbox.
    expect(sampleValue(text, 'shipping_label_notification_outbox_depth')).toBeGreaterThanOrEqual(1);
    expect(sampleValue(text, 'shipping_label_notification_outbox_oldest_seconds')).toBeGreaterThanOrEqual(
      (Date.now() - queuedAt) / 1000 - 1,
    );
  });
});

describe('database pools', () => {
  it('report connections in use and queries waiting for one', async () => {
    const pool = { pool: 'orm' };
    const first = await scrapeApi();
    const max = sampleValue(first, 'shipping_label_db_pool_max', pool)!;
    expect(max).toBeGreaterThan(0);
    expect(sampleValue(first, 'shipping_label_db_pool_in_use', { pool: 'hot' })).toBeGreaterThanOrEqual(0);
    // Every connection of the app's pool held by an open transaction, and one query more waiting.
    const releases: Array<() => void> = [];
    const held = Array.from({ length: max }, () =>
      app.orm.em.fork().transactional(async (em) => {
        await em.execute('select 1');
        await new Promise<void>((resolve) => releases.push(resolve));
      }),
    );
    await eventually(async () => (releases.length === max ? true : null), 100, 50);
    const waiting = app.orm.em.fork().execute('select 1');
    // The pool gauges are read as the scrape starts; its reads of the database then wait like `waiting`.
    const scraped = scrapeApi();
    // The scrape has read the gauges once its own database reads queue behind `waiting`: then the test lets go
    // (a fixed pause was too short for a loaded machine to start the scrape).
    await eventually(async () => (ormPoolReader(app.orm).read().waiting >= 2 ? true : null), 200);
    for (const release of releases) release();
    await Promise.all([...held, waiting]);
    const text = await scraped;
    expect(sampleValue(text, 'shipping_label_db_pool_in_use', pool)).toBe(max);
    expect(sampleValue(text, 'shipping_label_db_pool_waiting', pool)).toBeGreaterThanOrEqual(1);
    expect(sampleValue(await scrapeApi(), 'shipping_label_db_pool_waiting', pool)).toBe(0);
  });

  it('are on the worker endpoint too', async () => {
    expect(sampleValue(await scrapeWorker(), 'shipping_label_db_pool_max', { pool: 'orm' })).toBeGreaterThan(0);
  });
});

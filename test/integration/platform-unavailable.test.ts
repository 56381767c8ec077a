import { aCarrierAAccount, anOrderOnPlatform, aRule } from '../helpers/creation';
import { expectError } from '../helpers/errors';
import { control, ledger } from '../helpers/sandbox';
import { disconnectShopify } from '../../src/db/platform-sessions-repository';
import { anAccessToken, connectToFakeShopify, fakeShopifyRequests } from '../helpers/shopify';
import { aStoreWithKey } from '../helpers/stores';
import { startTestApp, type TestApp } from '../helpers/test-app';

// Spec "Errors": 503 `shopify_unavailable` (later, `Retry-After: 5`, details `what`, `throttled`) when the order read
// from the store platform is throttled or refused, or there is no usable platform session; dry run and live
// (docs/decisions/0027-platform-unavailable-live.md: a live creation reads the order at most 4 times, after the read of
// its checks on arrival, which decides nothing when it fails: decision 0120). The jest project
// integration-shopify runs it all with the stores on the fake Shopify; the last block is Shopify's own causes.
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => app.close());

type Shop = Awaited<ReturnType<typeof aStoreWithKey>>;
type PlatformFault = { type: 'throttled' | 'unavailable' | 'unauthorized'; times: number };

async function aShopWithAnOrder() {
  const shop = await aStoreWithKey(app.orm);
  const account = await aCarrierAAccount(app.orm, shop.storeId);
  await aRule(app.orm, shop.storeId, { priority: 1, carrierAccountId: account.id, serviceCode: 'a_home' });
  const order = await anOrderOnPlatform(shop.domain);
  return { shop, account, order };
}

const platformFails = async (shop: Shop, fault: PlatformFault) => {
  const res = await control('POST', `/_control/stores/${shop.domain}/faults`, { faults: [fault] });
  expect(res.status).toBe(201);
};

const create = (shop: Shop, key: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  app.request('POST', '/v1/labels', {
    headers: { ...shop.auth, 'Idempotency-Key': key, Prefer: 'wait=30', ...headers },
    body,
  });

const cases = [
  ['throttled (429)', 'throttled', true],
  ['refused (503)', 'unavailable', false],
  ['without a usable session (401)', 'unauthorized', false],
] as const;

describe('POST /v1/labels with dry_run: the store platform is unavailable', () => {
  it.each(cases)(
    'answers 503 shopify_unavailable with Retry-After 5 when the order read is %s',
    async (_, type, throttled) => {
      const { shop, order } = await aShopWithAnOrder();
      await platformFails(shop, { type, times: 1 });
      const res = await app.request('POST', '/v1/labels', {
        headers: shop.auth,
        body: { order_id: order.orderId, dry_run: true },
      });
      expectError(res, 503, 'shopify_unavailable', {
        what: 'order',
        throttled,
        retry: 'later',
        next_action: 'retry_later',
      });
      expect(res.headers.get('retry-after')).toBe('5');
    },
  );
});

describe('POST /v1/labels: the store platform stays unavailable', () => {
  it.each(cases)(
    'answers 503 shopify_unavailable when the order read stays %s; the creation failed, its key released',
    async (_, type, throttled) => {
      const { shop, account, order } = await aShopWithAnOrder();
      // Exactly the reads a live creation makes before it gives up (the arrival's and the worker's 4): none is left for
      // the repeat below.
      await platformFails(shop, { type, times: 5 });
      const key = `platform-${type}-${order.orderId}`;
      const res = await create(shop, key, { order_id: order.orderId });
      expectError(res, 503, 'shopify_unavailable', {
        what: 'order',
        throttled,
        retry: 'later',
        next_action: 'retry_later',
        label_creation_id: expect.stringMatching(/^lcr_/),
      });
      expect(res.headers.get('retry-after')).toBe('5');
      const failedId = res.body.error.details.label_creation_id as string;
      const stored = await app.request('GET', `/v1/label-creations/${failedId}`, { headers: shop.auth });
      expect(stored.body).toMatchObject({
        status: 'failed',
        created: false,
        next_action: 'retry_later',
        error: { code: 'shopify_unavailable', details: res.body.error.details },
      });
      expect(await ledger(account.id)).toHaveLength(0);
      // The key was released: the same key, once the platform answers, is a new attempt that creates the label.
      const again = await create(shop, key, { order_id: order.orderId });
      expect(again.status).toBe(201);
      expect(again.body.id).not.toBe(failedId);
      expect(await ledger(account.id)).toHaveLength(1);
    },
  );

  it('rides out a short throttle: the creation reads the order again and creates the label', async () => {
    const { shop, account, order } = await aShopWithAnOrder();
    await platformFails(shop, { type: 'throttled', times: 2 });
    const res = await create(shop, `short-throttle-${order.orderId}`, { order_id: order.orderId });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ status: 'succeeded', created: true, error: null });
    expect(await ledger(account.id)).toHaveLength(1);
  });

  it('fails the same when the order is named by order_name; with Prefer: wait=0 the answer is 202 and a poll finds it', async () => {
    const { shop, account, order } = await aShopWithAnOrder();
    await platformFails(shop, { type: 'unavailable', times: 5 });
    // wait=0 answers at once (the prepare step runs in the first activity since decision 1010); the poll waits.
    const res = await create(
      shop,
      `platform-by-name-${order.orderId}`,
      { order_name: order.name },
      { Prefer: 'wait=0' },
    );
    expect(res.status).toBe(202);
    expect(res.headers.get('preference-applied')).toBe('wait=0');
    const polled = await app.request('GET', `/v1/label-creations/${res.body.id}`, {
      headers: { ...shop.auth, Prefer: 'wait=30' },
    });
    expect(polled.status).toBe(200);
    expect(polled.body).toMatchObject({
      status: 'failed',
      created: false,
      next_action: 'retry_later',
      error: {
        code: 'shopify_unavailable',
        details: { what: 'order', throttled: false, retry: 'later', next_action: 'retry_later' },
      },
    });
    expect(await ledger(account.id)).toHaveLength(0);
  });
});

describe('POST /v1/labels for a store on Shopify without a usable session or out of query cost', () => {
  const aShopifyShopWithAnOrder = async () => {
    const shop = await aStoreWithKey(app.orm, { platform: 'shopify' });
    const account = await aCarrierAAccount(app.orm, shop.storeId);
    await aRule(app.orm, shop.storeId, { priority: 1, carrierAccountId: account.id, serviceCode: 'a_home' });
    const order = await anOrderOnPlatform(shop.domain);
    return { shop, account, order };
  };
  const unavailable = (throttled: boolean, live: boolean) => ({
    what: 'order',
    throttled,
    retry: 'later',
    next_action: 'retry_later',
    ...(live ? { label_creation_id: expect.stringMatching(/^lcr_/) } : {}),
  });

  it('reads the order from the Admin API: a dry run of a connected store is answered from the fake Shopify', async () => {
    const { shop, order } = await aShopifyShopWithAnOrder();
    const before = await fakeShopifyRequests(shop.domain);
    const res = await app.request('POST', '/v1/labels', {
      headers: shop.auth,
      body: { order_id: order.orderId, dry_run: true },
    });
    expect(res.status).toBe(200);
    expect(await fakeShopifyRequests(shop.domain)).toBeGreaterThan(before);
  });

  it('answers 503 shopify_unavailable, dry run and live, once the token is removed; connecting again recovers', async () => {
    const { shop, account, order } = await aShopifyShopWithAnOrder();
    await disconnectShopify(app.orm.em.fork(), shop.storeId, new Date());
    const dry = await app.request('POST', '/v1/labels', {
      headers: shop.auth,
      body: { order_id: order.orderId, dry_run: true },
    });
    expectError(dry, 503, 'shopify_unavailable', unavailable(false, false));
    expect(dry.headers.get('retry-after')).toBe('5');
    const key = `no-session-${order.orderId}`;
    const live = await create(shop, key, { order_id: order.orderId });
    expectError(live, 503, 'shopify_unavailable', unavailable(false, true));
    expect(await ledger(account.id)).toHaveLength(0);
    // The operator connects the store again (a new token, as rotation does): the same key is a new attempt.
    await connectToFakeShopify(app.orm, shop);
    expect((await create(shop, key, { order_id: order.orderId })).status).toBe(201);
  });

  it('answers 503 shopify_unavailable when Shopify refuses the stored token (401: revoked, app uninstalled)', async () => {
    const { shop, order } = await aShopifyShopWithAnOrder();
    await anAccessToken(shop.domain);
    const res = await app.request('POST', '/v1/labels', {
      headers: shop.auth,
      body: { order_id: order.orderId, dry_run: true },
    });
    expectError(res, 503, 'shopify_unavailable', unavailable(false, false));
  });

  it('answers 503 shopify_unavailable throttled when the store’s query-cost bucket is empty', async () => {
    const { shop, order } = await aShopifyShopWithAnOrder();
    await control('PUT', `/_control/shopify/${shop.domain}/bucket`, {
      maximum_available: 2000,
      currently_available: 0,
      restore_rate: 100,
    });
    const res = await app.request('POST', '/v1/labels', {
      headers: shop.auth,
      body: { order_id: order.orderId, dry_run: true },
    });
    expectError(res, 503, 'shopify_unavailable', unavailable(true, false));
    expect(res.headers.get('retry-after')).toBe('5');
  });
});

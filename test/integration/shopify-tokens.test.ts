import { createApiKey } from '../../src/access/api-keys';
import { setStoreGates } from '../../src/access/stores';
import { connectShopify } from '../../src/db/platform-sessions-repository';
import { randomToken } from '../../src/ids';
import { createRequestLogActivities } from '../../activities/request-log';
import type { ActivityDeps } from '../../activities/deps';
import { ShopifyApp } from '../../src/platform/shopify/app';
import { createLogger } from '../../src/logger';
import { aCarrierAAccount, anOrderOnPlatform, aRule } from '../helpers/creation';
import { labelctlWith } from '../helpers/labelctl';
import { control } from '../helpers/sandbox';
import { deployAppOnFake, install, type DeployedApp } from '../helpers/shopify-app';
import { startTestApp, type TestApp } from '../helpers/test-app';

/**
 * Expiring offline tokens end to end (issue 55; docs/shopify.md, "Tokens"; decisions 0710 and 0711): the fake Shopify
 * expires access tokens after their lifetime on its own clock (moved by the tests, never the real date), rotates
 * refresh tokens with Shopify's grace for a lost answer, and refuses the public app's non-expiring tokens after its
 * cut-over, which each test sets for its own shop.
 */
let app: TestApp;
let shopify: DeployedApp;

beforeAll(async () => {
  shopify = await deployAppOnFake();
  app = await startTestApp({ env: shopify.env, port: shopify.port });
});

afterAll(async () => {
  await app?.close();
});

const aShop = () => `tok-${randomToken(8).toLowerCase()}.myshopify.com`;
const HOUR_AND_A_MINUTE = 61 * 60;
/** A cut-over already passed on the fake's clock (which runs from now), whatever today's date is. */
const passedCutover = () => new Date(Date.now() - 86_400_000).toISOString();

interface TokenLedger {
  requests: Array<{ grant_type: string; refresh_token_ending: string | null; outcome: string }>;
}

const tokens = async (shop: string, body?: Record<string, unknown>): Promise<TokenLedger> => {
  const res = body
    ? await control('PUT', `/_control/shopify/${shop}/tokens`, body)
    : await control('GET', `/_control/shopify/${shop}/tokens`);
  expect(res.status).toBe(200);
  return res.body as TokenLedger;
};
const refreshes = async (shop: string) => (await tokens(shop)).requests.filter((r) => r.grant_type === 'refresh_token');

async function session(storeId: string) {
  const [row] = await app.orm.em.fork().execute<
    Array<{
      access_token_expires_at: Date | null;
      refresh_token_sealed: string | null;
      token_origin: string | null;
      access_lost_reason: string | null;
    }>
  >(
    `select access_token_expires_at, refresh_token_sealed, token_origin, access_lost_reason
       from store_platform_sessions where store_id = ?`,
    [storeId],
  );
  return row!;
}

/** The merchant installs the app; support opens the API; an order waits on the fake. */
async function anInstalledStore(shop = aShop()) {
  const installed = await install(shopify, shop);
  expect(installed.status).toBe(200);
  const [store] = await app.orm.em
    .fork()
    .execute<Array<{ id: string }>>('select id from stores where domain = ?', [shop]);
  const auth = await keyFor(store!.id);
  const order = await anOrderOnPlatform(shop);
  return { shop, storeId: store!.id, auth, order };
}

async function keyFor(storeId: string) {
  const em = app.orm.em.fork();
  await setStoreGates(em, storeId, { apiEnabled: true, subscriptionActive: true, writeAccess: true }, new Date());
  const { secret } = await createApiKey(em, {
    storeId,
    name: 'warehouse',
    scopes: ['labels:print', 'labels:write', 'orders:read'],
    now: new Date(),
  });
  return { authorization: `Bearer ${secret}` };
}

const readOrder = (a: TestApp, auth: Record<string, string>, orderId: string) =>
  a.request('GET', `/v1/orders/${orderId}`, { headers: auth });

/**
 * A store as an install before this change left it: the public app's non-expiring token, origin not recorded; or, with
 * `customAppToken`, a store connected by `labelctl store connect` with a custom app's token.
 */
async function anOldStore(customAppToken?: string) {
  const shop = aShop();
  const issued = customAppToken
    ? await control('PUT', `/_control/shopify/${shop}/session`, { access_token: customAppToken })
    : await control('POST', `/_control/shopify/${shop}/tokens/non-expiring-install`, { client_id: shopify.clientId });
  expect(issued.status).toBe(200);
  const em = app.orm.em.fork();
  const [store] = await em.execute<Array<{ id: string }>>(
    `insert into stores (id, name, domain, email, app_installed, api_enabled, paused_by_support, subscription_active,
                         free_access, write_access, created_at, updated_at)
     values (?, ?, ?, ?, true, false, false, false, false, false, now(), now()) returning id`,
    [`st_${randomToken(16)}`, `Shop ${shop}`, shop, `owner@${shop}`],
  );
  await connectShopify(em, app.config.settingsEncryptionKey, {
    storeId: store!.id,
    accessToken: customAppToken ?? (issued.body.access_token as string),
    now: new Date(),
  });
  if (!customAppToken)
    await em.execute('update store_platform_sessions set token_origin = null where store_id = ?', [store!.id]);
  const auth = await keyFor(store!.id);
  const order = await anOrderOnPlatform(shop);
  return { shop, storeId: store!.id, auth, order };
}

describe('an install gets an expiring token', () => {
  it('stores its expiry and refresh token sealed, and the public app as its origin', async () => {
    const { storeId, auth, order } = await anInstalledStore();
    const stored = await session(storeId);
    expect(stored.token_origin).toBe('app');
    expect(stored.refresh_token_sealed).toMatch(/^v1:/);
    const expiresIn = new Date(stored.access_token_expires_at!).getTime() - Date.now();
    expect(expiresIn).toBeGreaterThan(55 * 60_000);
    expect(expiresIn).toBeLessThanOrEqual(60 * 60_000);
    const res = await readOrder(app, auth, order.orderId);
    expect(res.status).toBe(200);
  });
});

describe('an expired access token', () => {
  it('is refreshed once at minute 61, and the creation succeeds', async () => {
    const { shop, storeId, auth, order } = await anInstalledStore();
    const account = await aCarrierAAccount(app.orm, storeId);
    await aRule(app.orm, storeId, { priority: 1, carrierAccountId: account.id, serviceCode: 'a_home' });
    await tokens(shop, { advance_clock_seconds: HOUR_AND_A_MINUTE });
    const created = await app.request('POST', '/v1/labels', {
      headers: { ...auth, 'Idempotency-Key': `minute-61-${randomToken(8)}`, Prefer: 'wait=30' },
      body: { order_id: order.orderId },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ status: 'succeeded', created: true });
    expect(await refreshes(shop)).toEqual([expect.objectContaining({ outcome: 'issued' })]);
  });

  it('is refreshed before a call when it expires within minutes', async () => {
    const shop = aShop();
    // Tokens of four minutes: the one the install stores is already due (the margin is five).
    await tokens(shop, { access_token_seconds: 240 });
    const { auth, order } = await anInstalledStore(shop);
    await tokens(shop, { access_token_seconds: 3600 });
    for (let i = 0; i < 3; i += 1) {
      const res = await readOrder(app, auth, order.orderId);
      expect(res.status).toBe(200);
    }
    expect(await refreshes(shop)).toHaveLength(1);
  });

  it('is refreshed once for 20 calls at once', async () => {
    const { shop, storeId, auth, order } = await anInstalledStore();
    // Two keys: a key reads at most 10 times a second (spec "Limits").
    const other = await keyFor(storeId);
    // A bucket for 40 order reads at once (each is refused once, then read): only the token is under test here.
    const bucket = await control('PUT', `/_control/shopify/${shop}/bucket`, {
      maximum_available: 100_000,
      currently_available: 100_000,
      restore_rate: 10_000,
    });
    expect(bucket.status).toBe(200);
    await tokens(shop, { advance_clock_seconds: HOUR_AND_A_MINUTE });
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => readOrder(app, i % 2 === 0 ? auth : other, order.orderId)),
    );
    expect(answers.map((a) => a.status)).toEqual(Array.from({ length: 20 }, () => 200));
    expect(await refreshes(shop)).toHaveLength(1);
  });

  it('is refreshed once by two processes at once', async () => {
    const { shop, auth, order } = await anInstalledStore();
    const second = await startTestApp({ env: shopify.env });
    try {
      await tokens(shop, { advance_clock_seconds: HOUR_AND_A_MINUTE });
      const answers = await Promise.all(
        Array.from({ length: 10 }, (_, i) => readOrder(i % 2 === 0 ? app : second, auth, order.orderId)),
      );
      expect(answers.map((a) => a.status)).toEqual(Array.from({ length: 10 }, () => 200));
      expect(await refreshes(shop)).toHaveLength(1);
    } finally {
      await second.close();
    }
  });

  it('is refreshed once by labelctl and the API at once', async () => {
    const { shop, storeId, auth, order } = await anInstalledStore();
    await tokens(shop, { advance_clock_seconds: HOUR_AND_A_MINUTE });
    const [check, ...reads] = await Promise.all([
      labelctlWith(shopify.env, 'store', 'platform', storeId, '--check'),
      ...Array.from({ length: 5 }, () => readOrder(app, auth, order.orderId)),
    ]);
    expect(check.stderr).toBe('');
    expect(check.code).toBe(0);
    expect(check.stdout).toContain('scopes complete');
    expect(reads.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect(await refreshes(shop)).toHaveLength(1);
  });

  it('recovers from a lost refresh answer with the same refresh token', async () => {
    const { shop, auth, order } = await anInstalledStore();
    await tokens(shop, { advance_clock_seconds: HOUR_AND_A_MINUTE, lose_next_answers: 1 });
    const res = await readOrder(app, auth, order.orderId);
    expect(res.status).toBe(200);
    const asked = await refreshes(shop);
    expect(asked.map((r) => r.outcome)).toEqual(['issued_answer_lost', 'issued']);
    expect(asked[1]!.refresh_token_ending).toBe(asked[0]!.refresh_token_ending);
    // The tokens of the second answer are the ones in use: the next hour refreshes with its refresh token.
    await tokens(shop, { advance_clock_seconds: HOUR_AND_A_MINUTE });
    const later = await readOrder(app, auth, order.orderId);
    expect(later.status).toBe(200);
    const after = await refreshes(shop);
    expect(after).toHaveLength(3);
    expect(after[2]).toMatchObject({ outcome: 'issued' });
    expect(after[2]!.refresh_token_ending).not.toBe(asked[0]!.refresh_token_ending);
  });

  it('answers access_required, not 503, when Shopify refuses the refresh token; an install restores it', async () => {
    const { shop, storeId, auth, order } = await anInstalledStore();
    await tokens(shop, { advance_clock_seconds: HOUR_AND_A_MINUTE, revoke_refresh_token: true });
    const res = await readOrder(app, auth, order.orderId);
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('access_required');
    expect(res.body.error.details.reason).toMatch(/refused the app's refresh token \(invalid_grant\)/);
    expect((await session(storeId)).access_lost_reason).toMatch(/invalid_grant/);
    // The store's gate is closed: every key answers access_required before anything runs.
    const gate = await app.request('GET', '/v1/shop', { headers: auth });
    expect(gate.status).toBe(403);
    expect(gate.body.error.code).toBe('access_required');
    // The merchant installs the app again: the same key works.
    expect((await install(shopify, shop)).status).toBe(200);
    const again = await readOrder(app, auth, order.orderId);
    expect(again.status).toBe(200);
    expect((await session(storeId)).access_lost_reason).toBeNull();
  });
});

describe('non-expiring tokens of the public app', () => {
  it('are migrated by labelctl store migrate-tokens', async () => {
    const { shop, storeId, auth, order } = await anOldStore();
    const before = await app.request('GET', '/metrics');
    expect(before.status).toBe(200);
    expect(before.text).toMatch(/shipping_label_shopify_tokens_to_migrate [1-9]/);
    const run = await labelctlWith(shopify.env, '--json', 'store', 'migrate-tokens');
    expect(run.code).toBe(0);
    const summary = JSON.parse(run.stdout.trim().split('\n').pop()!);
    expect(summary.stores).toContainEqual({ store_id: storeId, shop, outcome: 'migrated' });
    const stored = await session(storeId);
    expect(stored).toMatchObject({ token_origin: 'app', refresh_token_sealed: expect.stringMatching(/^v1:/) });
    expect((await tokens(shop)).requests.map((r) => r.grant_type)).toEqual([
      'urn:ietf:params:oauth:grant-type:token-exchange',
    ]);
    // Past the cut-over the migrated store keeps working, refreshes included.
    await tokens(shop, { non_expiring_cutover: passedCutover(), advance_clock_seconds: HOUR_AND_A_MINUTE });
    const res = await readOrder(app, auth, order.orderId);
    expect(res.status).toBe(200);
    expect(await refreshes(shop)).toHaveLength(1);
  });

  it('are migrated by the hourly housekeeping', async () => {
    const { shop, storeId } = await anOldStore();
    const logger = createLogger('silent');
    const endpoint = new ShopifyApp(
      { ...app.config.shopifyApp!, apiVersion: app.config.shopify.apiVersion, timeoutMs: app.config.shopify.timeoutMs },
      () => undefined,
    );
    const deps = {
      orm: app.orm,
      logger,
      now: () => new Date(),
      shopifyApp: endpoint,
      webhooks: { settingsKey: app.config.settingsEncryptionKey },
    } as unknown as ActivityDeps;
    const result = await createRequestLogActivities(deps).purgeRequestLog({ retentionMs: 90 * 86_400_000 });
    expect(result.shopifyTokens?.migrated).toBeGreaterThanOrEqual(1);
    expect((await session(storeId)).refresh_token_sealed).toMatch(/^v1:/);
    expect((await tokens(shop)).requests).toContainEqual(
      expect.objectContaining({ grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange', outcome: 'issued' }),
    );
  });

  it('fail as access_required past the cut-over when not migrated, while a migrated store works', async () => {
    const old = await anOldStore();
    const current = await anInstalledStore();
    for (const shop of [old.shop, current.shop]) await tokens(shop, { non_expiring_cutover: passedCutover() });
    const refused = await readOrder(app, old.auth, old.order.orderId);
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('access_required');
    expect(refused.body.error.details.reason).toMatch(/non-expiring access token/);
    const works = await readOrder(app, current.auth, current.order.orderId);
    expect(works.status).toBe(200);
  });

  it('of a custom app keep working as they are past the cut-over, and are never migrated', async () => {
    const custom = await anOldStore(`shpat_${randomToken(24)}`);
    await tokens(custom.shop, { non_expiring_cutover: passedCutover() });
    const res = await readOrder(app, custom.auth, custom.order.orderId);
    expect(res.status).toBe(200);
    const run = await labelctlWith(shopify.env, '--json', 'store', 'migrate-tokens');
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout.trim().split('\n').pop()!).stores).not.toContainEqual(
      expect.objectContaining({ store_id: custom.storeId }),
    );
    expect((await session(custom.storeId)).token_origin).toBe('custom_app');
    expect((await tokens(custom.shop)).requests).toEqual([]);
  });
});

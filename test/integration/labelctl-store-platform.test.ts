import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { aCarrierAAccount, anOrderOnPlatform, aRule } from '../helpers/creation';
import { expectError } from '../helpers/errors';
import { labelctl, labelctlJson } from '../helpers/labelctl';
import { REQUIRED_SHOPIFY_SCOPES } from '../../src/platform/shopify/scopes';
import { control } from '../helpers/sandbox';
import { anAccessToken, fakeShopifyRequests } from '../helpers/shopify';
import { aStoreWithKey } from '../helpers/stores';
import { startTestApp, type TestApp } from '../helpers/test-app';

// docs/shopify.md, "Connecting a store with a custom app's token": the operator puts a store on Shopify with its offline Admin API access token
// from a file, rotates it by connecting again, removes it, and moves the store back to the sandbox platform.
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => app.close());

const tokenFile = (token: string) => {
  const file = join(mkdtempSync(join(tmpdir(), 'labelctl-token-')), 'token');
  writeFileSync(file, `${token}\n`, { mode: 0o600 });
  return file;
};

/** `labelctl store connect <domain> --platform shopify` with the token in a file, as JSON. */
const connectOnShopify = (domain: string, token: string) =>
  labelctlJson('store', 'connect', domain, '--platform', 'shopify', '--token-file', tokenFile(token));

describe('labelctl store connect', () => {
  it('connects a store to Shopify, rotates, disconnects and moves it back to the sandbox platform', async () => {
    const shop = await aStoreWithKey(app.orm, { platform: 'sandbox' });
    const account = await aCarrierAAccount(app.orm, shop.storeId);
    await aRule(app.orm, shop.storeId, { priority: 1, carrierAccountId: account.id, serviceCode: 'a_home' });
    const order = await anOrderOnPlatform(shop.domain);
    const dryRun = () =>
      app.request('POST', '/v1/labels', { headers: shop.auth, body: { order_id: order.orderId, dry_run: true } });

    const token = await anAccessToken(shop.domain);
    const connected = await connectOnShopify(shop.domain, token);
    expect(connected).toMatchObject({ store_id: shop.storeId, platform: 'shopify', session: `…${token.slice(-4)}` });
    expect(JSON.stringify(connected)).not.toContain(token);
    const stored = await app.orm.em
      .fork()
      .execute('select access_token_sealed from store_platform_sessions where store_id = ?', [shop.storeId]);
    expect(stored[0]!.access_token_sealed).not.toContain(token.slice(6));
    const before = await fakeShopifyRequests(shop.domain);
    expect((await dryRun()).status).toBe(200);
    expect(await fakeShopifyRequests(shop.domain)).toBeGreaterThan(before);

    // Rotation: Shopify issues a new token (the old one stops working); connecting again stores it.
    const rotated = await anAccessToken(shop.domain);
    expectError(await dryRun(), 503, 'shopify_unavailable', {
      what: 'order',
      throttled: false,
      retry: 'later',
      next_action: 'retry_later',
    });
    await labelctlJson('store', 'connect', shop.storeId, '--platform', 'shopify', '--token-file', tokenFile(rotated));
    expect((await dryRun()).status).toBe(200);

    expect(await labelctlJson('store', 'disconnect', shop.domain)).toMatchObject({
      platform: 'shopify',
      session: 'none (shopify_unavailable)',
    });
    expectError(await dryRun(), 503, 'shopify_unavailable', {
      what: 'order',
      throttled: false,
      retry: 'later',
      next_action: 'retry_later',
    });

    expect(await labelctlJson('store', 'connect', shop.domain, '--platform', 'sandbox')).toMatchObject({
      platform: 'sandbox',
      session: null,
    });
    expect(await labelctlJson('store', 'platform', shop.domain)).toMatchObject({ platform: 'sandbox' });
    const onShopify = await fakeShopifyRequests(shop.domain);
    expect((await dryRun()).status).toBe(200);
    expect(await fakeShopifyRequests(shop.domain)).toBe(onShopify);
  });

  it('refuses a connect without a token file, an unreadable or malformed one, and a disconnect of a sandbox store', async () => {
    const shop = await aStoreWithKey(app.orm, { platform: 'sandbox' });
    const cases: Array<[string[], RegExp]> = [
      [['store', 'connect', shop.domain, '--platform', 'shopify'], /needs --token-file/],
      [['store', 'connect', shop.domain, '--platform', 'shopify', '--token-file', '/nonexistent/token'], /cannot read/],
      [
        ['store', 'connect', shop.domain, '--platform', 'shopify', '--token-file', tokenFile('two words')],
        /one access token/,
      ],
      [['store', 'disconnect', shop.domain], /is not on Shopify/],
    ];
    for (const [args, message] of cases) {
      const result = await labelctl(...args);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(message);
    }
    expect(await labelctlJson('store', 'platform', shop.domain)).toMatchObject({ platform: 'sandbox' });
  });

  it.each(REQUIRED_SHOPIFY_SCOPES)(
    'refuses a token whose installation lacks %s, naming it; nothing is stored',
    async (missing) => {
      const shop = await aStoreWithKey(app.orm, { platform: 'sandbox' });
      const token = await anAccessToken(shop.domain, { scopes: REQUIRED_SHOPIFY_SCOPES.filter((s) => s !== missing) });
      const result = await labelctl(
        'store',
        'connect',
        shop.domain,
        '--platform',
        'shopify',
        '--token-file',
        tokenFile(token),
      );
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`lacks ${missing}`);
      expect(await labelctlJson('store', 'platform', shop.domain)).toMatchObject({ platform: 'sandbox' });
    },
  );

  it('connects a token with exactly the documented scopes; store platform shows them, and --check reads them again', async () => {
    const shop = await aStoreWithKey(app.orm, { platform: 'sandbox' });
    const token = await anAccessToken(shop.domain);
    const connected = await connectOnShopify(shop.domain, token);
    expect(connected).toMatchObject({ granted_scopes: [...REQUIRED_SHOPIFY_SCOPES], missing_scopes: [] });
    // The merchant takes a scope back in the admin: the stored view holds until it is checked again.
    await control('PUT', `/_control/shopify/${shop.domain}/session`, {
      access_token: token,
      scopes: REQUIRED_SHOPIFY_SCOPES.filter((s) => s !== 'read_locations'),
    });
    expect(await labelctlJson('store', 'platform', shop.domain)).toMatchObject({ missing_scopes: [] });
    expect(await labelctlJson('store', 'platform', shop.domain, '--check')).toMatchObject({
      missing_scopes: ['read_locations'],
    });
    const text = await labelctl('store', 'platform', shop.domain);
    expect(text.stdout).toContain('MISSING SCOPES read_locations');
  });
});

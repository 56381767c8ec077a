import { REQUIRED_SHOPIFY_SCOPES } from '../../src/platform/shopify/scopes';
import { SHOPIFY_CALLBACK_PATH } from '../../src/platform/shopify/app';
import { SHOPIFY_WEBHOOK_TOPICS } from '../../src/shopify-app/webhook-intake';
import { loadConfig } from '../../src/config';
import { appToml } from '../helpers/shopify-app';

/** shopify.app.toml is what `shopify app deploy` configures the real app from: it must say what the service does. */
describe('shopify.app.toml', () => {
  const toml = appToml();

  it('asks for exactly the scopes the adapter needs (src/platform/shopify/scopes.ts)', () => {
    expect(toml.access_scopes.scopes.split(',').map((s) => s.trim())).toEqual([...REQUIRED_SHOPIFY_SCOPES]);
  });

  it('sends the merchant back to the callback and every webhook to /shopify/webhooks', () => {
    expect(toml.auth.redirect_urls.map((u) => new URL(u).pathname)).toEqual([SHOPIFY_CALLBACK_PATH]);
    expect(new URL(toml.application_url).pathname).toBe('/shopify/install');
    expect(toml.webhooks.subscriptions.map((s) => s.uri)).toEqual(['/shopify/webhooks', '/shopify/webhooks']);
  });

  it('subscribes to the topics the service handles, the three compliance topics among them', () => {
    const topics = toml.webhooks.subscriptions.flatMap((s) => s.topics ?? []);
    const compliance = toml.webhooks.subscriptions.flatMap((s) => s.compliance_topics ?? []);
    expect(compliance).toEqual(['customers/data_request', 'customers/redact', 'shop/redact']);
    expect([...topics, ...compliance].sort()).toEqual([...SHOPIFY_WEBHOOK_TOPICS].sort());
  });

  it('receives webhooks in the Admin API version the service pins', () => {
    expect(toml.webhooks.api_version).toBe(loadConfig({}).shopify.apiVersion);
  });
});

describe('the app settings', () => {
  it('are off without a key and secret, and refuse one without the other', () => {
    expect(loadConfig({}).shopifyApp).toBeUndefined();
    expect(() => loadConfig({ SHOPIFY_API_KEY: 'k' })).toThrow(/SHOPIFY_API_KEY, SHOPIFY_API_SECRET/);
  });

  it('take the app URL from PUBLIC_BASE_URL when unset, and refuse plain HTTP in production', () => {
    const app = loadConfig({ SHOPIFY_API_KEY: 'k', SHOPIFY_API_SECRET: 's', PUBLIC_BASE_URL: 'https://labels.test/' });
    expect(app.shopifyApp).toMatchObject({ appUrl: 'https://labels.test', shopUrl: 'https://{shop}' });
    expect(() =>
      loadConfig({
        NODE_ENV: 'production',
        CURSOR_SECRET: 'a-long-random-production-secret',
        SETTINGS_ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64'),
        SHOPIFY_API_KEY: 'k',
        SHOPIFY_API_SECRET: 's',
        SHOPIFY_APP_URL: 'http://labels.test',
      }),
    ).toThrow(/SHOPIFY_APP_URL: must be https/);
  });
});

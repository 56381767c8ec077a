import { loadConfig } from '../../src/config';
import { connectShopify } from '../../src/db/platform-sessions-repository';
import type { Orm } from '../../src/db/orm';
import { randomToken } from '../../src/ids';
import { CostBuckets } from '../../src/platform/shopify/bucket';
import { ShopifyGraphqlClient, type ShopifyObserver } from '../../src/platform/shopify/graphql-client';
import { ShopifyPlatform } from '../../src/platform/shopify/shopify-platform';
import { control, sandboxUrl } from './sandbox';

/** The API version the fake serves and the service pins (SHOPIFY_API_VERSION's default). */
export const SHOPIFY_API_VERSION = loadConfig({}).shopify.apiVersion;

/** The jest project `integration-shopify` runs the store-facing suites with every test store on the fake Shopify. */
export const storesOnShopify = (): boolean => process.env.TEST_STORE_PLATFORM === 'shopify';

export const fakeShopifyAdminUrl = (): string => `${sandboxUrl()}/shopify/{shop}/admin/api/{version}/graphql.json`;

/**
 * What the merchant granted the app's installation on the fake: its scopes (default: exactly the ones the service
 * documents) and the protected customer data Shopify approved (default 2: all).
 */
export interface FakeGrants {
  scopes?: readonly string[];
  customerDataLevel?: 0 | 1 | 2;
}

/** An offline access token the fake accepts for this shop from now on (as installing the app issues one). */
export async function anAccessToken(domain: string, grants: FakeGrants = {}): Promise<string> {
  const token = `shpat_${randomToken(32)}`;
  const res = await control('PUT', `/_control/shopify/${domain}/session`, {
    access_token: token,
    ...(grants.scopes ? { scopes: grants.scopes } : {}),
    ...(grants.customerDataLevel !== undefined ? { customer_data_level: grants.customerDataLevel } : {}),
  });
  if (res.status !== 200) throw new Error(`the fake Shopify refused the session: ${JSON.stringify(res.body)}`);
  return token;
}

/** Connects a store to the fake Shopify as `labelctl store connect --platform shopify` does. */
export async function connectToFakeShopify(
  orm: Orm,
  store: { storeId: string; domain: string },
  grants: FakeGrants = {},
): Promise<string> {
  const token = await anAccessToken(store.domain, grants);
  await connectShopify(orm.em.fork(), loadConfig(process.env).settingsEncryptionKey, {
    storeId: store.storeId,
    accessToken: token,
    now: new Date(),
  });
  return token;
}

/** The adapter on its own against the fake, with a token of its own (or none) and a time box. */
export function shopifyAdapter(
  token: string | null,
  timeoutMs = 5_000,
  buckets = new CostBuckets(),
  options: { apiVersion?: string; observer?: ShopifyObserver } = {},
) {
  const client = new ShopifyGraphqlClient(
    { adminUrl: fakeShopifyAdminUrl(), apiVersion: options.apiVersion ?? SHOPIFY_API_VERSION, timeoutMs },
    buckets,
    options.observer,
  );
  return { client, platform: new ShopifyPlatform(client, () => Promise.resolve(token)) };
}

/** How many requests the fake Shopify has had for this shop. */
export async function fakeShopifyRequests(domain: string): Promise<number> {
  return (await control('GET', `/_control/shopify/${domain}/requests`)).body.requests as number;
}

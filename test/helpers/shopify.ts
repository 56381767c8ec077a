import { loadConfig } from '../../src/config';
import { connectShopify } from '../../src/db/platform-sessions-repository';
import type { Orm } from '../../src/db/orm';
import { randomToken } from '../../src/ids';
import { CostBuckets } from '../../src/platform/shopify/bucket';
import { ShopifyGraphqlClient } from '../../src/platform/shopify/graphql-client';
import { ShopifyPlatform } from '../../src/platform/shopify/shopify-platform';
import { control, sandboxUrl } from './sandbox';

/** The API version the fake serves and the service pins (SHOPIFY_API_VERSION's default). */
export const SHOPIFY_API_VERSION = loadConfig({}).shopify.apiVersion;

/** The jest project `integration-shopify` runs the store-facing suites with every test store on the fake Shopify. */
export const storesOnShopify = (): boolean => process.env.TEST_STORE_PLATFORM === 'shopify';

export const fakeShopifyAdminUrl = (): string => `${sandboxUrl()}/shopify/{shop}/admin/api/{version}/graphql.json`;

/** An offline access token the fake accepts for this shop from now on (as installing the app issues one). */
export async function anAccessToken(domain: string): Promise<string> {
  const token = `shpat_${randomToken(32)}`;
  const res = await control('PUT', `/_control/shopify/${domain}/session`, { access_token: token });
  if (res.status !== 200) throw new Error(`the fake Shopify refused the session: ${JSON.stringify(res.body)}`);
  return token;
}

/** Connects a store to the fake Shopify as `labelctl store connect --platform shopify` does. */
export async function connectToFakeShopify(orm: Orm, store: { storeId: string; domain: string }): Promise<string> {
  const token = await anAccessToken(store.domain);
  await connectShopify(orm.em.fork(), loadConfig(process.env).settingsEncryptionKey, {
    storeId: store.storeId,
    accessToken: token,
    now: new Date(),
  });
  return token;
}

/** The adapter on its own against the fake, with a token of its own (or none) and a time box. */
export function shopifyAdapter(token: string | null, timeoutMs = 5_000, buckets = new CostBuckets()) {
  const client = new ShopifyGraphqlClient(
    { adminUrl: fakeShopifyAdminUrl(), apiVersion: SHOPIFY_API_VERSION, timeoutMs },
    buckets,
  );
  return { client, platform: new ShopifyPlatform(client, () => Promise.resolve(token)) };
}

/** How many requests the fake Shopify has had for this shop. */
export async function fakeShopifyRequests(domain: string): Promise<number> {
  return (await control('GET', `/_control/shopify/${domain}/requests`)).body.requests as number;
}

import { createApiKey } from '../../src/access/api-keys';
import type { StoreGates } from '../../src/access/stores';
import { createStore } from '../../src/access/stores';
import type { Orm } from '../../src/db/orm';
import { randomToken } from '../../src/ids';
import { setLimitOverride } from '../../src/limits/overrides';
import { connectToFakeShopify, storesOnShopify } from './shopify';

export const OPEN_GATES: StoreGates = {
  appInstalled: true,
  apiEnabled: true,
  pausedBySupport: false,
  subscriptionActive: true,
  freeAccess: false,
  writeAccess: true,
};

/**
 * A store of its own for each test (tests run in parallel), open gates unless overridden, and one key. The spec's rate
 * limits apply unless `limits` overrides some (as support would, `labelctl limits set`). On the sandbox platform, or in
 * the jest project `integration-shopify` (or with `platform: 'shopify'`) connected to the fake Shopify, which serves
 * the same orders.
 */
export async function aStoreWithKey(
  orm: Orm,
  options: {
    gates?: Partial<StoreGates>;
    scopes?: string[];
    keyName?: string;
    limits?: Record<string, number>;
    platform?: 'sandbox' | 'shopify';
  } = {},
): Promise<{ storeId: string; domain: string; keyId: string; secret: string; auth: { authorization: string } }> {
  const em = orm.em.fork();
  const suffix = randomToken(8).toLowerCase();
  const store = await createStore(
    em,
    {
      name: `Test store ${suffix}`,
      domain: `test-${suffix}.myshopify.com`,
      email: `owner-${suffix}@example.com`,
      ...OPEN_GATES,
      ...options.gates,
    },
    new Date(),
  );
  const { key, secret } = await createApiKey(em, {
    storeId: store.id,
    name: options.keyName ?? 'test key',
    scopes: options.scopes ?? ['labels:print', 'labels:write', 'label_creations:resolve', 'pickup_points:assign'],
    now: new Date(),
  });
  for (const [bucket, limit] of Object.entries(options.limits ?? {}))
    await setLimitOverride(em, { storeId: store.id, bucket, limit, now: new Date() });
  if ((options.platform ?? (storesOnShopify() ? 'shopify' : 'sandbox')) === 'shopify')
    await connectToFakeShopify(orm, { storeId: store.id, domain: store.domain });
  return {
    storeId: store.id,
    domain: store.domain,
    keyId: key.id,
    secret,
    auth: { authorization: `Bearer ${secret}` },
  };
}

import { SandboxPlatformAdapter } from '../../src/platform/sandbox-adapter';
import { describePlatformPortContract } from '../helpers/platform-port-contract';
import { FAULT_TIMEOUT_MS, sandboxUrl } from '../helpers/sandbox';
import { anAccessToken, shopifyAdapter } from '../helpers/shopify';

// One contract, every store-platform adapter: the sandbox platform, and ShopifyPlatform on the fake Shopify (which
// executes the adapter's real GraphQL documents against Shopify's own Admin schema, with the scopes it documents).
describePlatformPortContract('sandbox platform', async () => ({
  port: new SandboxPlatformAdapter({ baseUrl: sandboxUrl(), timeoutMs: 5_000 }),
  impatient: new SandboxPlatformAdapter({ baseUrl: sandboxUrl(), timeoutMs: FAULT_TIMEOUT_MS }),
  exportHoldsShowAs: 'export',
}));

describePlatformPortContract('Shopify (Admin GraphQL API, on the fake)', async (domain) => {
  const token = await anAccessToken(domain);
  return {
    port: shopifyAdapter(token).platform,
    impatient: shopifyAdapter(token, FAULT_TIMEOUT_MS).platform,
    // Shopify says only that a hold is not this app's.
    exportHoldsShowAs: 'other',
  };
});

import { migrateNonExpiringTokens } from '../src/shopify-app/token-migration';
import type { ActivityDeps } from './deps';

/**
 * The hourly housekeeping's step for Shopify tokens (decision 0711): the public app's non-expiring tokens exchanged for
 * expiring ones, at most 100 stores a run (the next hour takes the rest). Nothing without the app's credentials.
 */
export async function migrateShopifyTokens(
  deps: ActivityDeps,
): Promise<{ migrated: number; left: number } | undefined> {
  if (!deps.shopifyApp) return undefined;
  const summary = await migrateNonExpiringTokens(
    { orm: deps.orm, settingsKey: deps.webhooks.settingsKey, endpoint: deps.shopifyApp, now: deps.now },
    100,
  );
  for (const s of summary.stores.filter((m) => m.outcome !== 'migrated' && m.outcome !== 'skipped'))
    deps.logger.warn(
      { store_id: s.store_id, shop: s.shop, outcome: s.outcome, reason: s.reason },
      'Shopify token not migrated',
    );
  return { migrated: summary.stores.filter((s) => s.outcome === 'migrated').length, left: summary.left };
}

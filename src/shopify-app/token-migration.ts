import type { Orm } from '../db/orm';
import {
  lockSession,
  markAccessLost,
  markCustomApp,
  sessionsToMigrate,
  storeIssuedTokens,
  countSessionsToMigrate,
} from '../db/shopify-tokens';
import { inTransaction } from '../db/transaction';
import { TokenEndpointError, type IssuedTokens } from '../platform/shopify/app';

/**
 * The public app's non-expiring offline tokens exchanged for expiring ones (decision 0711), by `labelctl store
 * migrate-tokens` and the hourly housekeeping: Shopify's library's `auth.migrateToExpiringToken` (token exchange with
 * `expiring=1`), one store at a time under the session's row lock (the refresh's lock, decision 0710).
 */

export interface MigrationEndpoint {
  migrateToken(shop: string, nonExpiringToken: string): Promise<IssuedTokens>;
}

export interface MigrationDeps {
  orm: Orm;
  settingsKey: Buffer;
  endpoint: MigrationEndpoint;
  now: () => Date;
}

export type StoreMigration =
  | 'migrated'
  /** Shopify would not exchange a token of unknown origin: a custom app's, left as it is from now on. */
  | 'custom_app'
  /** Shopify refused the public app's token: the store is access_required until the app is installed again. */
  | 'access_lost'
  /** Shopify's answer was lost or it did not answer: tried again on the next run. */
  | 'not_answered'
  /** Migrated or changed meanwhile by another process. */
  | 'skipped';

export interface MigrationSummary {
  stores: Array<{ store_id: string; shop: string; outcome: StoreMigration; reason?: string }>;
  /** Sessions still to migrate after this run. */
  left: number;
}

async function migrateOne(deps: MigrationDeps, storeId: string, shop: string) {
  return inTransaction(deps.orm, async (tx): Promise<{ outcome: StoreMigration; reason?: string }> => {
    const session = await lockSession(tx, deps.settingsKey, storeId);
    if (!session?.accessToken || session.refreshToken || session.accessLost || session.origin === 'custom_app')
      return { outcome: 'skipped' };
    try {
      const issued = await deps.endpoint.migrateToken(shop, session.accessToken);
      await storeIssuedTokens(tx, deps.settingsKey, {
        storeId,
        accessToken: issued.accessToken,
        tokens: issued.expiring,
        now: deps.now(),
      });
      return { outcome: 'migrated' };
    } catch (error) {
      if (!(error instanceof TokenEndpointError)) throw error;
      if (error.failure === 'lost') return { outcome: 'not_answered', reason: error.message };
      if (session.origin === null) {
        await markCustomApp(tx, storeId, deps.now());
        return { outcome: 'custom_app', reason: error.message };
      }
      const reason = `Shopify refused to exchange the app's non-expiring token for an expiring one (${error.oauthError ?? error.message}).`;
      await markAccessLost(tx, storeId, reason, deps.now());
      return { outcome: 'access_lost', reason };
    }
  });
}

/** Migrates up to `limit` sessions, one at a time; a store that fails does not stop the others. */
export async function migrateNonExpiringTokens(deps: MigrationDeps, limit = 500): Promise<MigrationSummary> {
  const candidates = await sessionsToMigrate(deps.orm.em.fork(), limit);
  const stores: MigrationSummary['stores'] = [];
  for (const { storeId, domain } of candidates) {
    const { outcome, reason } = await migrateOne(deps, storeId, domain);
    stores.push({ store_id: storeId, shop: domain, outcome, ...(reason ? { reason } : {}) });
  }
  return { stores, left: await countSessionsToMigrate(deps.orm.em.fork()) };
}

import { createStore } from '../access/stores';
import { connectShopify, type ExpiringTokens } from '../db/platform-sessions-repository';
import type { Orm } from '../db/orm';
import { inTransaction } from '../db/transaction';
import { missingScopes } from '../platform/shopify/scopes';

/**
 * A store connecting itself (docs/shopify.md, "Installing the app"; decision 0707): what an install and Shopify's
 * webhooks change in the service's records. The grant and the signatures are checked by the Shopify library at the
 * edge before anything here runs.
 */

export type InstallOutcome =
  | { kind: 'installed'; storeId: string; created: boolean; apiEnabled: boolean; scopes: string[] }
  | { kind: 'missing_scopes'; missing: string[] };

/**
 * The offline token Shopify just issued: refused, storing nothing, when the merchant granted less than the service
 * needs (as `labelctl store connect` refuses such a token); else the store is created (all gates closed but
 * `app_installed`) or found again by its domain, the session stored sealed with the granted scopes, and the store's
 * `app_installed` gate opened. `api_enabled`, the plan and write access stay the operator's: a reinstalled store finds
 * its keys and gates as they were.
 */
export async function recordInstall(
  orm: Orm,
  deps: {
    settingsKey: Buffer;
    now: () => Date;
    /** The shop's name and owner's e-mail, read with the new token (a store the install creates). */
    shopContact: (shop: string, accessToken: string) => Promise<{ name: string; email: string }>;
  },
  session: { shop: string; accessToken: string; scopes: string[]; expiring?: ExpiringTokens | null },
): Promise<InstallOutcome> {
  const missing = missingScopes(session.scopes);
  if (missing.length > 0) return { kind: 'missing_scopes', missing };
  const em = orm.em.fork();
  const [existing] = await em.execute<Array<{ id: string }>>('select id from stores where domain = ?', [session.shop]);
  let storeId = existing?.id;
  const created = !storeId;
  if (!storeId) {
    const contact = await deps.shopContact(session.shop, session.accessToken);
    storeId = (
      await createStore(
        em,
        { name: contact.name, domain: session.shop, email: contact.email, appInstalled: false },
        deps.now(),
      )
    ).id;
  }
  const now = deps.now();
  return inTransaction(orm, async (tx) => {
    await connectShopify(tx, deps.settingsKey, {
      storeId,
      accessToken: session.accessToken,
      grantedScopes: session.scopes,
      now,
      origin: 'app',
      expiring: session.expiring ?? null,
    });
    const [store] = await tx.execute<Array<{ api_enabled: boolean }>>(
      'update stores set app_installed = true, updated_at = ? where id = ? returning api_enabled',
      [now, storeId],
    );
    return { kind: 'installed', storeId, created, apiEnabled: store!.api_enabled, scopes: session.scopes };
  });
}

import type { EntityManager } from '@mikro-orm/postgresql';
import { openValue, sealValue } from '../crypto/sealed-values';

/**
 * Which store platform a store is on, and its session there (docs/decisions/0702-store-platform-sessions.md). No row:
 * the sandbox platform. A Shopify row holds the offline Admin API access token sealed under `SETTINGS_ENCRYPTION_KEY`
 * and bound to the store, or no token once disconnected.
 */
export type StorePlatform = 'sandbox' | 'shopify';

export interface PlatformSessionInfo {
  storeId: string;
  platform: StorePlatform;
  /** The token's last four characters, for operators; null without a token. */
  tokenEnding: string | null;
  connectedAt: Date | null;
  /** The scopes the installation held when last checked; null: never checked. */
  grantedScopes: string[] | null;
  scopesCheckedAt: Date | null;
}

/** Where a Shopify session's token came from: the public app's install, or a custom app's (`labelctl store connect`). */
export type TokenOrigin = 'app' | 'custom_app';

/** A Shopify session as an adapter uses it (decision 0710). */
export interface ShopifyConnection {
  platform: 'shopify';
  storeId: string;
  /** The access token if one is stored and opens under this key. */
  accessToken: string | null;
  /** When the access token expires; null: it does not (a custom app's, or one not migrated yet). */
  expiresAt: Date | null;
  /** Whether a refresh token is stored (an expiring session the service can refresh). */
  refreshable: boolean;
  /** Null: a session stored before origins were recorded. */
  origin: TokenOrigin | null;
  /** Why Shopify no longer accepts the app's tokens for this store (the merchant must install the app again). */
  accessLost: string | null;
}

/** What an adapter needs: the platform and, for Shopify, its session. */
export type PlatformConnection = { platform: 'sandbox' } | ShopifyConnection;

/** The expiring part of a session Shopify issued (absent for a non-expiring token). */
export interface ExpiringTokens {
  expiresAt: Date;
  refreshToken: string;
  refreshExpiresAt: Date | null;
}

export const sessionOwner = (storeId: string) => `store_platform_session:${storeId}`;
export const refreshOwner = (storeId: string) => `store_platform_session:${storeId}:refresh`;
const owner = sessionOwner;

/**
 * Connects the store to Shopify with this token (connecting again rotates it): a custom app's unless `origin` says the
 * public app's install, with its expiry and refresh token when Shopify issued an expiring one. A store whose access
 * the service found lost (decision 0710) gets its `app_installed` gate back: the merchant or operator connected anew.
 */
export async function connectShopify(
  em: EntityManager,
  key: Buffer,
  input: {
    storeId: string;
    accessToken: string;
    grantedScopes?: readonly string[];
    now: Date;
    origin?: TokenOrigin;
    expiring?: ExpiringTokens | null;
  },
): Promise<PlatformSessionInfo> {
  await em.execute(
    `update stores st set app_installed = true, updated_at = ?
      where st.id = ? and exists (
        select 1 from store_platform_sessions s where s.store_id = st.id and s.access_lost_at is not null)`,
    [input.now, input.storeId],
  );
  const expiring = input.expiring ?? null;
  await em.execute(
    `insert into store_platform_sessions (store_id, platform, access_token_sealed, token_ending, connected_at, updated_at,
         granted_scopes, scopes_checked_at, token_origin, access_token_expires_at, refresh_token_sealed,
         refresh_token_expires_at, access_lost_at, access_lost_reason)
       values (?, 'shopify', ?, ?, ?, ?, ?::text[], ?, ?, ?, ?, ?, null, null)
     on conflict (store_id) do update
       set platform = 'shopify', access_token_sealed = excluded.access_token_sealed,
           token_ending = excluded.token_ending, connected_at = excluded.connected_at, updated_at = excluded.updated_at,
           granted_scopes = excluded.granted_scopes, scopes_checked_at = excluded.scopes_checked_at,
           token_origin = excluded.token_origin, access_token_expires_at = excluded.access_token_expires_at,
           refresh_token_sealed = excluded.refresh_token_sealed,
           refresh_token_expires_at = excluded.refresh_token_expires_at, access_lost_at = null,
           access_lost_reason = null`,
    [
      input.storeId,
      sealValue(key, owner(input.storeId), input.accessToken),
      input.accessToken.slice(-4),
      input.now,
      input.now,
      input.grantedScopes ? `{${input.grantedScopes.join(',')}}` : null,
      input.grantedScopes ? input.now : null,
      input.origin ?? 'custom_app',
      expiring?.expiresAt ?? null,
      expiring ? sealValue(key, refreshOwner(input.storeId), expiring.refreshToken) : null,
      expiring?.refreshExpiresAt ?? null,
    ],
  );
  return sessionInfo(em, input.storeId);
}

/** The scopes the installation holds, as just read from Shopify (`labelctl store platform --check`). */
export async function recordGrantedScopes(
  em: EntityManager,
  input: { storeId: string; grantedScopes: readonly string[]; now: Date },
): Promise<PlatformSessionInfo> {
  await em.execute(
    `update store_platform_sessions set granted_scopes = ?::text[], scopes_checked_at = ? where store_id = ?`,
    [`{${input.grantedScopes.join(',')}}`, input.now, input.storeId],
  );
  return sessionInfo(em, input.storeId);
}

/** Back to the sandbox platform: the session and its token are deleted. */
export async function connectSandbox(em: EntityManager, storeId: string): Promise<PlatformSessionInfo> {
  await em.execute('delete from store_platform_sessions where store_id = ?', [storeId]);
  return sessionInfo(em, storeId);
}

/** The store stays on Shopify without a token (the app was uninstalled, the token revoked): `shopify_unavailable`. */
export async function disconnectShopify(em: EntityManager, storeId: string, now: Date): Promise<PlatformSessionInfo> {
  await em.execute(
    `update store_platform_sessions set access_token_sealed = null, token_ending = null, refresh_token_sealed = null,
            access_token_expires_at = null, refresh_token_expires_at = null, updated_at = ?
      where store_id = ?`,
    [now, storeId],
  );
  return sessionInfo(em, storeId);
}

/**
 * The app was uninstalled (Shopify's `app/uninstalled`): the token and the scopes it held are deleted; the store stays
 * on Shopify, so anything still calling it answers `shopify_unavailable` until the app is installed again.
 */
export async function removeShopifySession(em: EntityManager, storeId: string, now: Date): Promise<void> {
  await em.execute(
    `update store_platform_sessions set access_token_sealed = null, token_ending = null, granted_scopes = null,
            scopes_checked_at = null, refresh_token_sealed = null, access_token_expires_at = null,
            refresh_token_expires_at = null, updated_at = ?
      where store_id = ?`,
    [now, storeId],
  );
}

export async function sessionInfo(em: EntityManager, storeId: string): Promise<PlatformSessionInfo> {
  const rows = await em.execute<
    Array<{
      platform: 'shopify';
      token_ending: string | null;
      connected_at: Date | string;
      granted_scopes: string[] | null;
      scopes_checked_at: Date | string | null;
    }>
  >(
    `select platform, token_ending, connected_at, granted_scopes, scopes_checked_at
       from store_platform_sessions where store_id = ?`,
    [storeId],
  );
  const row = rows[0];
  return row
    ? {
        storeId,
        platform: row.platform,
        tokenEnding: row.token_ending,
        connectedAt: new Date(row.connected_at),
        grantedScopes: row.granted_scopes,
        scopesCheckedAt: row.scopes_checked_at ? new Date(row.scopes_checked_at) : null,
      }
    : {
        storeId,
        platform: 'sandbox',
        tokenEnding: null,
        connectedAt: null,
        grantedScopes: null,
        scopesCheckedAt: null,
      };
}

/** The platform of the store with this domain; a token that does not open (another key) counts as none. */
export async function platformConnection(em: EntityManager, key: Buffer, domain: string): Promise<PlatformConnection> {
  const rows = await em.execute<
    Array<{
      id: string;
      platform: 'shopify' | null;
      access_token_sealed: string | null;
      access_token_expires_at: Date | string | null;
      has_refresh: boolean | null;
      token_origin: TokenOrigin | null;
      access_lost_reason: string | null;
    }>
  >(
    `select st.id, s.platform, s.access_token_sealed, s.access_token_expires_at,
            s.refresh_token_sealed is not null as has_refresh, s.token_origin, s.access_lost_reason
       from stores st left join store_platform_sessions s on s.store_id = st.id
      where st.domain = ?`,
    [domain],
  );
  const row = rows[0];
  // A domain with no store (the sandbox's own tests) or a store without a session: the sandbox platform.
  if (!row || row.platform === null) return { platform: 'sandbox' };
  const accessToken = row.access_token_sealed ? openValue(key, owner(row.id), row.access_token_sealed) : null;
  return {
    platform: 'shopify',
    storeId: row.id,
    accessToken,
    expiresAt: row.access_token_expires_at ? new Date(row.access_token_expires_at) : null,
    refreshable: row.has_refresh === true,
    origin: row.token_origin,
    accessLost: row.access_lost_reason,
  };
}

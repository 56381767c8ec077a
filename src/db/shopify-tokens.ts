import type { EntityManager } from '@mikro-orm/postgresql';
import { openValue, sealValue } from '../crypto/sealed-values';
import { refreshOwner, sessionOwner, type ExpiringTokens, type TokenOrigin } from './platform-sessions-repository';

/**
 * The refresh side of a Shopify session (decisions 0710 and 0711): the row locked while one process refreshes its
 * tokens, the tokens Shopify issued stored sealed, a session whose access Shopify refused for good, and the
 * non-expiring sessions of the public app still to migrate.
 */

/** A session as read under its row lock: every token opened. */
export interface LockedSession {
  storeId: string;
  accessToken: string | null;
  expiresAt: Date | null;
  refreshToken: string | null;
  origin: TokenOrigin | null;
  accessLost: string | null;
}

type SessionRow = {
  store_id: string;
  access_token_sealed: string | null;
  access_token_expires_at: Date | string | null;
  refresh_token_sealed: string | null;
  token_origin: TokenOrigin | null;
  access_lost_reason: string | null;
};

/**
 * The store's Shopify session, its row locked until the transaction ends (`for update`): every process (API, worker,
 * labelctl) refreshing the same store's tokens waits here for the one that holds it, then reads what it stored. Plain
 * reads of the session (every platform call's) are not blocked. Null: no Shopify session.
 */
export async function lockSession(tx: EntityManager, key: Buffer, storeId: string): Promise<LockedSession | null> {
  const [row] = await tx.execute<SessionRow[]>(
    `select store_id, access_token_sealed, access_token_expires_at, refresh_token_sealed, token_origin,
            access_lost_reason
       from store_platform_sessions where store_id = ? and platform = 'shopify' for update`,
    [storeId],
  );
  if (!row) return null;
  return {
    storeId,
    accessToken: row.access_token_sealed ? openValue(key, sessionOwner(storeId), row.access_token_sealed) : null,
    expiresAt: row.access_token_expires_at ? new Date(row.access_token_expires_at) : null,
    refreshToken: row.refresh_token_sealed ? openValue(key, refreshOwner(storeId), row.refresh_token_sealed) : null,
    origin: row.token_origin,
    accessLost: row.access_lost_reason,
  };
}

/** The tokens Shopify just issued (a refresh or a migration), sealed in place of the old ones. */
export async function storeIssuedTokens(
  tx: EntityManager,
  key: Buffer,
  input: { storeId: string; accessToken: string; tokens: ExpiringTokens; now: Date },
): Promise<void> {
  await tx.execute(
    `update store_platform_sessions
        set access_token_sealed = ?, token_ending = ?, access_token_expires_at = ?, refresh_token_sealed = ?,
            refresh_token_expires_at = ?, token_origin = 'app', updated_at = ?
      where store_id = ?`,
    [
      sealValue(key, sessionOwner(input.storeId), input.accessToken),
      input.accessToken.slice(-4),
      input.tokens.expiresAt,
      sealValue(key, refreshOwner(input.storeId), input.tokens.refreshToken),
      input.tokens.refreshExpiresAt,
      input.now,
      input.storeId,
    ],
  );
}

/**
 * Shopify refused the app's tokens for good (a refresh token refused, a token invalidated): the tokens go, the reason
 * stays on the session, and the store's `app_installed` gate closes, so its keys answer 403 `access_required` until the
 * merchant installs the app again (which connects anew and opens the gate).
 */
export async function markAccessLost(tx: EntityManager, storeId: string, reason: string, now: Date): Promise<void> {
  await tx.execute(
    `update store_platform_sessions
        set access_token_sealed = null, token_ending = null, refresh_token_sealed = null,
            access_token_expires_at = null, refresh_token_expires_at = null, access_lost_at = ?,
            access_lost_reason = ?, updated_at = ?
      where store_id = ?`,
    [now, reason, now, storeId],
  );
  await tx.execute('update stores set app_installed = false, updated_at = ? where id = ?', [now, storeId]);
}

/** A session found to hold a custom app's token (Shopify refused to exchange it as the public app's): never tried again. */
export async function markCustomApp(em: EntityManager, storeId: string, now: Date): Promise<void> {
  await em.execute(
    `update store_platform_sessions set token_origin = 'custom_app', updated_at = ? where store_id = ?`,
    [now, storeId],
  );
}

/** Sessions that still hold a non-expiring token and may be the public app's: what the migration has left. */
const TO_MIGRATE = `s.platform = 'shopify' and s.access_token_sealed is not null and s.refresh_token_sealed is null
  and s.access_lost_at is null and (s.token_origin is null or s.token_origin = 'app')`;

export async function sessionsToMigrate(
  em: EntityManager,
  limit: number,
): Promise<Array<{ storeId: string; domain: string }>> {
  const rows = await em.execute<Array<{ store_id: string; domain: string }>>(
    `select s.store_id, st.domain from store_platform_sessions s join stores st on st.id = s.store_id
      where ${TO_MIGRATE} order by s.store_id limit ?`,
    [limit],
  );
  return rows.map((r) => ({ storeId: r.store_id, domain: r.domain }));
}

export async function countSessionsToMigrate(em: EntityManager): Promise<number> {
  const [row] = await em.execute<Array<{ n: string | number }>>(
    `select count(*) as n from store_platform_sessions s where ${TO_MIGRATE}`,
  );
  return Number(row?.n ?? 0);
}

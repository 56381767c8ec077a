import type { ShopifyConnection } from '../db/platform-sessions-repository';
import type { Orm } from '../db/orm';
import { lockSession, markAccessLost, storeIssuedTokens, type LockedSession } from '../db/shopify-tokens';
import { inTransaction, type Tx } from '../db/transaction';
import { PlatformAccessLostError, PlatformUnauthorizedError, PlatformUnavailableError } from '../platform/port';
import { TokenEndpointError, type IssuedTokens } from '../platform/shopify/app';
import { REFRESH_MARGIN_MS, refreshDue, unauthorizedMeaning } from '../platform/shopify/token-policy';
import type { SessionTokens } from '../platform/store-platforms';

/** Shopify's token endpoint as the refresh needs it (`ShopifyApp`, or none without SHOPIFY_API_KEY). */
export interface TokenEndpoint {
  refreshTokens(shop: string, refreshToken: string): Promise<IssuedTokens>;
}

/** What the refresh tells operators (a log line and a counter each). */
export interface TokenObserver {
  refreshed(shop: string, outcome: 'refreshed' | 'lost_answer' | 'refused' | 'joined'): void;
  accessLost(shop: string, reason: string): void;
}

export interface ShopifyTokensDeps {
  orm: Orm;
  settingsKey: Buffer;
  /** Null without the public app's credentials: nothing can be refreshed. */
  endpoint: TokenEndpoint | null;
  now: () => Date;
  /** How long before its expiry a token is refreshed (REFRESH_MARGIN_MS). */
  marginMs?: number;
  observer?: TokenObserver;
  /** How long a refresh waits for another process's refresh of the same store to finish. */
  lockTimeoutMs?: number;
}

type RefreshResult = { token: string } | { lost: string };

/**
 * The access token for each call to Shopify, refreshed when it expires within the margin and once after a 401
 * (decision 0710). One refresh per store at a time across every process: the session's row is locked (`for update`)
 * while Shopify is asked, and whoever waited reads the tokens it stored instead of refreshing again; within a process,
 * concurrent callers share the refresh in flight. A lost answer is asked again with the same refresh token (Shopify
 * keeps it valid until the new access token is first used); a refused refresh token marks the store's access lost.
 */
export class ShopifyTokens implements SessionTokens {
  private readonly inFlight = new Map<string, Promise<RefreshResult>>();

  constructor(private readonly deps: ShopifyTokensDeps) {}

  /** The token for a call now: the stored one, or a fresh one when it is due. */
  async tokenFor(connection: ShopifyConnection, shop: string, what: string): Promise<string | null> {
    if (connection.accessLost) throw new PlatformAccessLostError(what, connection.accessLost);
    const margin = this.deps.marginMs ?? REFRESH_MARGIN_MS;
    if (!connection.refreshable || !refreshDue(connection.expiresAt, this.deps.now(), margin))
      return connection.accessToken;
    return this.refreshed(connection.storeId, shop, what, connection.accessToken, false);
  }

  /**
   * Shopify answered 401 to `used`: a token to try once more (refreshed, or the one another process just stored), or
   * the error the call ends with.
   */
  async afterUnauthorized(
    connection: ShopifyConnection,
    shop: string,
    what: string,
    used: string | null,
    afterRefresh: boolean,
  ): Promise<string> {
    const meaning = unauthorizedMeaning({
      refreshable: connection.refreshable,
      origin: connection.origin,
      afterRefresh,
    });
    if (meaning === 'unavailable') throw new PlatformUnauthorizedError(what);
    if (meaning === 'access_lost') {
      const reason = afterRefresh
        ? 'Shopify refused the access token it had just issued.'
        : 'Shopify refused the non-expiring access token (invalidated from 2027-01-01, revoked, or the app uninstalled).';
      await this.loseAccess(connection.storeId, shop, reason);
      throw new PlatformAccessLostError(what, reason);
    }
    const token = await this.refreshed(connection.storeId, shop, what, used, true);
    if (!token) throw new PlatformUnauthorizedError(what);
    return token;
  }

  private async refreshed(
    storeId: string,
    shop: string,
    what: string,
    seen: string | null,
    force: boolean,
  ): Promise<string> {
    let pending = this.inFlight.get(storeId);
    if (!pending) {
      pending = this.refreshUnderLock(storeId, shop, seen, force).finally(() => this.inFlight.delete(storeId));
      this.inFlight.set(storeId, pending);
    } else this.deps.observer?.refreshed(shop, 'joined');
    const result = await pending;
    if ('lost' in result) throw new PlatformAccessLostError(what, result.lost);
    return result.token;
  }

  private async refreshUnderLock(
    storeId: string,
    shop: string,
    seen: string | null,
    force: boolean,
  ): Promise<RefreshResult> {
    const endpoint = this.deps.endpoint;
    const result = await inTransaction(this.deps.orm, async (tx): Promise<RefreshResult | null> => {
      await tx.execute(`set local lock_timeout = ${Math.round(this.deps.lockTimeoutMs ?? 30_000)}`);
      const session = await lockSession(tx, this.deps.settingsKey, storeId);
      if (!session) return null;
      if (session.accessLost) return { lost: session.accessLost };
      const margin = this.deps.marginMs ?? REFRESH_MARGIN_MS;
      // Another process (or an earlier refresh here) stored a new token meanwhile: use it.
      if (
        session.accessToken &&
        session.accessToken !== seen &&
        !refreshDue(session.expiresAt, this.deps.now(), margin)
      )
        return { token: session.accessToken };
      if (!force && session.accessToken && !refreshDue(session.expiresAt, this.deps.now(), margin))
        return { token: session.accessToken };
      // Nothing to refresh with here (no refresh token, or no app credentials in this process): a token not yet
      // expired may still serve the call; after a 401 there is nothing left to try.
      if (!session.refreshToken || !endpoint)
        return !force && session.accessToken ? { token: session.accessToken } : null;
      return this.askShopify(tx, endpoint, session, shop);
    });
    if (result) return result;
    throw new PlatformUnavailableError('access_token', false, null);
  }

  /** Shopify's refresh, asked again once with the same refresh token when its answer is lost. */
  private async askShopify(
    tx: Tx,
    endpoint: TokenEndpoint,
    session: LockedSession,
    shop: string,
  ): Promise<RefreshResult> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        const issued = await endpoint.refreshTokens(shop, session.refreshToken!);
        await storeIssuedTokens(tx, this.deps.settingsKey, {
          storeId: session.storeId,
          accessToken: issued.accessToken,
          tokens: issued.expiring,
          now: this.deps.now(),
        });
        this.deps.observer?.refreshed(shop, 'refreshed');
        return { token: issued.accessToken };
      } catch (error) {
        if (!(error instanceof TokenEndpointError)) throw error;
        if (error.failure === 'lost') {
          this.deps.observer?.refreshed(shop, 'lost_answer');
          if (attempt < 2) continue;
          throw new PlatformUnavailableError('access_token', false, null);
        }
        this.deps.observer?.refreshed(shop, 'refused');
        const reason = `Shopify refused the app's refresh token (${error.oauthError ?? error.message}).`;
        await markAccessLost(tx, session.storeId, reason, this.deps.now());
        this.deps.observer?.accessLost(shop, reason);
        return { lost: reason };
      }
    }
  }

  private async loseAccess(storeId: string, shop: string, reason: string): Promise<void> {
    await inTransaction(this.deps.orm, (tx) => markAccessLost(tx, storeId, reason, this.deps.now()));
    this.deps.observer?.accessLost(shop, reason);
  }
}

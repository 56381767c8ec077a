import '@shopify/shopify-api/adapters/node';
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  BotActivityDetected,
  CookieNotFound,
  HttpResponseError,
  InvalidHmacError,
  InvalidOAuthError,
  InvalidShopError,
  LogSeverity,
  shopifyApi,
  type ApiVersion,
  type Session,
  type Shopify,
} from '@shopify/shopify-api';
import { setAbstractFetchFunc } from '@shopify/shopify-api/runtime';
import { REQUIRED_SHOPIFY_SCOPES } from './scopes';
import { tokenEndpointFailure, type TokenEndpointFailure } from './token-policy';

/**
 * The public Shopify app through Shopify's own library, `@shopify/shopify-api` with its Node adapter (docs/shopify.md,
 * "Installing the app"; decision 0707): the authorization-code grant for an offline token (the `state` nonce in a
 * signed cookie, the callback's HMAC and timestamp, the shop domain), and the webhooks' HMAC over the raw body. No
 * cryptography of this service's own: the library decides what is genuine.
 */

/** Where Shopify sends the merchant back with the grant (`[auth] redirect_urls` of shopify.app.toml). */
export const SHOPIFY_CALLBACK_PATH = '/shopify/callback';

export interface ShopifyAppSettings {
  apiKey: string;
  apiSecret: string;
  /** Scheme, host and port of this service as Shopify and merchants reach it. */
  appUrl: string;
  /** A shop's origin with `{shop}`: `https://{shop}` in production, the fake Shopify in tests. */
  shopUrl: string;
  apiVersion: string;
  timeoutMs: number;
}

/** Why an install or a webhook was refused; the edge answers each with the spec's error body. */
export type ShopifyRefusal =
  /** Not a shop domain Shopify issues (`*.myshopify.com`). */
  | 'invalid_shop'
  /** The callback's HMAC, timestamp or `state` does not hold, or its cookie is missing: not this browser's install. */
  | 'invalid_callback'
  /** A crawler, refused by the library. */
  | 'bot'
  /** Shopify refused the code (used, expired or for another app). */
  | 'code_refused'
  /** Shopify did not answer the token exchange usably. */
  | 'shopify_unavailable';

export class ShopifyAppRefusal extends Error {
  constructor(
    readonly reason: ShopifyRefusal,
    message: string,
  ) {
    super(message);
    this.name = 'ShopifyAppRefusal';
  }
}

export interface InstalledSession {
  shop: string;
  accessToken: string;
  /** What the merchant granted, as Shopify reported it with the token. */
  scopes: string[];
  /** The expiring part Shopify issued with it (decision 0710); null for a non-expiring token. */
  expiring: IssuedExpiry | null;
}

/** When an expiring access token expires, and its refresh token with its own expiry. */
export interface IssuedExpiry {
  expiresAt: Date;
  refreshToken: string;
  refreshExpiresAt: Date | null;
}

/** Tokens the token endpoint issued on a refresh or a migration. */
export interface IssuedTokens {
  accessToken: string;
  expiring: IssuedExpiry;
}

/** The token endpoint did not issue tokens: refused for good, or the answer lost (decision 0710). */
export class TokenEndpointError extends Error {
  override readonly name = 'TokenEndpointError';
  constructor(
    readonly failure: TokenEndpointFailure,
    /** Shopify's `error` (`invalid_grant`, ...) when it said one. */
    readonly oauthError: string | null,
    message: string,
  ) {
    super(message);
  }
}

export type VerifiedWebhook =
  | {
      valid: true;
      topic: string;
      shop: string;
      webhookId: string;
      /** `X-Shopify-Event-Id`: the same for every delivery of one event (decision 0718); null when absent. */
      eventId: string | null;
      apiVersion: string;
      triggeredAt: string | null;
    }
  | { valid: false; reason: string };

type Log = (level: 'debug' | 'info' | 'warn' | 'error', message: string) => void;

const LEVELS: Record<LogSeverity, 'debug' | 'info' | 'warn' | 'error'> = {
  [LogSeverity.Debug]: 'debug',
  [LogSeverity.Info]: 'info',
  [LogSeverity.Warning]: 'warn',
  [LogSeverity.Error]: 'error',
};

/**
 * The library calls `https://<shop>/admin/oauth/access_token` with the runtime's fetch; this points it at the
 * configured shop origin (the fake Shopify in tests) and bounds it by the Admin API's time box. Production keeps
 * `https://{shop}`, so nothing is rewritten there.
 */
function installFetch(shopUrl: string, timeoutMs: number): void {
  setAbstractFetchFunc(async (input, init) => {
    const url = String(input instanceof Request ? input.url : input);
    const match = /^https:\/\/([^/]+)(\/.*)?$/.exec(url);
    const target = match ? `${shopUrl.replace('{shop}', match[1]!)}${match[2] ?? ''}` : url;
    return fetch(target, { ...init, signal: init?.signal ?? AbortSignal.timeout(timeoutMs) });
  });
}

export class ShopifyApp {
  private readonly api: Shopify;

  constructor(
    private readonly settings: ShopifyAppSettings,
    log: Log,
  ) {
    this.api = shopifyApi({
      apiKey: settings.apiKey,
      apiSecretKey: settings.apiSecret,
      scopes: [...REQUIRED_SHOPIFY_SCOPES],
      hostName: new URL(settings.appUrl).host,
      hostScheme: new URL(settings.appUrl).protocol === 'http:' ? 'http' : 'https',
      apiVersion: settings.apiVersion as ApiVersion,
      isEmbeddedApp: false,
      // The library's own session cookie (unused here) stays on the app's paths.
      cookiePath: '/shopify',
      logger: {
        level: LogSeverity.Info,
        log: (severity, message) => log(LEVELS[severity], `shopify-api: ${message}`),
      },
    });
    installFetch(settings.shopUrl, settings.timeoutMs);
  }

  /** The shop domain Shopify issues, normalized; null for anything else. */
  sanitizeShop(shop: unknown): string | null {
    return typeof shop === 'string' ? this.api.utils.sanitizeShop(shop, false) : null;
  }

  /**
   * Whether a query Shopify signed (the app launched from the admin: `shop`, `timestamp`, `hmac`, ...) is genuine and
   * fresh; a query without `hmac` is not Shopify's (a merchant typed the install URL).
   */
  async signedByShopify(query: Record<string, string>): Promise<boolean> {
    if (!query.hmac) return false;
    try {
      return await this.api.utils.validateHmac(query);
    } catch (error) {
      if (error instanceof InvalidHmacError) return false;
      throw error;
    }
  }

  /**
   * Starts the grant: a 302 to the shop's authorize page asking for the required scopes and an offline token, with
   * the `state` nonce in a signed cookie scoped to the callback. The Node adapter writes the answer to `res` itself.
   */
  async beginInstall(shop: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      await this.api.auth.begin({
        shop,
        callbackPath: SHOPIFY_CALLBACK_PATH,
        isOnline: false,
        rawRequest: req,
        rawResponse: res,
      });
    } catch (error) {
      if (error instanceof InvalidShopError) throw new ShopifyAppRefusal('invalid_shop', 'not a Shopify shop domain');
      throw error;
    }
  }

  /**
   * Completes the grant: the library checks the callback's HMAC and timestamp, its `state` against the cookie and the
   * shop, then exchanges the code for the offline token. The cookies it sets or clears are on `res`.
   */
  async completeInstall(req: IncomingMessage, res: ServerResponse): Promise<InstalledSession> {
    try {
      // An expiring offline token with its refresh token: Shopify requires them of public apps (decision 0710).
      const { session } = await this.api.auth.callback({ rawRequest: req, rawResponse: res, expiring: true });
      if (!session.accessToken) throw new ShopifyAppRefusal('shopify_unavailable', 'Shopify issued no access token');
      return {
        shop: session.shop,
        accessToken: session.accessToken,
        scopes: (session.scope ?? '')
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean),
        expiring: expiryOf(session),
      };
    } catch (error) {
      throw callbackRefusal(error);
    }
  }

  /**
   * New tokens for a refresh token (the library's `auth.refreshToken`: `grant_type=refresh_token` at the shop's token
   * endpoint). Shopify replaces the refresh token on every use.
   */
  async refreshTokens(shop: string, refreshToken: string): Promise<IssuedTokens> {
    return issued(await tokenCall(() => this.api.auth.refreshToken({ shop, refreshToken })));
  }

  /**
   * An expiring token for the public app's non-expiring one (the library's `auth.migrateToExpiringToken`: token
   * exchange with `expiring=1`); Shopify revokes the non-expiring token when it issues the new one.
   */
  async migrateToken(shop: string, nonExpiringToken: string): Promise<IssuedTokens> {
    return issued(
      await tokenCall(() =>
        this.api.auth.migrateToExpiringToken({ shop, nonExpiringOfflineAccessToken: nonExpiringToken }),
      ),
    );
  }

  /** The library's check of a webhook: HMAC over the exact bytes received, and Shopify's headers. */
  async verifyWebhook(rawBody: string, req: IncomingMessage, res: ServerResponse): Promise<VerifiedWebhook> {
    const result = await this.api.webhooks.validate({ rawBody, rawRequest: req, rawResponse: res });
    if (!result.valid) return { valid: false, reason: result.reason };
    return {
      valid: true,
      topic: result.topic,
      shop: result.domain,
      webhookId: result.webhookId,
      eventId: 'eventId' in result && typeof result.eventId === 'string' && result.eventId ? result.eventId : null,
      apiVersion: result.apiVersion,
      triggeredAt: 'triggeredAt' in result && typeof result.triggeredAt === 'string' ? result.triggeredAt : null,
    };
  }
}

function expiryOf(session: Session): IssuedExpiry | null {
  if (!session.expires || !session.refreshToken) return null;
  return {
    expiresAt: session.expires,
    refreshToken: session.refreshToken,
    refreshExpiresAt: session.refreshTokenExpires ?? null,
  };
}

function issued({ session }: { session: Session }): IssuedTokens {
  const expiring = expiryOf(session);
  if (!session.accessToken || !expiring)
    throw new TokenEndpointError('lost', null, 'Shopify answered without an expiring access token and refresh token');
  return { accessToken: session.accessToken, expiring };
}

/** A token endpoint call, its failures classified: a 4xx refused for good, anything else a lost answer. */
async function tokenCall<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof HttpResponseError) {
      const response = error.response as { code: number; body?: { error?: unknown; errors?: unknown } };
      const oauth = typeof response.body?.error === 'string' ? response.body.error : null;
      throw new TokenEndpointError(
        tokenEndpointFailure(response.code),
        oauth,
        `Shopify's token endpoint answered HTTP ${response.code}${oauth ? ` (${oauth})` : ''}`,
      );
    }
    // By name: fetch's errors come from Node's own realm, not necessarily this one's classes.
    const { name, message } = (error ?? {}) as { name?: unknown; message?: unknown };
    if (name === 'TimeoutError' || name === 'AbortError' || name === 'TypeError')
      throw new TokenEndpointError('lost', null, `Shopify's token endpoint did not answer: ${String(message)}`);
    if (name === 'SyntaxError')
      throw new TokenEndpointError('lost', null, `Shopify's token endpoint answered no JSON: ${String(message)}`);
    throw error;
  }
}

function callbackRefusal(error: unknown): unknown {
  if (error instanceof ShopifyAppRefusal) return error;
  if (error instanceof InvalidShopError) return new ShopifyAppRefusal('invalid_shop', 'not a Shopify shop domain');
  if (error instanceof CookieNotFound || error instanceof InvalidOAuthError || error instanceof InvalidHmacError)
    return new ShopifyAppRefusal('invalid_callback', error.message);
  if (error instanceof BotActivityDetected) return new ShopifyAppRefusal('bot', error.message);
  if (error instanceof HttpResponseError) {
    const status = (error.response as { code: number }).code;
    return status >= 400 && status < 500
      ? new ShopifyAppRefusal('code_refused', `Shopify refused the code (HTTP ${status})`)
      : new ShopifyAppRefusal('shopify_unavailable', `Shopify answered HTTP ${status}`);
  }
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError' || isNetwork(error)))
    return new ShopifyAppRefusal('shopify_unavailable', `Shopify did not answer: ${error.message}`);
  return error;
}

const isNetwork = (error: Error) => error instanceof TypeError && /fetch failed/.test(error.message);

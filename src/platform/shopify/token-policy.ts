/**
 * When the service refreshes a Shopify access token and what Shopify's refusals mean (decision 0710): pure decisions,
 * the I/O is `ShopifyTokens`'.
 */

/** How long before its expiry an access token is refreshed: Shopify asks for "a few minutes" before. */
export const REFRESH_MARGIN_MS = 5 * 60_000;

/** Whether a token expiring at `expiresAt` (null: never) is due for a refresh before a call at `now`. */
export function refreshDue(expiresAt: Date | null, now: Date, marginMs: number = REFRESH_MARGIN_MS): boolean {
  return expiresAt !== null && expiresAt.getTime() - now.getTime() <= marginMs;
}

/** A session as the 401 finds it. */
export interface UnauthorizedContext {
  /** The session holds a refresh token (an expiring token of the public app). */
  refreshable: boolean;
  /** Where the token came from; null: not known (stored before origins were recorded). */
  origin: 'app' | 'custom_app' | null;
  /** The 401 answered a call made with a token refreshed for it: refreshing again would not help. */
  afterRefresh: boolean;
}

/**
 * What a 401 from the Admin API means. Shopify answers every unusable token the same way (`Invalid API key or access
 * token`), so the session says which it is: an expiring token is refreshed once and the call made again; a 401 to a
 * token refreshed for the call, or to the public app's non-expiring token (invalidated from 2027-01-01, or the app
 * uninstalled), is access lost: the store is `access_required` until the merchant installs the app again. A custom
 * app's token (or one of unknown origin) stays as it always was: the platform unavailable, retried by its caller.
 */
export type UnauthorizedMeaning = 'refresh' | 'access_lost' | 'unavailable';

export function unauthorizedMeaning(context: UnauthorizedContext): UnauthorizedMeaning {
  if (context.afterRefresh) return 'access_lost';
  if (context.refreshable) return 'refresh';
  return context.origin === 'custom_app' ? 'unavailable' : 'access_lost';
}

/** A token endpoint answer that was not tokens: refused for good, or lost on the way (answer it again). */
export type TokenEndpointFailure = 'refused' | 'lost';

/**
 * Shopify's token endpoint refuses a grant with a 4xx (`invalid_grant` for a refresh token used, expired or revoked;
 * `invalid_client`, `invalid_request`): refused, nothing a retry fixes. A 429, a 5xx, a timeout or a broken connection
 * is a lost answer: Shopify may have issued tokens the service never saw, and since 2026-08 it keeps the refresh token
 * just used valid until the new access token is first used, so the same refresh token is sent again.
 */
export function tokenEndpointFailure(status: number | null): TokenEndpointFailure {
  if (status === null || status === 429 || status >= 500) return 'lost';
  return status >= 400 ? 'refused' : 'lost';
}

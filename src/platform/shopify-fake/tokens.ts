import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { BadRequest, json, type Reply, type Router } from '../../sandbox/http';
import type { ShopState } from './shop-state';

/**
 * The fake Shopify's offline access tokens as Shopify documents them (docs/shopify.md, "The fake Shopify"; decision
 * 0710): an install asking `expiring=1` gets a token that lasts 60 minutes with a refresh token (90 days); a refresh
 * (`grant_type=refresh_token`) replaces both, and the refresh token used stays valid only until the new access token
 * is first used (Shopify's resilient refreshes, 2026-08); the library's migration (token exchange with `expiring=1`)
 * swaps the public app's non-expiring token for an expiring pair and revokes it; and from the cut-over (2027-01-01
 * unless a test sets it) the public app's non-expiring tokens are refused. Custom apps' tokens (set with
 * `PUT /_control/shopify/{shop}/session`) never expire. Each shop has its own clock offset, lifetimes and cut-over, so
 * tests run side by side and none depends on today's date.
 */

const HOUR_MS = 60 * 60_000;
const DEFAULT_REFRESH_TTL_MS = 90 * 24 * HOUR_MS;
const DEFAULT_CUTOVER = Date.parse('2027-01-01T00:00:00Z');
const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const OFFLINE_TOKEN_TYPE = 'urn:shopify:params:oauth:token-type:offline-access-token';

interface Expiring {
  token: string;
  expiresAt: number;
}

interface ShopTokens {
  clientId: string | null;
  accessTtlMs: number;
  refreshTtlMs: number;
  clockOffsetMs: number;
  cutover: number;
  /** The public app's non-expiring token (an install without `expiring=1`). */
  nonExpiring: string | null;
  /** Expiring access tokens issued, each valid until its expiry. */
  access: Map<string, number>;
  current: string | null;
  refresh: Expiring | null;
  /** The refresh token used last: still valid until `current` is first used. */
  previousRefresh: Expiring | null;
  /** The next token request's answer is lost after Shopify acted on it. */
  loseAnswers: number;
  requests: Array<{ grant_type: string; refresh_token_ending: string | null; outcome: string }>;
}

const oauthError = (status: number, error: string, description: string): Reply =>
  json(status, { error, error_description: description });

const newToken = (prefix: string) => `${prefix}${randomBytes(16).toString('hex')}`;

export class FakeTokens {
  private readonly shops = new Map<string, ShopTokens>();

  private of(domain: string): ShopTokens {
    let t = this.shops.get(domain);
    if (!t) {
      t = {
        clientId: null,
        accessTtlMs: HOUR_MS,
        refreshTtlMs: DEFAULT_REFRESH_TTL_MS,
        clockOffsetMs: 0,
        cutover: DEFAULT_CUTOVER,
        nonExpiring: null,
        access: new Map(),
        current: null,
        refresh: null,
        previousRefresh: null,
        loseAnswers: 0,
        requests: [],
      };
      this.shops.set(domain, t);
    }
    return t;
  }

  private now(t: ShopTokens): number {
    return Date.now() + t.clockOffsetMs;
  }

  /** Whether an Admin API request with `token` is let through (else Shopify's 401). */
  admits(domain: string, s: ShopState, token: string | string[] | undefined): boolean {
    if (typeof token !== 'string') return false;
    const t = this.of(domain);
    if (s.accessToken !== null && token === s.accessToken)
      return !(token === t.nonExpiring && this.now(t) >= t.cutover);
    const expiresAt = t.access.get(token);
    if (expiresAt === undefined || this.now(t) >= expiresAt) return false;
    // The new access token's first use ends the grace of the refresh token that got it.
    if (token === t.current) t.previousRefresh = null;
    return true;
  }

  /** The code's exchange at install: an expiring pair when asked (`expiring=1`), else a non-expiring token. */
  install(domain: string, s: ShopState, clientId: string, scopes: readonly string[], expiring: boolean): Reply {
    const t = this.of(domain);
    this.forget(domain);
    t.clientId = clientId;
    if (!expiring) {
      s.accessToken = newToken('shpat_');
      t.nonExpiring = s.accessToken;
      return json(200, { access_token: s.accessToken, scope: scopes.join(',') });
    }
    s.accessToken = null;
    return json(200, this.issue(t, scopes));
  }

  /** The app was uninstalled: every token of the shop stops working. */
  forget(domain: string): void {
    const t = this.of(domain);
    t.nonExpiring = null;
    t.access.clear();
    t.current = null;
    t.refresh = null;
    t.previousRefresh = null;
  }

  private issue(t: ShopTokens, scopes: readonly string[]) {
    const now = this.now(t);
    const access = newToken('shpat_');
    t.access.set(access, now + t.accessTtlMs);
    t.current = access;
    t.refresh = { token: newToken('shprt_'), expiresAt: now + t.refreshTtlMs };
    return {
      access_token: access,
      scope: scopes.join(','),
      expires_in: Math.round(t.accessTtlMs / 1000),
      refresh_token: t.refresh.token,
      refresh_token_expires_in: Math.round(t.refreshTtlMs / 1000),
    };
  }

  /** The token endpoint's refresh and migration grants; null for any other body (the code exchange). */
  grant(domain: string, s: ShopState, clientId: string, body: Record<string, unknown>): Reply | null {
    const grantType = typeof body.grant_type === 'string' ? body.grant_type : null;
    if (grantType !== 'refresh_token' && grantType !== TOKEN_EXCHANGE) return null;
    const t = this.of(domain);
    const used = typeof body.refresh_token === 'string' ? body.refresh_token : null;
    const answer =
      grantType === 'refresh_token' ? this.refreshGrant(t, s, clientId, used) : this.exchange(t, s, clientId, body);
    t.requests.push({
      grant_type: grantType,
      refresh_token_ending: used ? used.slice(-4) : null,
      outcome: answer.kind === 'json' && answer.status === 200 ? 'issued' : 'refused',
    });
    if (answer.kind === 'json' && answer.status === 200 && t.loseAnswers > 0) {
      t.loseAnswers -= 1;
      t.requests[t.requests.length - 1]!.outcome = 'issued_answer_lost';
      return { kind: 'drop', afterMs: 0 };
    }
    return answer;
  }

  private refreshGrant(t: ShopTokens, s: ShopState, clientId: string, used: string | null): Reply {
    const now = this.now(t);
    const valid = (r: Expiring | null) => r !== null && r.token === used && r.expiresAt > now;
    if (t.clientId !== clientId || !(valid(t.refresh) || valid(t.previousRefresh)))
      return oauthError(400, 'invalid_grant', 'The refresh token is invalid, expired or revoked.');
    if (valid(t.refresh)) t.previousRefresh = t.refresh;
    return json(200, this.issue(t, s.grants.scopes));
  }

  private exchange(t: ShopTokens, s: ShopState, clientId: string, body: Record<string, unknown>): Reply {
    const subject = body.subject_token;
    if (body.subject_token_type !== OFFLINE_TOKEN_TYPE || body.requested_token_type !== OFFLINE_TOKEN_TYPE)
      return oauthError(400, 'invalid_request', 'Unsupported token types.');
    if (body.expiring !== '1') return oauthError(400, 'invalid_request', 'Only expiring tokens can be requested.');
    if (
      t.clientId !== clientId ||
      typeof subject !== 'string' ||
      subject !== t.nonExpiring ||
      subject !== s.accessToken ||
      this.now(t) >= t.cutover
    )
      return oauthError(400, 'invalid_subject_token', 'The subject token is invalid.');
    // The non-expiring token is revoked once its expiring replacement is issued.
    t.nonExpiring = null;
    s.accessToken = null;
    return json(200, this.issue(t, s.grants.scopes));
  }

  /** Tests' controls: the shop's clock, lifetimes and cut-over, a revoked refresh token, a lost answer, the requests. */
  registerControl(router: Router, shop: (domain: string) => ShopState): void {
    const control = '/_control/shopify/:shop/tokens';
    // An install from before expiring tokens: the public app's non-expiring offline token, as Shopify issued it then.
    router.add('POST', `${control}/non-expiring-install`, async (request) => {
      const parsed = z
        .object({ client_id: z.string().min(1) })
        .strict()
        .safeParse(request.body);
      if (!parsed.success) throw new BadRequest('control body is invalid', parsed.error.issues);
      const domain = request.params.shop!;
      const s = shop(domain);
      s.installedApp = parsed.data.client_id;
      return this.install(domain, s, parsed.data.client_id, s.grants.scopes, false);
    });
    router.add('PUT', control, async (request) => {
      const parsed = controlSchema.safeParse(request.body);
      if (!parsed.success) throw new BadRequest('control body is invalid', parsed.error.issues);
      const t = this.of(request.params.shop!);
      const b = parsed.data;
      if (b.access_token_seconds !== undefined) t.accessTtlMs = b.access_token_seconds * 1000;
      if (b.refresh_token_seconds !== undefined) t.refreshTtlMs = b.refresh_token_seconds * 1000;
      if (b.advance_clock_seconds !== undefined) t.clockOffsetMs += b.advance_clock_seconds * 1000;
      if (b.non_expiring_cutover !== undefined) t.cutover = Date.parse(b.non_expiring_cutover);
      if (b.revoke_refresh_token) {
        t.refresh = null;
        t.previousRefresh = null;
      }
      if (b.lose_next_answers !== undefined) t.loseAnswers = b.lose_next_answers;
      return json(200, this.describe(request.params.shop!));
    });
    router.add('GET', control, async (request) => json(200, this.describe(request.params.shop!)));
  }

  private describe(domain: string) {
    const t = this.of(domain);
    return {
      shop: domain,
      now: new Date(this.now(t)).toISOString(),
      access_token_seconds: t.accessTtlMs / 1000,
      refresh_token_seconds: t.refreshTtlMs / 1000,
      non_expiring_cutover: new Date(t.cutover).toISOString(),
      non_expiring: t.nonExpiring !== null,
      expiring: t.current !== null,
      requests: t.requests,
    };
  }
}

const controlSchema = z
  .object({
    access_token_seconds: z.number().int().min(1).optional(),
    refresh_token_seconds: z.number().int().min(1).optional(),
    advance_clock_seconds: z.number().int().min(0).optional(),
    non_expiring_cutover: z.string().datetime().optional(),
    revoke_refresh_token: z.boolean().optional(),
    lose_next_answers: z.number().int().min(0).optional(),
  })
  .strict();

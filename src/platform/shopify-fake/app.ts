import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { z } from 'zod';
import { BadRequest, json, type Reply, type Router } from '../../sandbox/http';
import type { ShopState } from './shop-state';
import type { FakeTokens } from './tokens';

/**
 * The fake Shopify's side of a public app (docs/shopify.md, "The fake Shopify"): the app as `shopify app deploy`
 * configures it from shopify.app.toml (client ID and secret, redirect URLs, scopes, webhook subscriptions), the
 * authorization-code grant as Shopify runs it (the authorize page approves at once and redirects back with a code and
 * a query signed by Shopify's rule; the code is exchanged once, within a minute, with the app's secret for an offline
 * token, which opens the shop's Admin API on the fake), and webhooks sent and signed as Shopify sends them (HMAC-SHA256
 * of the body with the app's secret, base64, in `X-Shopify-Hmac-Sha256`; a resend keeps its `X-Shopify-Webhook-Id`).
 */

interface FakeApp {
  clientId: string;
  clientSecret: string;
  redirectUrls: string[];
  webhookApiVersion: string;
  subscriptions: Array<{ topics: string[]; uri: string }>;
}

interface Grant {
  clientId: string;
  shop: string;
  scopes: string[];
  expiresAt: number;
}

interface SentWebhook {
  id: string;
  shop: string;
  clientId: string;
  topic: string;
  uri: string;
  body: string;
  headers: Record<string, string>;
}

/** How long Shopify's authorization code can be exchanged. */
const CODE_TTL_MS = 60_000;
const WEBHOOK_TIMEOUT_MS = 5_000;

const appSchema = z
  .object({
    client_secret: z.string().min(1),
    application_url: z.string().url(),
    redirect_urls: z.array(z.string().url()).min(1),
    webhooks: z
      .object({
        api_version: z.string(),
        subscriptions: z.array(z.object({ topics: z.array(z.string()).min(1), uri: z.string().min(1) }).strict()),
      })
      .strict(),
  })
  .strict();

/** Shopify's signature of a query it sends an app: HMAC-SHA256 (hex) of the other parameters sorted, `&`-joined. */
export function signQuery(params: Record<string, string>, secret: string): string {
  const query = new URLSearchParams();
  for (const key of Object.keys(params).sort((a, b) => a.localeCompare(b))) query.append(key, params[key]!);
  return createHmac('sha256', secret).update(query.toString().replace(/\+/g, '%20')).digest('hex');
}

/** Shopify's webhook signature: HMAC-SHA256 of the exact body with the app's secret, base64. */
export const signWebhook = (body: string, secret: string): string =>
  createHmac('sha256', secret).update(body, 'utf8').digest('base64');

function parse<T>(schema: z.ZodType<T>, body: unknown): T {
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw new BadRequest('control body is invalid', parsed.error.issues);
  return parsed.data;
}

const oauthError = (status: number, error: string, description: string): Reply =>
  json(status, { error, error_description: description });

export function registerShopifyAppFake(router: Router, shop: (domain: string) => ShopState, tokens: FakeTokens): void {
  const apps = new Map<string, FakeApp>();
  registerInstall(router, shop, apps, tokens);
  registerWebhooks(router, shop, apps, tokens);
}

/** The app's deployed configuration and its install: the authorize page and the code's exchange for a token. */
function registerInstall(
  router: Router,
  shop: (domain: string) => ShopState,
  apps: Map<string, FakeApp>,
  tokens: FakeTokens,
): void {
  const grants = new Map<string, Grant>();
  /** Scopes a merchant declines on the authorize page of a shop (tests of an install lacking a scope). */
  const declined = new Map<string, string[]>();

  // `shopify app deploy`: the app's configuration, relative webhook URIs resolved against its application URL.
  router.add('PUT', '/_control/shopify-apps/:client_id', async (request) => {
    const body = parse(appSchema, request.body);
    const app: FakeApp = {
      clientId: request.params.client_id!,
      clientSecret: body.client_secret,
      redirectUrls: body.redirect_urls,
      webhookApiVersion: body.webhooks.api_version,
      subscriptions: body.webhooks.subscriptions.map((s) => ({
        topics: s.topics,
        uri: new URL(s.uri, body.application_url).toString(),
      })),
    };
    apps.set(app.clientId, app);
    return json(200, { client_id: app.clientId, subscriptions: app.subscriptions });
  });

  router.add('PUT', '/_control/shopify/:shop/declined-scopes', async (request) => {
    const body = parse(z.object({ scopes: z.array(z.string()) }).strict(), request.body);
    declined.set(request.params.shop!, body.scopes);
    return json(200, { shop: request.params.shop, declined: body.scopes });
  });

  // The merchant's browser at the shop's authorize page: Shopify checks the app and its redirect URL, the merchant
  // approves, and the browser goes back to the app with a code and Shopify's signed query.
  router.add('GET', '/shopify/:shop/admin/oauth/authorize', async (request) => {
    const domain = request.params.shop!;
    const app = apps.get(request.query.get('client_id') ?? '');
    if (!app) return oauthError(400, 'invalid_request', 'Oauth error invalid_request: The client_id is not valid');
    const redirectUri = request.query.get('redirect_uri') ?? '';
    if (!app.redirectUrls.includes(redirectUri))
      return oauthError(400, 'invalid_request', 'Oauth error invalid_request: The redirect_uri is not whitelisted');
    const asked = (request.query.get('scope') ?? '').split(',').filter(Boolean);
    const refused = declined.get(domain) ?? [];
    const code = randomBytes(16).toString('hex');
    grants.set(code, {
      clientId: app.clientId,
      shop: domain,
      scopes: asked.filter((s) => !refused.includes(s)),
      expiresAt: Date.now() + CODE_TTL_MS,
    });
    const params: Record<string, string> = {
      code,
      host: Buffer.from(`admin.shopify.com/store/${domain.split('.')[0]}`).toString('base64'),
      shop: domain,
      state: request.query.get('state') ?? '',
      timestamp: String(Math.floor(Date.now() / 1000)),
    };
    const location = new URL(redirectUri);
    for (const [key, value] of Object.entries(params)) location.searchParams.set(key, value);
    location.searchParams.set('hmac', signQuery(params, app.clientSecret));
    return { kind: 'raw', status: 302, contentType: 'text/html', body: '', headers: { location: location.toString() } };
  });

  // The app's server exchanges the code: once, within a minute, with the app's own secret. The same endpoint refreshes
  // and migrates tokens (./tokens.ts).
  router.add('POST', '/shopify/:shop/admin/oauth/access_token', async (request) => {
    const domain = request.params.shop!;
    const body = (request.body ?? {}) as Record<string, unknown>;
    const code = typeof body.code === 'string' ? body.code : '';
    const app = apps.get(typeof body.client_id === 'string' ? body.client_id : '');
    if (!app || body.client_secret !== app.clientSecret)
      return oauthError(400, 'invalid_client', 'Client authentication failed');
    const granted = tokens.grant(domain, shop(domain), app.clientId, body);
    if (granted) return granted;
    const grant = grants.get(code);
    grants.delete(code);
    if (!grant || grant.clientId !== app.clientId || grant.shop !== domain || grant.expiresAt < Date.now())
      return oauthError(400, 'invalid_request', 'The authorization code was not found or was already used');
    const s = shop(domain);
    s.grants = { ...s.grants, scopes: grant.scopes };
    s.installedApp = app.clientId;
    s.tokenApp = app.clientId;
    return tokens.install(domain, s, app.clientId, grant.scopes, body.expiring === '1');
  });
}

/** Webhooks as Shopify sends them (signed, with their headers), resent, and those the merchant's actions cause. */
function registerWebhooks(
  router: Router,
  shop: (domain: string) => ShopState,
  apps: Map<string, FakeApp>,
  tokens: FakeTokens,
): void {
  const sent = new Map<string, SentWebhook>();
  const send = async (webhook: SentWebhook): Promise<Reply> => {
    try {
      const response = await fetch(webhook.uri, {
        method: 'POST',
        headers: webhook.headers,
        body: webhook.body,
        signal: AbortSignal.timeout(WEBHOOK_TIMEOUT_MS),
      });
      return json(200, {
        webhook_id: webhook.id,
        topic: webhook.topic,
        status: response.status,
        body: await response.text(),
      });
    } catch (error) {
      return json(200, { webhook_id: webhook.id, topic: webhook.topic, status: null, error: (error as Error).message });
    }
  };

  /** A webhook of `topic` to the app installed on the shop (or the app named), as Shopify sends it. */
  const deliver = (domain: string, topic: string, payload: Record<string, unknown>, clientId?: string) => {
    const s = shop(domain);
    const app = apps.get(clientId ?? s.installedApp ?? s.formerApp ?? '');
    if (!app) throw new BadRequest(`no app is installed on ${domain}`);
    const subscription = app.subscriptions.find((sub) => sub.topics.includes(topic));
    if (!subscription) throw new BadRequest(`the app does not subscribe to ${topic}`);
    const body = JSON.stringify(payload);
    const id = randomUUID();
    const webhook: SentWebhook = {
      id,
      shop: domain,
      clientId: app.clientId,
      topic,
      uri: subscription.uri,
      body,
      headers: {
        'content-type': 'application/json',
        'x-shopify-topic': topic,
        'x-shopify-hmac-sha256': signWebhook(body, app.clientSecret),
        'x-shopify-shop-domain': domain,
        'x-shopify-api-version': app.webhookApiVersion,
        'x-shopify-webhook-id': id,
        'x-shopify-event-id': randomUUID(),
        'x-shopify-triggered-at': new Date().toISOString(),
      },
    };
    sent.set(id, webhook);
    return send(webhook);
  };

  const shopPayload = (domain: string) => {
    const s = shop(domain);
    return { id: s.id, name: s.name, email: s.email, domain, myshopify_domain: domain };
  };

  // Any topic, its payload as given with the shop's fields Shopify adds to compliance payloads.
  router.add('POST', '/_control/shopify/:shop/webhooks', async (request) => {
    const domain = request.params.shop!;
    const body = parse(
      z.object({ topic: z.string().min(1), payload: z.record(z.string(), z.unknown()).default({}) }).strict(),
      request.body,
    );
    const compliance = ['customers/data_request', 'customers/redact', 'shop/redact'].includes(body.topic);
    const payload = compliance ? { shop_id: shop(domain).id, shop_domain: domain, ...body.payload } : body.payload;
    return deliver(domain, body.topic, payload);
  });

  // Shopify retries a delivery it thinks failed with the same webhook ID and body.
  router.add('POST', '/_control/shopify/:shop/webhooks/:id/resend', async (request) => {
    const webhook = sent.get(request.params.id!);
    if (!webhook || webhook.shop !== request.params.shop) throw new BadRequest('no such webhook');
    return send(webhook);
  });

  // One event delivered again under a new webhook ID (Shopify's guidance: deduplicate on `X-Shopify-Event-Id`).
  router.add('POST', '/_control/shopify/:shop/webhooks/:id/redeliver', async (request) => {
    const webhook = sent.get(request.params.id!);
    if (!webhook || webhook.shop !== request.params.shop) throw new BadRequest('no such webhook');
    const id = randomUUID();
    const again: SentWebhook = { ...webhook, id, headers: { ...webhook.headers, 'x-shopify-webhook-id': id } };
    sent.set(id, again);
    return send(again);
  });

  // The merchant uninstalls the app: the token stops working at once and `app/uninstalled` follows.
  router.add('POST', '/_control/shopify/:shop/uninstall', async (request) => {
    const domain = request.params.shop!;
    const s = shop(domain);
    const clientId = s.installedApp ?? undefined;
    s.accessToken = null;
    tokens.forget(domain);
    s.installedApp = null;
    s.formerApp = clientId ?? null;
    return deliver(domain, 'app/uninstalled', shopPayload(domain), clientId);
  });

  // The merchant changes the installation's access: `app/scopes_update` with the scopes before and after.
  router.add('POST', '/_control/shopify/:shop/scopes', async (request) => {
    const domain = request.params.shop!;
    const body = parse(z.object({ scopes: z.array(z.string()) }).strict(), request.body);
    const s = shop(domain);
    const previous = [...s.grants.scopes];
    s.grants = { ...s.grants, scopes: body.scopes };
    return deliver(domain, 'app/scopes_update', {
      id: `gid://shopify/AppInstallation/${s.id}`,
      previous,
      current: body.scopes,
      updated_at: new Date().toISOString(),
    });
  });
}

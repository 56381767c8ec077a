import Router from '@koa/router';
import type { Middleware } from 'koa';
import type { Client } from '@temporalio/client';
import type { Orm } from '../../db/orm';
import type { Logger } from '../../logger';
import { ApiError } from '../../http/api-error';
import { DEFAULT_CACHE_CONTROL } from '../../http/middleware';
import type { AppContext, AppState } from '../../http/state';
import { ShopifyAppRefusal, type ShopifyApp } from '../../platform/shopify/app';
import { recordInstall } from '../../shopify-app/installation';
import { receiveWebhook, subscribedTopic } from '../../shopify-app/webhook-intake';
import { REQUIRED_SHOPIFY_SCOPES } from '../../platform/shopify/scopes';

/**
 * Shopify's own endpoints, outside `/v1` and without an API key (docs/shopify.md, "Endpoints Shopify calls"): the
 * install (`/shopify/install`, the app's URL in Shopify), the grant's return (`/shopify/callback`) and the webhooks
 * (`/shopify/webhooks`). What is genuine is decided by Shopify's library; every refusal is the spec's error body and a
 * warning in the log with the request ID.
 */
export interface ShopifyRouteDeps {
  app: ShopifyApp;
  orm: Orm;
  temporal: Client;
  taskQueue: string;
  logger: Logger;
  now: () => Date;
  settingsKey: Buffer;
  supportEmail: string;
  maxBodyBytes: number;
  redactRetryMs: number;
  shopContact: (shop: string, accessToken: string) => Promise<{ name: string; email: string }>;
  /** Creates the shared pickup-point metafield's definition on the shop (decision 0719); `exists` when it is there. */
  pickupPointDefinition: (shop: string, accessToken: string) => Promise<'created' | 'exists'>;
}

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** The page the merchant's browser shows once the app is installed. */
function installedPage(shop: string, storeId: string, apiEnabled: boolean, supportEmail: string): string {
  const next = apiEnabled
    ? 'The API is enabled for your store: your API keys work again.'
    : `API access is opened by our support (${escapeHtml(supportEmail)}): ask for it and for your API keys, naming your store ID.`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Shipping Label API installed</title></head>
<body><h1>Shipping Label API is installed on ${escapeHtml(shop)}</h1>
<p>Store ID: <code>${escapeHtml(storeId)}</code></p>
<p>${next}</p></body></html>
`;
}

function warn(deps: ShopifyRouteDeps, ctx: AppContext, message: string, fields: Record<string, unknown>): void {
  deps.logger.warn({ request_id: ctx.state.requestId, path: ctx.path, ...fields }, message);
}

/**
 * The shared pickup-point metafield's definition (decision 0719), once the install is recorded: a failure is logged and
 * does not undo the install (points are still written and read without it; the next install or connect creates it).
 */
async function definePickupPoint(
  deps: ShopifyRouteDeps,
  ctx: AppContext,
  session: { shop: string; accessToken: string },
) {
  try {
    const outcome = await deps.pickupPointDefinition(session.shop, session.accessToken);
    deps.logger.info(
      { request_id: ctx.state.requestId, shop: session.shop, outcome },
      'pickup point metafield defined',
    );
  } catch (error) {
    warn(deps, ctx, 'pickup point metafield not defined', { shop: session.shop, detail: (error as Error).message });
  }
}

function refusalError(refusal: ShopifyAppRefusal): ApiError {
  switch (refusal.reason) {
    case 'invalid_shop':
      return new ApiError('validation_error', {
        status: 400,
        message: 'The shop is not a Shopify shop domain (your-shop.myshopify.com).',
        details: { parameter: 'shop' },
      });
    case 'shopify_unavailable':
      return new ApiError('shopify_unavailable', {
        message: 'Shopify did not answer the access token request. Install the app again shortly.',
        details: { what: 'access_token', throttled: false },
        headers: { 'Retry-After': '5' },
      });
    default:
      return new ApiError('unauthorized', {
        message: 'This install callback is not a genuine answer from Shopify for this browser. Install the app again.',
      });
  }
}

/** The exact bytes of the body, for the webhook signature (the router's JSON parsing never sees these paths). */
async function rawBody(ctx: AppContext, maxBytes: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req) {
    size += (chunk as Buffer).length;
    if (size > maxBytes)
      throw new ApiError('validation_error', {
        message: `The body is larger than ${maxBytes} bytes.`,
        details: { max_bytes: maxBytes },
      });
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export function shopifyRoutes(deps: ShopifyRouteDeps): Middleware<AppState> {
  const router = new Router<AppState>();

  router.get('/shopify/install', async (ctx) => {
    ctx.state.route = { path: '/shopify/install' };
    const query = Object.fromEntries(Object.entries(ctx.query).map(([k, v]) => [k, String(v)]));
    const shop = deps.app.sanitizeShop(query.shop);
    if (!shop) {
      warn(deps, ctx, 'Shopify install refused: not a shop domain', { shop: String(query.shop ?? '').slice(0, 100) });
      throw refusalError(new ShopifyAppRefusal('invalid_shop', 'not a shop domain'));
    }
    // Launched from Shopify's admin the query is signed; a forged or stale signature is refused.
    if (query.hmac !== undefined && !(await deps.app.signedByShopify(query))) {
      warn(deps, ctx, 'Shopify install refused: the query is not signed by Shopify', { shop });
      throw new ApiError('unauthorized', { message: 'This install link is not signed by Shopify.' });
    }
    // The library's Node adapter writes the redirect to the response itself; Koa leaves it alone.
    ctx.set('X-Request-Id', ctx.state.requestId);
    ctx.set('Cache-Control', DEFAULT_CACHE_CONTROL);
    ctx.respond = false;
    await deps.app.beginInstall(shop, ctx.req, ctx.res);
  });

  router.get('/shopify/callback', async (ctx) => {
    ctx.state.route = { path: '/shopify/callback' };
    let session;
    try {
      session = await deps.app.completeInstall(ctx.req, ctx.res);
    } catch (error) {
      if (!(error instanceof ShopifyAppRefusal)) throw error;
      warn(deps, ctx, 'Shopify install refused', {
        reason: error.reason,
        detail: error.message,
        shop: String(ctx.query.shop ?? '').slice(0, 100),
      });
      throw refusalError(error);
    }
    const outcome = await recordInstall(
      deps.orm,
      { settingsKey: deps.settingsKey, now: deps.now, shopContact: deps.shopContact },
      session,
    );
    if (outcome.kind === 'missing_scopes') {
      warn(deps, ctx, 'Shopify install refused: scopes missing', { shop: session.shop, missing: outcome.missing });
      throw new ApiError('access_required', {
        message: `The installation lacks ${outcome.missing.join(', ')}; the app needs ${REQUIRED_SHOPIFY_SCOPES.join(', ')}. Install it again granting them.`,
        details: { missing_scopes: outcome.missing, support_email: deps.supportEmail },
      });
    }
    deps.logger.info(
      { request_id: ctx.state.requestId, shop: session.shop, store_id: outcome.storeId, created: outcome.created },
      'Shopify app installed',
    );
    await definePickupPoint(deps, ctx, session);
    ctx.type = 'text/html';
    ctx.body = installedPage(session.shop, outcome.storeId, outcome.apiEnabled, deps.supportEmail);
  });

  router.post('/shopify/webhooks', async (ctx) => {
    ctx.state.route = { path: '/shopify/webhooks' };
    const body = await rawBody(ctx, deps.maxBodyBytes);
    const verified = await deps.app.verifyWebhook(body, ctx.req, ctx.res);
    if (!verified.valid) {
      warn(deps, ctx, 'Shopify webhook refused: not signed by Shopify', {
        reason: verified.reason,
        shop: ctx.get('X-Shopify-Shop-Domain').slice(0, 100),
        topic: ctx.get('X-Shopify-Topic').slice(0, 100),
      });
      throw new ApiError('unauthorized', { message: 'The webhook is not signed with this app’s secret.' });
    }
    let payload: unknown;
    try {
      payload = JSON.parse(body) as unknown;
    } catch {
      throw new ApiError('validation_error', { status: 400, message: 'The webhook body is not JSON.' });
    }
    const triggeredAt = verified.triggeredAt ? new Date(verified.triggeredAt) : null;
    const outcome = await receiveWebhook(
      {
        orm: deps.orm,
        temporal: deps.temporal,
        taskQueue: deps.taskQueue,
        now: deps.now,
        redactRetryMs: deps.redactRetryMs,
      },
      {
        webhookId: verified.webhookId,
        eventId: verified.eventId,
        shop: verified.shop,
        topic: subscribedTopic(verified.topic),
        apiVersion: verified.apiVersion,
        triggeredAt: triggeredAt && !Number.isNaN(triggeredAt.getTime()) ? triggeredAt : null,
        payload,
      },
    );
    const fields = {
      shop: verified.shop,
      topic: subscribedTopic(verified.topic),
      webhook_id: verified.webhookId,
      event_id: verified.eventId,
    };
    // Shopify wants a 200-series answer for every well-signed webhook, a shop with no store included (decision 0718).
    if (outcome.kind === 'unknown_shop')
      warn(deps, ctx, 'Shopify webhook of a shop with no store: acknowledged, only its event ID kept', fields);
    else if (outcome.kind === 'replayed')
      warn(deps, ctx, 'Shopify webhook replayed: acknowledged, not processed again', {
        ...fields,
        first_webhook_id: outcome.webhookId,
      });
    else if (outcome.kind === 'ignored_topic') warn(deps, ctx, 'Shopify webhook of a topic the app ignores', fields);
    else deps.logger.info({ request_id: ctx.state.requestId, ...fields }, 'Shopify webhook accepted');
    ctx.body = {
      received: outcome.kind === 'accepted' || outcome.kind === 'ignored_topic',
      webhook_id: verified.webhookId,
    };
  });

  return router.routes() as unknown as Middleware<AppState>;
}

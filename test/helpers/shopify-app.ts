import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'smol-toml';
import { randomToken } from '../../src/ids';
import { signWebhook } from '../../src/platform/shopify-fake/app';
import { freePort } from './processes';
import { control, sandboxUrl } from './sandbox';

/** shopify.app.toml as Shopify's CLI reads it. */
export interface AppToml {
  client_id: string;
  application_url: string;
  access_scopes: { scopes: string };
  auth: { redirect_urls: string[] };
  webhooks: {
    api_version: string;
    subscriptions: Array<{ topics?: string[]; compliance_topics?: string[]; uri: string }>;
  };
}

export function appToml(): AppToml {
  return parse(readFileSync(join(__dirname, '..', '..', 'shopify.app.toml'), 'utf8')) as unknown as AppToml;
}

/** A browser's User-Agent: the library refuses crawlers' installs. */
export const BROWSER =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0 Safari/537.36';

export interface DeployedApp {
  clientId: string;
  clientSecret: string;
  port: number;
  appUrl: string;
  /** The app's environment (SHOPIFY_API_KEY, ...) for startTestApp. */
  env: Record<string, string>;
}

/**
 * `shopify app deploy` onto the fake: an app of its own for this test file (client ID and secret), configured from
 * shopify.app.toml with its URLs moved to the port the test app will listen on.
 */
export async function deployAppOnFake(): Promise<DeployedApp> {
  const toml = appToml();
  // The fake Shopify is told the app's URL before the app listens: a port no outgoing connection of another test file
  // running meanwhile can be given (processes.ts).
  const port = await freePort();
  const appUrl = `http://127.0.0.1:${port}`;
  const clientId = `app_${randomToken(12).toLowerCase()}`;
  const clientSecret = `shpss_${randomToken(32)}`;
  const local = (url: string) => {
    const u = new URL(url);
    return `${appUrl}${u.pathname}${u.search}`;
  };
  const res = await control('PUT', `/_control/shopify-apps/${clientId}`, {
    client_secret: clientSecret,
    application_url: local(toml.application_url),
    redirect_urls: toml.auth.redirect_urls.map(local),
    webhooks: {
      api_version: toml.webhooks.api_version,
      subscriptions: toml.webhooks.subscriptions.map((s) => ({
        topics: [...(s.topics ?? []), ...(s.compliance_topics ?? [])],
        uri: s.uri,
      })),
    },
  });
  if (res.status !== 200) throw new Error(`the fake Shopify refused the app: ${JSON.stringify(res.body)}`);
  return {
    clientId,
    clientSecret,
    port,
    appUrl,
    env: {
      SHOPIFY_API_KEY: clientId,
      SHOPIFY_API_SECRET: clientSecret,
      SHOPIFY_APP_URL: appUrl,
      SHOPIFY_SHOP_URL: `${sandboxUrl()}/shopify/{shop}`,
    },
  };
}

/** The state cookies a browser keeps from a Set-Cookie answer, as one Cookie header. */
const cookiesOf = (response: Response): string =>
  response.headers
    .getSetCookie()
    .map((c) => c.split(';')[0]!)
    .join('; ');

export interface InstallRun {
  /** The app's redirect to Shopify's authorize page (`https://<shop>/admin/oauth/authorize?...`). */
  authorizeUrl: URL;
  /** The callback URL Shopify sent the browser back to. */
  callbackUrl: URL;
  cookie: string;
}

/**
 * A merchant's browser through the install up to the callback: the app's install URL, the shop's authorize page on
 * the fake (the merchant approves), back with the signed query. `callback` then completes it.
 */
export async function startInstall(app: DeployedApp, shop: string): Promise<InstallRun> {
  const begin = await fetch(`${app.appUrl}/shopify/install?shop=${shop}`, {
    redirect: 'manual',
    headers: { 'user-agent': BROWSER },
  });
  if (begin.status !== 302) throw new Error(`install answered ${begin.status}: ${await begin.text()}`);
  const authorizeUrl = new URL(begin.headers.get('location')!);
  // The shop's domain resolves to Shopify; here, the fake.
  const atShopify = `${sandboxUrl()}/shopify/${authorizeUrl.host}${authorizeUrl.pathname}${authorizeUrl.search}`;
  const approved = await fetch(atShopify, { redirect: 'manual', headers: { 'user-agent': BROWSER } });
  if (approved.status !== 302) throw new Error(`authorize answered ${approved.status}: ${await approved.text()}`);
  return { authorizeUrl, callbackUrl: new URL(approved.headers.get('location')!), cookie: cookiesOf(begin) };
}

/** The browser arriving at the callback with its cookies (or others). */
export const callback = (run: InstallRun, options: { url?: URL; cookie?: string } = {}) =>
  fetch(options.url ?? run.callbackUrl, {
    redirect: 'manual',
    headers: { 'user-agent': BROWSER, cookie: options.cookie ?? run.cookie },
  });

/** The whole install; returns the callback's answer. */
export async function install(app: DeployedApp, shop: string): Promise<Response> {
  return callback(await startInstall(app, shop));
}

/** A webhook as the fake Shopify sends it to the installed app; its answer as the app gave it. */
export async function shopifySends(
  shop: string,
  topic: string,
  payload: Record<string, unknown> = {},
): Promise<{ webhook_id: string; status: number; body: string }> {
  const res = await control('POST', `/_control/shopify/${shop}/webhooks`, { topic, payload });
  if (res.status !== 200) throw new Error(`the fake Shopify refused: ${JSON.stringify(res.body)}`);
  return res.body as { webhook_id: string; status: number; body: string };
}

/** A webhook signed (or not) by hand, straight to the app: what an attacker or a replay sends. */
export function postWebhook(
  app: DeployedApp,
  input: {
    shop: string;
    topic: string;
    body: string;
    secret?: string;
    webhookId?: string;
    /** `X-Shopify-Event-Id`; none when absent (as from a sender older than the header). */
    eventId?: string;
    hmac?: string;
    /** When Shopify says the event happened (`X-Shopify-Triggered-At`); now by default. */
    triggeredAt?: Date;
  },
): Promise<Response> {
  return fetch(`${app.appUrl}/shopify/webhooks`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-shopify-topic': input.topic,
      'x-shopify-hmac-sha256': input.hmac ?? signWebhook(input.body, input.secret ?? app.clientSecret),
      'x-shopify-shop-domain': input.shop,
      'x-shopify-api-version': '2026-10',
      'x-shopify-webhook-id': input.webhookId ?? `wh-${randomToken(12)}`,
      ...(input.eventId ? { 'x-shopify-event-id': input.eventId } : {}),
      'x-shopify-triggered-at': (input.triggeredAt ?? new Date()).toISOString(),
    },
    body: input.body,
  });
}

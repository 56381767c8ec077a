import { createApiKey } from '../../src/access/api-keys';
import { setStoreGates } from '../../src/access/stores';
import { sessionInfo } from '../../src/db/platform-sessions-repository';
import { randomToken } from '../../src/ids';
import { REQUIRED_SHOPIFY_SCOPES } from '../../src/platform/shopify/scopes';
import { aCarrierAAccount, anOrderOnPlatform, aRule } from '../helpers/creation';
import { signQuery } from '../../src/platform/shopify-fake/app';
import { labelctl } from '../helpers/labelctl';
import { control, eventually } from '../helpers/sandbox';
import { MINUTE } from '../helpers/time';
import {
  BROWSER,
  callback,
  deployAppOnFake,
  install,
  postWebhook,
  shopifySends,
  startInstall,
  type DeployedApp,
} from '../helpers/shopify-app';
import { startTestApp, type TestApp } from '../helpers/test-app';

/**
 * A store connects itself (issue 44; docs/shopify.md, "Installing the app"): the public app's install, uninstall and
 * Shopify's privacy webhooks end to end over HTTP, the fake Shopify playing Shopify (OAuth and signed webhooks).
 */
let app: TestApp;
let shopify: DeployedApp;

beforeAll(async () => {
  shopify = await deployAppOnFake();
  app = await startTestApp({ env: shopify.env, port: shopify.port });
});

afterAll(async () => {
  await app?.close();
});

const aShop = () => `shop-${randomToken(8).toLowerCase()}.myshopify.com`;

async function storeOf(domain: string) {
  const [row] = await app.orm.em
    .fork()
    .execute<Array<{ id: string; app_installed: boolean; api_enabled: boolean; email: string }>>(
      'select id, app_installed, api_enabled, email from stores where domain = ?',
      [domain],
    );
  return row;
}

/** What support does after a merchant installs: opens the API and the plan, and hands out a key. */
async function operatorOpens(storeId: string) {
  const em = app.orm.em.fork();
  await setStoreGates(em, storeId, { apiEnabled: true, subscriptionActive: true, writeAccess: true }, new Date());
  const { secret } = await createApiKey(em, {
    storeId,
    name: 'warehouse',
    scopes: ['labels:print', 'labels:write'],
    now: new Date(),
  });
  return { authorization: `Bearer ${secret}` };
}

const shopifyRows = (webhookId: string) =>
  app.orm.em
    .fork()
    .execute<Array<{ processed_at: Date | null; payload: unknown; outcome: Record<string, unknown> | null }>>(
      'select processed_at, payload, outcome from shopify_webhooks where webhook_id = ?',
      [webhookId],
    );

async function processed(webhookId: string) {
  return eventually(async () => {
    const [row] = await shopifyRows(webhookId);
    return row?.processed_at ? row : null;
  }, 200);
}

describe('a store installs the app', () => {
  it('installs, creates a label, is redacted, uninstalls, comes back with the same keys and is forgotten', async () => {
    const shop = aShop();

    // Install: the merchant approves on Shopify, the store is created installed, the API off until support opens it.
    const installed = await install(shopify, shop);
    expect(installed.status).toBe(200);
    expect(installed.headers.get('content-type')).toMatch(/text\/html/);
    const store = (await storeOf(shop))!;
    expect(await installed.text()).toContain(store.id);
    expect(store).toMatchObject({ app_installed: true, api_enabled: false, email: `owner@${shop}` });
    const session = await sessionInfo(app.orm.em.fork(), store.id);
    expect(session).toMatchObject({ platform: 'shopify', grantedScopes: [...REQUIRED_SHOPIFY_SCOPES] });
    expect(session.tokenEnding).toMatch(/^[0-9a-f]{4}$/);

    const auth = await operatorOpens(store.id);
    const account = await aCarrierAAccount(app.orm, store.id);
    await aRule(app.orm, store.id, { priority: 1, carrierAccountId: account.id, serviceCode: 'a_home' });

    // A label through the installed app's token (the store is on Shopify: the fake serves its orders).
    const order = await anOrderOnPlatform(shop);
    const created = await app.request('POST', '/v1/labels', {
      headers: { ...auth, 'Idempotency-Key': `install-${randomToken(8)}`, Prefer: 'wait=30' },
      body: { order_id: order.orderId, client_reference: 'for Jana Nováková' },
    });
    expect(created.status).toBe(201);
    const creationId = created.body.id as string;
    const labelId = created.body.labels[0].id as string;
    expect(created.body.labels[0].document.availability).toBe('available');

    // customers/redact: the creation's personal fields and the label's stored PDF are gone; the label stays.
    const redact = await shopifySends(shop, 'customers/redact', {
      customer: { id: 7001, email: 'jana@example.com', phone: '+420600111222' },
      orders_to_redact: [Number(order.orderId)],
    });
    expect(redact.status).toBe(200);
    await processed(redact.webhook_id);
    const creation = await app.request('GET', `/v1/label-creations/${creationId}`, { headers: auth });
    expect(creation.status).toBe(200);
    expect(creation.body.client_reference).toBeNull();
    expect(creation.body.requested.client_reference).toBeNull();
    expect(creation.body.status).toBe('succeeded');
    const label = await app.request('GET', `/v1/labels/${labelId}`, { headers: auth });
    expect(label.body).toMatchObject({ status: 'ready', document: { availability: 'not_reissuable' } });
    expect(label.body.tracking_number).toEqual(expect.any(String));
    const document = await app.request('GET', `/v1/labels/${labelId}/document`, { headers: auth });
    expect(document.status).toBe(410);
    expect(document.body.error.code).toBe('label_not_reissuable');

    // app/uninstalled: every key refused at once with access_required; the session deleted by the workflow.
    const uninstalled = await control('POST', `/_control/shopify/${shop}/uninstall`);
    expect(uninstalled.body.status).toBe(200);
    const refused = await app.request('GET', '/v1/shop', { headers: auth });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('access_required');
    expect(refused.body.error.details?.how_to_enable).toBeUndefined();
    await processed(uninstalled.body.webhook_id as string);
    expect(await sessionInfo(app.orm.em.fork(), store.id)).toMatchObject({ platform: 'shopify', tokenEnding: null });

    // Reinstall: the same store and the same key work again.
    expect((await install(shopify, shop)).status).toBe(200);
    expect((await storeOf(shop))!.id).toBe(store.id);
    const again = await app.request('GET', '/v1/shop', { headers: auth });
    expect(again.status).toBe(200);

    // Uninstalled for good, then shop/redact 48 hours later: the store's personal data goes, its labels stay.
    await app.flushRequestLog();
    const gone = await control('POST', `/_control/shopify/${shop}/uninstall`);
    await processed(gone.body.webhook_id as string);
    const shopRedact = await shopifySends(shop, 'shop/redact');
    expect(shopRedact.status).toBe(200);
    await processed(shopRedact.webhook_id);
    expect((await storeOf(shop))!.email).toBe('redacted@invalid');
    const [ips] = await app.orm.em
      .fork()
      .execute<Array<{ with_ip: number; rows: number }>>(
        'select count(ip)::int as with_ip, count(*)::int as rows from request_log where store_id = ?',
        [store.id],
      );
    expect(ips).toEqual({ with_ip: 0, rows: expect.any(Number) });
    expect(ips!.rows).toBeGreaterThan(0);
    const [kept] = await app.orm.em
      .fork()
      .execute<Array<{ n: number }>>('select count(*)::int as n from labels where id = ?', [labelId]);
    expect(kept!.n).toBe(1);
  });
});

describe('a creation in flight when the app is uninstalled', () => {
  it('ends as for a store whose platform is gone (shopify_unavailable, key released) and the key works after a reinstall', async () => {
    const shop = aShop();
    expect((await install(shopify, shop)).status).toBe(200);
    const store = (await storeOf(shop))!;
    const auth = await operatorOpens(store.id);
    const account = await aCarrierAAccount(app.orm, store.id);
    await aRule(app.orm, store.id, { priority: 1, carrierAccountId: account.id, serviceCode: 'a_home' });
    const order = await anOrderOnPlatform(shop);
    // Shopify answers the checks on arrival at its pace (the order by name, then its fulfillment orders: two reads) but
    // is slow to answer the creation's own read, and the merchant uninstalls meanwhile.
    await control('POST', `/_control/stores/${shop}/faults`, {
      faults: [
        { type: 'slow', delay_ms: 0, times: 2 },
        { type: 'slow', delay_ms: 1_500 },
      ],
    });
    const key = `in-flight-${randomToken(8)}`;
    const request = {
      headers: { ...auth, 'Idempotency-Key': key, Prefer: 'wait=0' },
      body: { order_name: order.name },
    };
    const started = await app.request('POST', '/v1/labels', request);
    expect(started.status).toBe(202);
    const uninstalled = await control('POST', `/_control/shopify/${shop}/uninstall`);
    expect(uninstalled.body.status).toBe(200);

    const ended = await eventually(async () => {
      const [row] = await app.orm.em
        .fork()
        .execute<Array<{ status: string; error: { code: string } | null; key_bound: boolean; sent_at: Date | null }>>(
          'select status, error, key_bound, sent_at from label_creations where id = ?',
          [started.body.id],
        );
      return row?.status === 'failed' ? row : null;
    }, 400);
    expect(ended).toMatchObject({ error: { code: 'shopify_unavailable' }, key_bound: false, sent_at: null });

    expect((await install(shopify, shop)).status).toBe(200);
    const retried = await app.request('POST', '/v1/labels', {
      ...request,
      headers: { ...request.headers, Prefer: 'wait=30' },
    });
    expect(retried.status).toBe(201);
    expect(retried.body.id).not.toBe(started.body.id);
  });
});

describe('an install launched from Shopify’s admin', () => {
  it('follows a query Shopify signed to the grant, and refuses one it did not sign', async () => {
    const shop = aShop();
    const params = {
      shop,
      timestamp: String(Math.floor(Date.now() / 1000)),
      host: 'YWRtaW4uc2hvcGlmeS5jb20vc3RvcmUveA',
    };
    const signed = new URLSearchParams({ ...params, hmac: signQuery(params, shopify.clientSecret) });
    const launched = await fetch(`${shopify.appUrl}/shopify/install?${signed.toString()}`, {
      redirect: 'manual',
      headers: { 'user-agent': BROWSER },
    });
    expect(launched.status).toBe(302);
    const authorize = new URL(launched.headers.get('location')!);
    expect(authorize.host).toBe(shop);
    expect(authorize.pathname).toBe('/admin/oauth/authorize');
    expect(authorize.searchParams.get('scope')).toBe(REQUIRED_SHOPIFY_SCOPES.join(','));
    expect(authorize.searchParams.get('redirect_uri')).toBe(`${shopify.appUrl}/shopify/callback`);
    expect(launched.headers.getSetCookie().join(';')).toMatch(/shopify_app_state=/);

    const forged = new URLSearchParams({ ...params, hmac: signQuery(params, 'another-secret') });
    const refused = await app.request('GET', `/shopify/install?${forged.toString()}`);
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe('unauthorized');
  });

  it('keeps a reinstalled store open when an uninstall from before the reinstall arrives late', async () => {
    const shop = aShop();
    expect((await install(shopify, shop)).status).toBe(200);
    const store = (await storeOf(shop))!;
    const auth = await operatorOpens(store.id);
    const webhookId = `late-${randomToken(12)}`;
    const late = await postWebhook(shopify, {
      shop,
      webhookId,
      topic: 'app/uninstalled',
      body: JSON.stringify({ id: 1, domain: shop, myshopify_domain: shop }),
      triggeredAt: new Date(Date.now() - MINUTE),
    });
    expect(late.status).toBe(200);
    expect((await processed(webhookId)).outcome).toEqual({ session: 'kept', reason: 'installed again' });
    expect((await storeOf(shop))!.app_installed).toBe(true);
    expect((await sessionInfo(app.orm.em.fork(), store.id)).tokenEnding).not.toBeNull();
    expect((await app.request('GET', '/v1/shop', { headers: auth })).status).toBe(200);
  });
});

describe('what the app refuses', () => {
  it('refuses a shop that is not a Shopify domain', async () => {
    const res = await app.request('GET', '/shopify/install?shop=evil.example.com');
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'validation_error', details: { parameter: 'shop' } });
    for (const query of ['', '?shop=', '?shop=a&shop=b.myshopify.com', '?shop=%00.myshopify.com'])
      expect((await app.request('GET', `/shopify/install${query}`)).body.error.code).toBe('validation_error');
  });

  it('answers bad input to the callback and the webhooks with the error body, never a 5xx', async () => {
    const bare = await app.request('GET', '/shopify/callback');
    expect(bare.status).toBe(401);
    expect(bare.body.error.code).toBe('unauthorized');
    const shop = aShop();
    expect((await install(shopify, shop)).status).toBe(200);
    const notJson = await postWebhook(shopify, { shop, topic: 'shop/redact', body: 'not json' });
    expect(notJson.status).toBe(400);
    expect(((await notJson.json()) as { error: { code: string } }).error.code).toBe('validation_error');
    const empty = await postWebhook(shopify, { shop, topic: 'shop/redact', body: '', hmac: 'x' });
    expect(empty.status).toBe(401);
    const huge = await postWebhook(shopify, { shop, topic: 'shop/redact', body: 'x'.repeat(300 * 1024) });
    expect(huge.status).toBe(422);
    expect(((await huge.json()) as { error: { code: string } }).error.code).toBe('validation_error');
    const wrongMethod = await app.request('GET', '/shopify/webhooks');
    expect(wrongMethod.status).toBe(404);
    expect(wrongMethod.body.error.code).toBe('not_found');
  });

  it('refuses a callback whose state is not this browser’s, or whose query was changed', async () => {
    const shop = aShop();
    const victim = await startInstall(shopify, shop);
    const attacker = await startInstall(shopify, shop);
    // The attacker's genuine callback in the victim's browser: the state does not match the victim's cookie.
    const forged = await callback(attacker, { cookie: victim.cookie });
    expect(forged.status).toBe(401);
    expect(((await forged.json()) as { error: { code: string } }).error.code).toBe('unauthorized');
    const tampered = new URL(victim.callbackUrl);
    tampered.searchParams.set('state', 'forged-state');
    expect((await callback(victim, { url: tampered })).status).toBe(401);
    expect((await callback(victim, { cookie: '' })).status).toBe(401);
    expect(await storeOf(shop)).toBeUndefined();
  });

  it('refuses an install lacking a required scope and stores nothing', async () => {
    const shop = aShop();
    await control('PUT', `/_control/shopify/${shop}/declined-scopes`, { scopes: ['read_locations'] });
    const res = await install(shopify, shop);
    expect(res.status).toBe(403);
    const body = (await res.json()) as { error: { code: string; details: Record<string, unknown> } };
    expect(body.error).toMatchObject({ code: 'access_required', details: { missing_scopes: ['read_locations'] } });
    expect(await storeOf(shop)).toBeUndefined();
  });

  it('refuses a webhook with a bad HMAC, acknowledges one for an unknown shop, and processes a replayed one once', async () => {
    const shop = aShop();
    expect((await install(shopify, shop)).status).toBe(200);
    const body = JSON.stringify({ shop_id: 1, shop_domain: shop });

    const badHmac = await postWebhook(shopify, { shop, topic: 'shop/redact', body, secret: 'not-the-secret' });
    expect(badHmac.status).toBe(401);
    expect(((await badHmac.json()) as { error: { code: string } }).error.code).toBe('unauthorized');
    const noHmac = await postWebhook(shopify, { shop, topic: 'shop/redact', body, hmac: '' });
    expect(noHmac.status).toBe(401);

    const unknown = await postWebhook(shopify, { shop: aShop(), topic: 'shop/redact', body });
    expect(unknown.status).toBe(200);

    const first = await shopifySends(shop, 'customers/data_request', {
      customer: { id: 7002, email: 'petr@example.com', phone: null },
      orders_requested: [],
      data_request: { id: 9001 },
    });
    expect(first.status).toBe(200);
    const replay = await control('POST', `/_control/shopify/${shop}/webhooks/${first.webhook_id}/resend`);
    expect(replay.body.status).toBe(200);
    expect(JSON.parse(replay.body.body as string)).toMatchObject({ received: false });
    await processed(first.webhook_id);
    const store = (await storeOf(shop))!;
    const exports = await app.orm.em
      .fork()
      .execute<Array<{ n: number }>>(
        `select count(*)::int as n from notifications where store_id = ? and kind = 'privacy.customer_data_export'`,
        [store.id],
      );
    expect(exports[0]!.n).toBe(1);
    expect(await shopifyRows(first.webhook_id)).toEqual([expect.objectContaining({ payload: null })]);
  });

  it('shows a scope the merchant took away to operators', async () => {
    const shop = aShop();
    expect((await install(shopify, shop)).status).toBe(200);
    const store = (await storeOf(shop))!;
    const update = await control('POST', `/_control/shopify/${shop}/scopes`, {
      scopes: REQUIRED_SHOPIFY_SCOPES.filter((s) => s !== 'read_locations'),
    });
    expect(update.body.status).toBe(200);
    await processed(update.body.webhook_id as string);
    const session = await sessionInfo(app.orm.em.fork(), store.id);
    expect(session.grantedScopes).not.toContain('read_locations');
    const shown = await labelctl('store', 'platform', shop);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain('MISSING SCOPES read_locations');
    const metrics = await fetch(`${app.baseUrl}/metrics`);
    const line = (await metrics.text())
      .split('\n')
      .find((l) => l.startsWith('shipping_label_shopify_stores_missing_scope{scope="read_locations"}'));
    expect(Number(line?.split(' ').pop())).toBeGreaterThanOrEqual(1);
  });
});

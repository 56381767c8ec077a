import { createApiKey } from '../../src/access/api-keys';
import { setStoreGates } from '../../src/access/stores';
import { platformConnection } from '../../src/db/platform-sessions-repository';
import { randomToken } from '../../src/ids';
import { aPlatformOrder, networkPoints, pickupAccounts, PRAHA } from '../helpers/pickup';
import { control, sandboxUrl } from '../helpers/sandbox';
import { SHOPIFY_API_VERSION } from '../helpers/shopify';
import { deployAppOnFake, install, type DeployedApp } from '../helpers/shopify-app';
import { startTestApp, type TestApp } from '../helpers/test-app';

/**
 * Where the order's pickup point lives on Shopify (docs/decisions/0719): in the shared `shipping_label` namespace,
 * whose definition the app creates at install, so another app on the shop reads it through the Admin API and the
 * storefront (checkout) and customer accounts read it; a point the app wrote before in its reserved `$app` namespace
 * is still found, and moved to the shared place when the order is read. The fake models Shopify's ownership: `$app`
 * is each app's own namespace.
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

/** A merchant's install of the public app, opened by support, with a key and a pickup carrier account. */
async function anInstalledPickupStore() {
  const domain = aShop();
  expect((await install(shopify, domain)).status).toBe(200);
  const em = app.orm.em.fork();
  const [row] = await em.execute<Array<{ id: string }>>('select id from stores where domain = ?', [domain]);
  const storeId = row!.id;
  await setStoreGates(em, storeId, { apiEnabled: true, subscriptionActive: true, writeAccess: true }, new Date());
  const { secret } = await createApiKey(em, {
    storeId,
    name: 'warehouse',
    scopes: ['labels:print', 'labels:write', 'pickup_points:assign'],
    now: new Date(),
  });
  await pickupAccounts(app.orm, storeId, ['carrier_a']);
  const connection = await platformConnection(em, app.config.settingsEncryptionKey, domain);
  const token = connection.platform === 'shopify' ? connection.accessToken : null;
  return { domain, storeId, auth: { authorization: `Bearer ${secret}` }, publicAppToken: token! };
}

/** Another app on the shop (a pickup-point app, a custom app): its own token on the fake. */
async function anotherApp(domain: string, appId: string): Promise<string> {
  const token = `shpat_${randomToken(24)}`;
  expect((await control('PUT', `/_control/shopify/${domain}/apps/${appId}`, { access_token: token })).status).toBe(200);
  return token;
}

/** An Admin GraphQL call to the fake Shopify with an app's token. */
async function adminCall(domain: string, token: string, query: string, variables: Record<string, unknown> = {}) {
  const res = await fetch(`${sandboxUrl()}/shopify/${domain}/admin/api/${SHOPIFY_API_VERSION}/graphql.json`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-shopify-access-token': token },
    body: JSON.stringify({ query, variables }),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as { data: any; errors?: unknown[] };
}

/** The order's pickup-point metafields as one app sees them: the shared one, its own `$app` one, and another's. */
async function metafieldsSeenBy(domain: string, token: string, orderId: string, reservedOf: string) {
  const body = await adminCall(
    domain,
    token,
    `query($id: ID!) { order(id: $id) {
       shared: metafield(namespace: "shipping_label", key: "pickup_point") { value }
       own: metafield(key: "pickup_point") { namespace value }
       reserved: metafield(namespace: "${reservedOf}", key: "pickup_point") { value }
     } }`,
    { id: `gid://shopify/Order/${orderId}` },
  );
  expect(body.errors).toBeUndefined();
  const o = body.data.order;
  return {
    shared: o.shared ? JSON.parse(o.shared.value) : null,
    own: o.own ? JSON.parse(o.own.value) : null,
    reserved: o.reserved ? JSON.parse(o.reserved.value) : null,
  };
}

const surfaceRead = (domain: string, orderId: string, surface: string) =>
  control(
    'GET',
    `/_control/shopify/${domain}/orders/${orderId}/metafields/shipping_label/pickup_point?surface=${surface}`,
  );

describe('the order’s pickup point on Shopify', () => {
  it('is written where another app, the checkout and customer accounts read it', async () => {
    const store = await anInstalledPickupStore();
    const order = await aPlatformOrder(store.domain);
    const point = networkPoints('carrier_a', PRAHA, (p) => p.kind === 'pickup_point')[2]!;
    const put = await app.request('PUT', `/v1/orders/${order.id}/pickup-point`, {
      headers: store.auth,
      body: { carrier: 'carrier_a', pickup_point_id: point.id },
    });
    expect(put.status).toBe(200);
    expect(put.body.pickup_point).toMatchObject({ id: point.id, carrier: { code: 'carrier_a' } });

    const written = { id: point.id, carrier_code: 'carrier_a', name: point.name, country: 'CZ', customer_id: null };
    const other = await anotherApp(store.domain, 'pickup-app');
    expect(await metafieldsSeenBy(store.domain, other, order.id, `app--${shopify.clientId}`)).toEqual({
      shared: written,
      own: null,
      reserved: null,
    });
    for (const surface of ['storefront', 'customer_account']) {
      const read = await surfaceRead(store.domain, order.id, surface);
      expect(read.status).toBe(200);
      expect(JSON.parse(read.body.value as string)).toEqual(written);
    }
    // Another app writes it too (a merchant-owned namespace), and the service reads what it wrote.
    const moved = { ...written, id: 'other-point', name: 'Chosen in another app' };
    const set = await adminCall(
      store.domain,
      other,
      `mutation($m: [MetafieldsSetInput!]!) { metafieldsSet(metafields: $m) { userErrors { code message } } }`,
      {
        m: [
          {
            ownerId: order.gid,
            namespace: 'shipping_label',
            key: 'pickup_point',
            type: 'json',
            value: JSON.stringify(moved),
          },
        ],
      },
    );
    expect(set.data.metafieldsSet.userErrors).toEqual([]);
    const read = await app.request('GET', `/v1/orders/${order.id}`, { headers: store.auth });
    expect(read.status).toBe(200);
    expect(read.body.pickup_point).toMatchObject({ id: 'other-point', name: 'Chosen in another app' });
  });

  it('finds a point written before in the app-reserved namespace and moves it to the shared one', async () => {
    const store = await anInstalledPickupStore();
    const order = await aPlatformOrder(store.domain);
    const old = {
      id: 'old-point',
      carrier_code: 'carrier_a',
      name: 'Written under $app',
      country: 'CZ',
      customer_id: null,
    };
    // What the service wrote before decision 0719: the app's own namespace (`$app`), as the public app.
    const set = await adminCall(
      store.domain,
      store.publicAppToken,
      `mutation($m: [MetafieldsSetInput!]!) { metafieldsSet(metafields: $m) { metafields { namespace } userErrors { code } } }`,
      { m: [{ ownerId: order.gid, key: 'pickup_point', type: 'json', value: JSON.stringify(old) }] },
    );
    expect(set.data.metafieldsSet).toEqual({
      metafields: [{ namespace: `app--${shopify.clientId}` }],
      userErrors: [],
    });
    // A custom app's `$app` is its own namespace: it sees nothing there, nor the public app's reserved one.
    const custom = await anotherApp(store.domain, 'custom-app');
    expect(await metafieldsSeenBy(store.domain, custom, order.id, `app--${shopify.clientId}`)).toEqual({
      shared: null,
      own: null,
      reserved: null,
    });
    expect((await surfaceRead(store.domain, order.id, 'storefront')).body).toEqual({ value: null });

    const read = await app.request('GET', `/v1/orders/${order.id}`, { headers: store.auth });
    expect(read.status).toBe(200);
    expect(read.body.pickup_point).toMatchObject({ id: 'old-point', name: 'Written under $app' });
    expect(read.body.reminders.map((r: { code: string }) => r.code)).not.toContain('pickup_point_missing');

    // Moved on that read: the other app and the checkout see it now.
    expect((await metafieldsSeenBy(store.domain, custom, order.id, `app--${shopify.clientId}`)).shared).toEqual(old);
    const storefront = await surfaceRead(store.domain, order.id, 'storefront');
    expect(storefront.status).toBe(200);
    expect(JSON.parse(storefront.body.value as string)).toEqual(old);
  });

  it('defines the metafield once per shop: checkout and customer accounts read, no admin access asked', async () => {
    const store = await anInstalledPickupStore();
    const other = await anotherApp(store.domain, 'pickup-app');
    const again = await adminCall(
      store.domain,
      other,
      `mutation { metafieldDefinitionCreate(definition: {name: "Pickup point", namespace: "shipping_label",
         key: "pickup_point", type: "json", ownerType: ORDER}) { userErrors { code } } }`,
    );
    expect(again.data.metafieldDefinitionCreate.userErrors).toEqual([{ code: 'TAKEN' }]);
    const order = await aPlatformOrder(store.domain);
    const surface = await control(
      'GET',
      `/_control/shopify/${store.domain}/orders/${order.id}/metafields/app--${shopify.clientId}/pickup_point?surface=storefront`,
    );
    expect(surface.status).toBe(403);
  });
});

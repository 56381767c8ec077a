import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomToken } from '../../src/ids';
import { verifySignature } from '../../src/webhooks/signature';
import { aCarrierAAccount, anOrderOnPlatform, aRule } from '../helpers/creation';
import { labelctl, labelctlJsonWith, labelctlWith } from '../helpers/labelctl';
import { aPlatformOrder, storeDomain } from '../helpers/pickup';
import { eventually } from '../helpers/sandbox';
import { aStoreWithKey } from '../helpers/stores';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { localReceiverOrigin } from '../helpers/webhooks';

/**
 * LOCAL_OUTBOUND_ORIGINS (decision 0609): an operator tries a pickup point provider or a webhook receiver of their own
 * on loopback over plain HTTP, outside production. Each process decides with its own setting: labelctl when the URL
 * is configured, the API when it calls a provider, the worker when it delivers a webhook.
 */

interface Received {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A plain-HTTP server on 127.0.0.1 (a free port unless told), recording what reaches it. */
async function aLocalServer(answer: (request: Received) => { status: number; body: unknown }, port = 0) {
  const received: Received[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const request = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      received.push(request);
      const { status, body } = answer(request);
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => app.close());

describe('a local pickup point provider', () => {
  const point = (id: string, latitude: number) => ({
    id,
    latitude,
    longitude: 14.4378,
    name: `Local shop ${id}`,
    street: 'Dlouhá 1',
    city: 'Praha',
    zip: '110 00',
    country: 'CZ',
  });
  let provider: Awaited<ReturnType<typeof aLocalServer>>;
  beforeAll(async () => {
    provider = await aLocalServer((request) =>
      request.headers['x-provider-key'] === 'local-key'
        ? { status: 200, body: { data: [point('local-1', 50.0756), point('local-2', 50.0765)] } }
        : { status: 401, body: { error: 'X-Provider-Key is missing or wrong' } },
    );
  });
  afterAll(async () => provider.close());

  it('is refused without the setting; with it labelctl adds and verifies it, and the API shows its points', async () => {
    const store = await aStoreWithKey(app.orm);
    const domain = await storeDomain(app.orm, store.storeId);
    const url = `${provider.origin}/search`;
    const local = { LOCAL_OUTBOUND_ORIGINS: provider.origin };
    const add = (env: Record<string, string>) =>
      labelctlWith(
        env,
        'pickup-points',
        'provider',
        'add',
        domain,
        '--code',
        'local',
        '--name',
        'Local shops',
        '--url',
        url,
        '--header',
        'X-Provider-Key: local-key',
      );
    const verifyArgs = ['pickup-points', 'verify', domain, '--lat', '50.0755', '--lng', '14.4378', '--country', 'CZ'];

    const refused = await add({});
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      `url refused: the URL must use HTTPS (to try a local endpoint outside production, set LOCAL_OUTBOUND_ORIGINS=${provider.origin})`,
    );
    // Another loopback origin in the setting does not open this one.
    expect((await add({ LOCAL_OUTBOUND_ORIGINS: 'http://127.0.0.1:1' })).code).toBe(2);
    expect(provider.received).toEqual([]);

    expect((await add(local)).code).toBe(0);
    const verified = await labelctlJsonWith(local, ...verifyArgs);
    expect(verified.shown.map((p: { id: string }) => p.id)).toEqual(['local-1', 'local-2']);
    expect(provider.received).toHaveLength(1);
    expect(provider.received[0]).toMatchObject({ method: 'POST', path: '/search' });
    expect(JSON.parse(provider.received[0]!.body)).toEqual({
      latitude: 50.0755,
      longitude: 14.4378,
      countryCode: 'CZ',
      shop: domain,
    });
    // The stored provider is called under the caller's own setting: without it, refused before connecting.
    const blocked = await labelctl(...verifyArgs);
    expect(blocked.code).toBe(2);
    expect(blocked.stderr).toMatch(/\[blocked_target\].*the URL must use HTTPS/);
    expect(provider.received).toHaveLength(1);

    const order = await aPlatformOrder(domain);
    const path = `/v1/orders/${order.id}/pickup-points?carrier=custom:local`;
    const localApp = await startTestApp({ env: local });
    try {
      const shown = await localApp.request('GET', path, { headers: store.auth });
      expect(shown.status).toBe(200);
      expect(shown.body.data.map((p: { id: string }) => p.id)).toEqual(['local-1', 'local-2']);
      expect(shown.body.data[0].carrier).toMatchObject({ code: 'custom:local', name: 'Local shops' });
      expect(shown.body.sources).toEqual([expect.objectContaining({ status: 'ok' })]);
    } finally {
      await localApp.close();
    }
    expect(provider.received).toHaveLength(2);
    const unavailable = await app.request('GET', path, { headers: store.auth });
    expect(unavailable.status).toBe(503);
    expect(unavailable.body.error.code).toBe('carrier_unavailable');
    expect(provider.received).toHaveLength(2);
  });
});

describe('a local webhook receiver', () => {
  // The worker of the test run has LOCAL_OUTBOUND_ORIGINS set to this origin (test/helpers/global-setup.ts).
  let receiver: Awaited<ReturnType<typeof aLocalServer>>;
  beforeAll(async () => {
    receiver = await aLocalServer(
      () => ({ status: 200, body: { ok: true } }),
      Number(new URL(localReceiverOrigin()).port),
    );
  });
  afterAll(async () => receiver.close());

  async function aShop() {
    const shop = await aStoreWithKey(app.orm);
    const account = await aCarrierAAccount(app.orm, shop.storeId);
    await aRule(app.orm, shop.storeId, { priority: 1, carrierAccountId: account.id, serviceCode: 'a_home' });
    return shop;
  }
  const create = async (shop: Awaited<ReturnType<typeof aShop>>) => {
    const order = await anOrderOnPlatform(shop.domain);
    return app.request('POST', '/v1/labels', {
      headers: { ...shop.auth, 'Idempotency-Key': `key-${order.orderId}`, Prefer: 'wait=30' },
      body: { order_id: order.orderId },
    });
  };

  it('is refused without the setting; with it the endpoint is added and the worker delivers signed events to it', async () => {
    const shop = await aShop();
    const url = `${receiver.origin}/hooks/${randomToken(10)}`;
    const refused = await labelctl('webhooks', 'add', shop.storeId, url);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      `url refused: the URL must use HTTPS (to try a local endpoint outside production, set LOCAL_OUTBOUND_ORIGINS=${receiver.origin})`,
    );

    const endpoint = await labelctlJsonWith(
      { LOCAL_OUTBOUND_ORIGINS: receiver.origin },
      'webhooks',
      'add',
      shop.storeId,
      url,
    );
    expect(endpoint.url).toBe(url);
    const res = await create(shop);
    expect(res.status).toBe(201);
    const path = new URL(url).pathname;
    const delivery = await eventually(async () => receiver.received.find((r) => r.path === path) ?? null, 300, 100);
    expect(delivery.method).toBe('POST');
    expect(delivery.headers['shipping-label-topic']).toBe('label_creation.updated');
    expect(
      verifySignature(String(delivery.headers['shipping-label-signature']), delivery.body, endpoint.secret, {
        nowSeconds: Math.floor(Date.now() / 1000),
      }),
    ).toEqual({ ok: true });
    expect(JSON.parse(delivery.body).data.object).toMatchObject({ id: res.body.id, status: 'succeeded' });
  });

  it('the worker still refuses a loopback origin its own setting does not list', async () => {
    const shop = await aShop();
    // labelctl is told of another local origin; the worker is not, so it refuses before connecting.
    const other = await aLocalServer(() => ({ status: 200, body: { ok: true } }));
    try {
      const url = `${other.origin}/hooks`;
      const endpoint = await labelctlJsonWith(
        { LOCAL_OUTBOUND_ORIGINS: other.origin },
        'webhooks',
        'add',
        shop.storeId,
        url,
      );
      expect((await create(shop)).status).toBe(201);
      const attempt = await eventually(
        async () => {
          const rows = await app.orm.em
            .fork()
            .execute<Array<{ error: string | null }>>(
              `select a.error from webhook_delivery_attempts a join webhook_deliveries d on d.id = a.delivery_id where d.store_id = ?`,
              [shop.storeId],
            );
          return rows[0] ?? null;
        },
        300,
        100,
      );
      expect(attempt.error).toBe(
        `refused: the URL must use HTTPS (to try a local endpoint outside production, set LOCAL_OUTBOUND_ORIGINS=${other.origin})`,
      );
      expect(other.received).toEqual([]);
      // Removing the endpoint ends the delivery's retries.
      await labelctlJsonWith({}, 'webhooks', 'remove', endpoint.id);
    } finally {
      await other.close();
    }
  });
});

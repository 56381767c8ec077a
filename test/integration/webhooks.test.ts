import { randomToken } from '../../src/ids';
import { verifySignature } from '../../src/webhooks/signature';
import { aCarrierAAccount, anOrderOnPlatform, aRule } from '../helpers/creation';
import { WORKER_PUBLIC_BASE_URL } from '../helpers/global-setup';
import { labelctl, labelctlJson } from '../helpers/labelctl';
import { eventually, scriptFaults } from '../helpers/sandbox';
import { aStoreWithKey } from '../helpers/stores';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { failNext, receivedBy, receiverUrl, untilReceived, type ReceivedDelivery } from '../helpers/webhooks';

let app: TestApp;
beforeAll(async () => {
  // The app serializes creations with the worker's public base URL, so payloads compare with GET answers as they are.
  app = await startTestApp({ env: { PUBLIC_BASE_URL: WORKER_PUBLIC_BASE_URL } });
});
afterAll(async () => app.close());

type Shop = Awaited<ReturnType<typeof aStoreWithKey>>;

/** A store creating at carrier A, with a webhook endpoint at a sandbox receiver of its own. */
async function aShopWithEndpoint() {
  const shop = await aStoreWithKey(app.orm);
  const account = await aCarrierAAccount(app.orm, shop.storeId);
  await aRule(app.orm, shop.storeId, { priority: 1, carrierAccountId: account.id, serviceCode: 'a_home' });
  const receiver = `r-${randomToken(10)}`;
  const endpoint = await labelctlJson('webhooks', 'add', shop.storeId, receiverUrl(receiver));
  return { shop, account, receiver, endpoint: endpoint as { id: string; secret: string } };
}

const create = async (shop: Shop) => {
  const order = await anOrderOnPlatform(shop.domain);
  return app.request('POST', '/v1/labels', {
    headers: { ...shop.auth, 'Idempotency-Key': `key-${order.orderId}`, Prefer: 'wait=30' },
    body: { order_id: order.orderId },
  });
};

const nowSeconds = () => Math.floor(Date.now() / 1000);

function expectSignedBy(delivery: ReceivedDelivery, secret: string) {
  const header = delivery.headers['shipping-label-signature']!;
  expect(verifySignature(header, delivery.body, secret, { nowSeconds: nowSeconds() })).toEqual({ ok: true });
}

const deliveriesLog = (storeId: string, ...filters: string[]) =>
  labelctlJson('webhooks', 'deliveries', storeId, ...filters) as Promise<Array<Record<string, any>>>;

/**
 * The event's delivery log once every delivery finished (none pending), read from the database with the query
 * `labelctl webhooks deliveries` runs: polling through a spawned CLI would be slow.
 */
const finishedLog = (storeId: string, eventId: string) =>
  eventually(
    async () => {
      const rows = await app.orm.em
        .fork()
        .execute<Array<Record<string, any>>>(
          `select d.status as delivery_status from webhook_deliveries d where d.store_id = ? and d.event_id = ?`,
          [storeId, eventId],
        );
      return rows.length > 0 && rows.every((r) => r.delivery_status !== 'pending')
        ? deliveriesLog(storeId, '--event', eventId)
        : null;
    },
    300,
    100,
  );

describe('label_creation.updated', () => {
  it('a creation that succeeds sends one signed event with the creation object as GET serializes it', async () => {
    const { shop, receiver, endpoint } = await aShopWithEndpoint();
    expect(endpoint.secret).toMatch(/^whsec_[0-9A-Za-z]{32}$/);
    const res = await create(shop);
    expect(res.status).toBe(201);
    const [delivery] = await untilReceived(receiver, 1);
    const event = JSON.parse(delivery!.body);
    const current = await app.request('GET', `/v1/label-creations/${res.body.id}`, { headers: shop.auth });
    expect(event).toEqual({
      id: expect.stringMatching(/^evt_[0-9A-Za-z]{24}$/),
      topic: 'label_creation.updated',
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
      api_version: '2026-10-01',
      errorCode: null,
      data: { object: current.body },
    });
    expect(event.data.object).toMatchObject({ id: res.body.id, status: 'succeeded', created: true });
    expect(delivery!.headers).toMatchObject({
      'content-type': 'application/json',
      'shipping-label-event-id': event.id,
      'shipping-label-topic': 'label_creation.updated',
      'shipping-label-delivery-id': expect.stringMatching(/^whd_/),
    });
    expect(delivery!.headers['shipping-label-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expectSignedBy(delivery!, endpoint.secret);
    const log = await finishedLog(shop.storeId, event.id);
    expect(log).toEqual([
      expect.objectContaining({
        event_id: event.id,
        endpoint_id: endpoint.id,
        kind: 'automatic',
        delivery_status: 'delivered',
        attempt: 1,
        status_code: 200,
        error: null,
        next_attempt_at: null,
        duration_ms: expect.any(Number),
      }),
    ]);
    // Exactly one: the delivery finished, it is the store's only one, and the receiver holds that one request only.
    expect(await deliveriesLog(shop.storeId)).toHaveLength(1);
    expect(await receivedBy(receiver)).toHaveLength(1);
  });

  it('a creation that fails sends one event with errorCode, the creation’s error.code', async () => {
    const { shop, account, receiver, endpoint } = await aShopWithEndpoint();
    await scriptFaults(account.id, [{ type: 'reject', reason: 'postcode_invalid', message: 'carrier text' }]);
    const res = await create(shop);
    expect(res.status).toBe(422);
    const creationId = res.body.error.details.label_creation_id;
    const [delivery] = await untilReceived(receiver, 1);
    const event = JSON.parse(delivery!.body);
    const current = await app.request('GET', `/v1/label-creations/${creationId}`, { headers: shop.auth });
    expect(event).toMatchObject({ topic: 'label_creation.updated', errorCode: 'carrier_rejected' });
    expect(event.data.object).toEqual(current.body);
    expect(event.data.object).toMatchObject({ status: 'failed', next_action: 'fix_and_retry' });
    // The payload's error is the direct answer's, `retry` / `next_action` pair included.
    expect(event.data.object.error).toMatchObject({ code: 'carrier_rejected', details: res.body.error.details });
    expectSignedBy(delivery!, endpoint.secret);
    await finishedLog(shop.storeId, event.id);
    expect(await deliveriesLog(shop.storeId)).toHaveLength(1);
    expect(await receivedBy(receiver)).toHaveLength(1);
  });

  it('a creation that needs attention sends its event with attention and errorCode null', async () => {
    const { shop, account, receiver, endpoint } = await aShopWithEndpoint();
    await scriptFaults(account.id, [{ type: 'timeout_not_created', hold_ms: 5000 }]);
    const res = await create(shop);
    expect(res.status).toBe(202);
    const [delivery] = await untilReceived(receiver, 1);
    const event = JSON.parse(delivery!.body);
    expect(event).toMatchObject({
      errorCode: null,
      data: { object: { id: res.body.id, status: 'needs_attention', attention: { reason: 'carrier_timeout' } } },
    });
    expectSignedBy(delivery!, endpoint.secret);
  });

  it('a store without endpoints gets nothing; a removed endpoint gets nothing more', async () => {
    const { shop, receiver, endpoint } = await aShopWithEndpoint();
    const removed = await labelctlJson('webhooks', 'remove', endpoint.id);
    expect(removed).toEqual({ id: endpoint.id, removed: true });
    expect(await labelctlJson('webhooks', 'list', shop.storeId)).toEqual([]);
    expect((await create(shop)).status).toBe(201);
    expect(await deliveriesLog(shop.storeId)).toEqual([]);
    expect(await receivedBy(receiver)).toEqual([]);
  });
});

describe('delivery: backoff, log and redelivery', () => {
  it('a receiver failing the first 2 deliveries gets the event on the 3rd attempt; every attempt is logged', async () => {
    const { shop, receiver, endpoint } = await aShopWithEndpoint();
    await failNext(receiver, { fail_next: 2, status: 503 });
    expect((await create(shop)).status).toBe(201);
    const got = await untilReceived(receiver, 3);
    expect(got.map((d) => d.answered)).toEqual([503, 503, 200]);
    const eventId = JSON.parse(got[0]!.body).id;
    // The same event, byte for byte, under one delivery; each attempt signed anew.
    expect(new Set(got.map((d) => d.body)).size).toBe(1);
    expect(new Set(got.map((d) => d.headers['shipping-label-delivery-id'])).size).toBe(1);
    for (const d of got) expectSignedBy(d, endpoint.secret);
    const log = await finishedLog(shop.storeId, eventId);
    expect(log.map((r) => [r.attempt, r.status_code, r.delivery_status])).toEqual([
      [3, 200, 'delivered'],
      [2, 503, 'delivered'],
      [1, 503, 'delivered'],
    ]);
    expect(log[2]).toMatchObject({ error: 'answered 503', response_excerpt: expect.stringContaining('scripted') });
    // A failed attempt names the next one; backoff doubles the wait (200 ms, then 400 ms in tests).
    const at = (r: Record<string, any>, field: string) => Date.parse(r[field]);
    expect(log[2]!.next_attempt_at).not.toBeNull();
    expect(log[1]!.next_attempt_at).not.toBeNull();
    expect(log[0]!.next_attempt_at).toBeNull();
    expect(at(log[1]!, 'started_at')).toBeGreaterThanOrEqual(at(log[2]!, 'started_at'));
    expect(await receivedBy(receiver)).toHaveLength(3);
  });

  it('a receiver that does not answer within the time box is retried; the attempt logs the timeout', async () => {
    const { shop, receiver } = await aShopWithEndpoint();
    await failNext(receiver, { fail_next: 1, status: 'timeout', hold_ms: 10_000 });
    expect((await create(shop)).status).toBe(201);
    const got = await untilReceived(receiver, 2);
    const log = await finishedLog(shop.storeId, JSON.parse(got[1]!.body).id);
    expect(log.map((r) => [r.attempt, r.status_code])).toEqual([
      [2, 200],
      [1, null],
    ]);
    expect(log[1]!.error).toMatch(/^timeout/);
  });

  it('redeliver sends the event again as a new delivery, by event or by delivery ID', async () => {
    const { shop, receiver, endpoint } = await aShopWithEndpoint();
    expect((await create(shop)).status).toBe(201);
    const [first] = await untilReceived(receiver, 1);
    const eventId = JSON.parse(first!.body).id;
    await finishedLog(shop.storeId, eventId);
    const byEvent = await labelctlJson('webhooks', 'redeliver', eventId);
    expect(byEvent).toEqual({ redelivered: eventId, deliveries: [expect.stringMatching(/^whd_/)] });
    const [, second] = await untilReceived(receiver, 2);
    expect(second!.body).toBe(first!.body);
    expect(second!.headers['shipping-label-delivery-id']).toBe(byEvent.deliveries[0]);
    expectSignedBy(second!, endpoint.secret);
    const byDelivery = await labelctlJson('webhooks', 'redeliver', byEvent.deliveries[0]);
    expect(byDelivery.deliveries[0]).not.toBe(byEvent.deliveries[0]);
    const got = await untilReceived(receiver, 3);
    expect(got[2]!.headers['shipping-label-event-id']).toBe(eventId);
    const log = await finishedLog(shop.storeId, eventId);
    expect(log.map((r) => r.kind).sort()).toEqual(['automatic', 'redelivery', 'redelivery']);
    expect(log.every((r) => r.delivery_status === 'delivered')).toBe(true);
    const unknown = await labelctl('webhooks', 'redeliver', 'evt_doesnotexist');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('no event or delivery evt_doesnotexist');
  });
});

describe('secret rotation', () => {
  it('with an overlap both secrets sign; with none only the new one', async () => {
    const { shop, receiver, endpoint } = await aShopWithEndpoint();
    expect((await create(shop)).status).toBe(201);
    const [first] = await untilReceived(receiver, 1);
    const eventId = JSON.parse(first!.body).id;
    await finishedLog(shop.storeId, eventId);

    const rotated = await labelctlJson('webhooks', 'rotate-secret', endpoint.id, '--overlap', '24h');
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(endpoint.secret);
    expect(rotated.secrets).toHaveLength(2);
    await labelctlJson('webhooks', 'redeliver', eventId);
    const [, overlapping] = await untilReceived(receiver, 2);
    expect(overlapping!.headers['shipping-label-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
    expectSignedBy(overlapping!, rotated.secret);
    expectSignedBy(overlapping!, endpoint.secret);

    const again = await labelctlJson('webhooks', 'rotate-secret', endpoint.id, '--overlap', 'none');
    expect(again.secrets).toHaveLength(1);
    const listed = await labelctlJson('webhooks', 'list', shop.storeId);
    expect(listed).toEqual([
      expect.objectContaining({ id: endpoint.id, secrets: [{ ending_in: again.secret.slice(-4), expires_at: null }] }),
    ]);
    // Secrets are never listed in full.
    expect(JSON.stringify(listed)).not.toContain(again.secret);
    await labelctlJson('webhooks', 'redeliver', eventId);
    const [, , single] = await untilReceived(receiver, 3);
    expect(single!.headers['shipping-label-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expectSignedBy(single!, again.secret);
    const header = single!.headers['shipping-label-signature']!;
    expect(verifySignature(header, single!.body, rotated.secret, { nowSeconds: nowSeconds() }).ok).toBe(false);
  });
});

describe('labelctl webhooks add', () => {
  it.each([
    ['a loopback address', 'https://127.0.0.1/hooks', 'is not a public address'],
    ['a private address', 'https://10.0.0.7/hooks', 'is not a public address'],
    ['a link-local address', 'https://169.254.169.254/latest', 'is not a public address'],
    ['a name resolving to loopback', 'https://localhost/hooks', 'which is not a public address'],
    ['plain HTTP', 'http://hooks.example.com/x', 'HTTPS'],
    ['credentials in the URL', 'https://user:pw@hooks.example.com/x', 'credentials'],
  ])('refuses %s', async (_name, url, message) => {
    const shop = await aStoreWithKey(app.orm);
    const result = await labelctl('webhooks', 'add', shop.storeId, url);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('url refused');
    expect(result.stderr).toContain(message);
    expect(await labelctlJson('webhooks', 'list', shop.storeId)).toEqual([]);
  });

  it('refuses an unknown topic and lists endpoints with their topics', async () => {
    const shop = await aStoreWithKey(app.orm);
    const refused = await labelctl('webhooks', 'add', shop.storeId, receiverUrl('x'), '--topics', 'orders.paid');
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('unknown topic "orders.paid"');
    const added = await labelctlJson(
      'webhooks',
      'add',
      shop.storeId,
      receiverUrl('y'),
      '--topics',
      'label_creation.updated',
    );
    const text = await labelctl('webhooks', 'list', shop.domain);
    expect(text.stdout).toContain(added.id);
    expect(text.stdout).toContain('label_creation.updated');
    expect(text.stdout).not.toContain(added.secret);
  });
});

import { createHmac } from 'node:crypto';
import { createApiKey } from '../../src/access/api-keys';
import { aCarrierAAccount, anOrderOnPlatform, aRule } from '../helpers/creation';
import { expectError } from '../helpers/errors';
import { aCarrierAccount, aLabel } from '../helpers/labels';
import { labelctlJson } from '../helpers/labelctl';
import { aPlatformOrder } from '../helpers/pickup';
import { scriptFaults } from '../helpers/sandbox';
import { aStoreWithKey } from '../helpers/stores';
import { followPages } from '../helpers/list-pages';
import { startTestApp, type TestApp } from '../helpers/test-app';

// Rows of one time (a second on the wire, often one clock reading) come out of every list in insertion order, never
// in the order of their random IDs, and a cursor ends a page exactly between two of them (decision 0103).
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => app.close());

type Shop = Awaited<ReturnType<typeof aStoreWithKey>>;
const ids = (rows: Array<{ id: string }>) => rows.map((r) => r.id);

/** Every page of a list, `limit` at a time, following `next_cursor` until `has_more` is false. */
async function allPages(shop: Shop, path: string, limit: number) {
  return followPages(app, shop.auth, `${path}${path.includes('?') ? '&' : '?'}limit=${limit}`, 20);
}

/** A whole second some time ago (older than the sync feed's 15-second hold-back). */
const aPastSecond = () => new Date(Math.floor(Date.now() / 1000) * 1000 - 60_000);

describe('GET /v1/label-creations: creations of one instant', () => {
  it('a failed attempt, its retry under the same key and a burst: newest first, paged exactly', async () => {
    // The key's writes and reads in one frozen second would meet its per-second limits.
    const shop = await aStoreWithKey(app.orm, { limits: { write_key_per_second: 50, read_key_per_second: 50 } });
    const account = await aCarrierAAccount(app.orm, shop.storeId);
    await aRule(app.orm, shop.storeId, { priority: 1, carrierAccountId: account.id, serviceCode: 'a_home' });
    const create = (key: string, orderId: string) =>
      app.request('POST', '/v1/labels', {
        headers: { ...shop.auth, 'Idempotency-Key': key, Prefer: 'wait=30' },
        body: { order_id: orderId },
      });
    // One clock reading for every creation: their times are equal to the millisecond.
    app.clock.set(new Date());
    try {
      const order = await anOrderOnPlatform(shop.domain);
      await scriptFaults(account.id, [{ type: 'reject', reason: 'postcode_invalid', message: 'PSC neexistuje' }]);
      const refused = await create(`retry-${order.orderId}`, order.orderId);
      expectError(refused, 422, 'carrier_rejected', expect.objectContaining({ reason: 'postcode_invalid' }));
      const retried = await create(`retry-${order.orderId}`, order.orderId);
      expect(retried.status).toBe(201);
      const inserted = [refused.body.error.details.label_creation_id as string, retried.body.id as string];
      for (let i = 0; i < 4; i += 1) {
        const next = await anOrderOnPlatform(shop.domain);
        const created = await create(`burst-${next.orderId}`, next.orderId);
        expect(created.status).toBe(201);
        inserted.push(created.body.id);
      }
      const newestFirst = [...inserted].reverse();

      const whole = await app.request('GET', '/v1/label-creations?limit=50', { headers: shop.auth });
      expect(ids(whole.body.data)).toEqual(newestFirst);
      expect(new Set(whole.body.data.map((c: { created_at: string }) => c.created_at)).size).toBe(1);
      for (const limit of [1, 2, 4]) {
        const pages = await allPages(shop, '/v1/label-creations', limit);
        expect(pages.flatMap((p) => p.ids)).toEqual(newestFirst);
        expect(pages.map((p) => p.has_more)).toEqual(pages.map((_, i) => i < pages.length - 1));
        expect(pages.at(-1)!.next_cursor).toBeNull();
      }
      // The attempts under the one key, the retry first.
      const underKey = await allPages(shop, `/v1/label-creations?idempotency_key=retry-${order.orderId}`, 1);
      expect(underKey.flatMap((p) => p.ids)).toEqual([inserted[1], inserted[0]]);
    } finally {
      app.clock.reset();
    }
  });
});

describe('GET /v1/labels: labels of one second', () => {
  async function fiveLabelsOfOneSecond() {
    // Paging every way reads more than the key's 10 a second.
    const shop = await aStoreWithKey(app.orm, { limits: { read_key_per_second: 100 } });
    const second = aPastSecond();
    const inserted: string[] = [];
    for (let i = 0; i < 5; i += 1) inserted.push((await aLabel(app.orm, shop.storeId, { createdAt: second })).id);
    return { shop, inserted };
  }

  it('newest first, oldest first (the sync feed) and with a post-filter: insertion order, paged exactly', async () => {
    const { shop, inserted } = await fiveLabelsOfOneSecond();
    const newestFirst = [...inserted].reverse();
    for (const limit of [1, 2, 3]) {
      const pages = await allPages(shop, '/v1/labels', limit);
      expect(pages.flatMap((p) => p.ids)).toEqual(newestFirst);
      expect(pages.at(-1)).toMatchObject({ has_more: false, next_cursor: null });
      // Status is applied to the labels read in keyset order (Rule 1): the same order.
      expect((await allPages(shop, '/v1/labels?status=ready', limit)).flatMap((p) => p.ids)).toEqual(newestFirst);
      const feed = await allPages(shop, '/v1/labels?sort=created_at', limit);
      expect(feed.flatMap((p) => p.ids)).toEqual(inserted);
      // Rule 2: the feed's last page still hands back a position to resume from, and nothing comes after it.
      const resumed = await app.request(
        'GET',
        `/v1/labels?sort=created_at&cursor=${encodeURIComponent(feed.at(-1)!.next_cursor!)}`,
        { headers: shop.auth },
      );
      expect(resumed.body).toMatchObject({ data: [], has_more: false });
    }
  });

  it('a cursor of the first format ([seconds, id]) resumes at the start of its second: nothing skipped', async () => {
    const { shop, inserted } = await fiveLabelsOfOneSecond();
    const newestFirst = [...inserted].reverse();
    const first = await app.request('GET', '/v1/labels?limit=2', { headers: shop.auth });
    expect(ids(first.body.data)).toEqual(newestFirst.slice(0, 2));
    // The same position as an older release wrote it, bound to the same filters and signed with the same secret.
    const { f } = JSON.parse(Buffer.from(first.body.next_cursor.split('.')[0], 'base64url').toString('utf8'));
    const createdAt = first.body.data[1].created_at as string;
    const body = Buffer.from(JSON.stringify({ v: 1, p: [Date.parse(createdAt) / 1000, newestFirst[1]], f })).toString(
      'base64url',
    );
    const legacy = `${body}.${createHmac('sha256', app.config.cursorSecret).update(body).digest('base64url')}`;
    const next = await app.request('GET', `/v1/labels?limit=50&cursor=${encodeURIComponent(legacy)}`, {
      headers: shop.auth,
    });
    expect(next.status).toBe(200);
    expect(ids(next.body.data)).toEqual(newestFirst);
  });

  it('GET /v1/orders/{id} lists the order’s labels of one second in insertion order', async () => {
    const shop = await aStoreWithKey(app.orm);
    const order = await aPlatformOrder(shop.domain, { deliveryType: 'shipping' });
    const second = aPastSecond();
    const inserted: string[] = [];
    for (let i = 0; i < 4; i += 1) {
      inserted.push((await aLabel(app.orm, shop.storeId, { orderId: order.id, createdAt: second })).id);
    }
    const res = await app.request('GET', `/v1/orders/${order.id}`, { headers: shop.auth });
    expect(res.status).toBe(200);
    expect(ids(res.body.labels)).toEqual(inserted);
  });
});

describe('other lists of rows made at one time', () => {
  it('GET /v1/carrier-accounts: accounts in insertion order', async () => {
    const shop = await aStoreWithKey(app.orm);
    const now = new Date();
    const inserted: string[] = [];
    for (const carrierCode of ['carrier_d', 'carrier_b', 'carrier_c', 'carrier_a'])
      inserted.push((await aCarrierAccount(app.orm, shop.storeId, { carrierCode, now })).id);
    const res = await app.request('GET', '/v1/carrier-accounts', { headers: shop.auth });
    expect(ids(res.body.data)).toEqual(inserted);
  });

  it('labelctl key list: keys in insertion order', async () => {
    const shop = await aStoreWithKey(app.orm);
    const hourAgo = new Date(Date.now() - 3_600_000);
    const inserted: string[] = [];
    for (const name of ['c', 'a', 'b']) {
      const { key } = await createApiKey(app.orm.em.fork(), {
        storeId: shop.storeId,
        name,
        scopes: ['labels:read'],
        now: hourAgo,
      });
      inserted.push(key.id);
    }
    const listed = (await labelctlJson('key', 'list', shop.storeId)) as Array<{ id: string }>;
    expect(ids(listed)).toEqual([...inserted, shop.keyId]);
  });

  it('labelctl webhooks deliveries: attempts of one time newest first in insertion order', async () => {
    const { storeId } = await aStoreWithKey(app.orm);
    const em = app.orm.em.fork();
    const endpoint = `we_order_${storeId}`;
    await em.execute(
      `insert into webhook_endpoints (id, store_id, url, topics) values (?, ?, 'https://hooks.example.test/x', '{label_creation.updated}')`,
      [endpoint, storeId],
    );
    const at = new Date();
    const inserted: string[] = [];
    for (const name of ['c', 'a', 'b', 'd']) {
      const event = `evt_${name}_${storeId}`;
      const delivery = `whd_${name}_${storeId}`;
      await em.execute(
        `insert into webhook_events (id, store_id, topic, resource_id, transition_key, payload, created_at)
         values (?, ?, 'label_creation.updated', ?, 'succeeded', '{}', ?)`,
        [event, storeId, `lcr_${name}`, at],
      );
      await em.execute(
        `insert into webhook_deliveries (id, store_id, event_id, endpoint_id, workflow_id, kind, status, created_at)
         values (?, ?, ?, ?, ?, 'automatic', 'delivered', ?)`,
        [delivery, storeId, event, endpoint, `webhook-delivery/${event}/${endpoint}`, at],
      );
      await em.execute(
        `insert into webhook_delivery_attempts (delivery_id, attempt, started_at, status_code, duration_ms)
         values (?, 1, ?, 200, 5)`,
        [delivery, at],
      );
      inserted.push(delivery);
    }
    const log = (await labelctlJson('webhooks', 'deliveries', storeId)) as Array<{ delivery_id: string }>;
    expect(log.map((a) => a.delivery_id)).toEqual([...inserted].reverse());
  });
});

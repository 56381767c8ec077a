import { createApiKey, revokeApiKey } from '../../src/access/api-keys';
import type { StoreGates } from '../../src/access/stores';
import { gateRefusal } from '../../src/http/gates';
import { holdsScope } from '../../src/access/scopes';
import { setStoreGates } from '../../src/access/stores';
import { expectError } from '../helpers/errors';
import { aLabel, aPlatformId, aStoredDocument } from '../helpers/labels';
import { aProbeRoute } from '../helpers/probes';
import { aStoreWithKey } from '../helpers/stores';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { MINUTE, SECOND } from '../helpers/time';

/**
 * The admission statement (docs/decisions/0017-admission-in-one-statement.md): key, gates, scope and rate limit in one
 * statement, with the hot reads riding along. What it must never change: who gets which answer, and which requests
 * count in the rate limits.
 */

const ROUTES = [
  { method: 'GET', path: '/v1/admission-read', scope: 'labels:read', write: false },
  { method: 'GET', path: '/v1/admission-print', scope: 'labels:print', write: false },
  { method: 'POST', path: '/v1/admission-write', scope: 'labels:write', write: true },
] as const;

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ extraRoutes: ROUTES.map((r) => aProbeRoute(r.path.slice(3), r.scope, r.write)) });
});
afterAll(async () => app.close());
afterEach(() => app.clock.reset());

const HIGH_LIMITS = { read_key_per_second: 100_000, read_key_per_minute: 100_000 };

/** What the key has taken from its per-minute read bucket in the current window (0 when nothing yet). */
async function usedThisMinute(keyId: string): Promise<number> {
  const [row] = await app.orm.em
    .fork()
    .execute<Array<{ used: number }>>('select minute_used as used from rate_limit_read_windows where subject = ?', [
      keyId,
    ]);
  return row?.used ?? 0;
}

describe('one statement for key, gates, scope and rate limit', () => {
  it('answers every gate and scope combination as the gates and scopes say, and charges exactly the accepted requests', async () => {
    // One minute window for the whole test, five seconds into the current minute.
    app.clock.set(new Date(Math.floor(Date.now() / MINUTE) * MINUTE + 5 * SECOND));
    const shop = await aStoreWithKey(app.orm, { limits: HIGH_LIMITS });
    const bare = await createApiKey(app.orm.em.fork(), {
      storeId: shop.storeId,
      name: 'no grants',
      scopes: [],
      now: new Date(),
    });
    const keys = [
      { id: shop.keyId, auth: shop.auth, scopes: ['labels:print', 'labels:write', 'label_creations:resolve'] },
      { id: bare.key.id, auth: { authorization: `Bearer ${bare.secret}` }, scopes: [] as string[] },
    ];
    const names = ['appInstalled', 'apiEnabled', 'pausedBySupport', 'subscriptionActive', 'freeAccess', 'writeAccess'];
    let accepted = 0;
    for (let mask = 0; mask < 2 ** names.length; mask += 1) {
      const gates = Object.fromEntries(names.map((n, i) => [n, Boolean(mask & (1 << i))])) as unknown as StoreGates;
      await setStoreGates(app.orm.em.fork(), shop.storeId, gates, new Date());
      for (const key of keys) {
        for (const route of ROUTES) {
          const before = await usedThisMinute(key.id);
          const res = await app.request(route.method, route.path, { headers: key.auth });
          const refusal = gateRefusal(gates, { write: route.write, supportEmail: app.config.supportEmail });
          const expected = refusal?.code ?? (holdsScope(key.scopes, route.scope) ? null : 'insufficient_scope');
          const after = await usedThisMinute(key.id);
          if (expected === null) {
            accepted += 1;
            expect({ status: res.status, charged: after - before }).toEqual({ status: 200, charged: 1 });
            expect(res.headers.get('x-ratelimit-bucket')).toMatch(/^read_key_per_/);
          } else {
            expectError(res, 403, expected);
            expect({ mask, route: route.path, charged: after - before }).toEqual({
              mask,
              route: route.path,
              charged: 0,
            });
            expect(res.headers.get('x-ratelimit-limit')).toBeNull();
          }
        }
      }
    }
    // Some of each: the combinations above are not all refusals.
    expect(accepted).toBeGreaterThan(10);
  });

  it('refuses a revoked key at once although the process knows its store, and takes nothing from it', async () => {
    const shop = await aStoreWithKey(app.orm, { limits: HIGH_LIMITS });
    const label = await aLabel(app.orm, shop.storeId);
    expect((await app.request('GET', `/v1/labels/${label.id}`, { headers: shop.auth })).status).toBe(200);
    await revokeApiKey(app.orm.em.fork(), { storeId: shop.storeId, keyId: shop.keyId, now: new Date() });
    const before = await usedThisMinute(shop.keyId);
    expectError(await app.request('GET', `/v1/labels/${label.id}`, { headers: shop.auth }), 401, 'invalid_token');
    expectError(await app.request('GET', '/v1/labels?limit=5', { headers: shop.auth }), 401, 'invalid_token');
    expect(await usedThisMinute(shop.keyId)).toBe(before);
  });

  it('authenticates an invalid request before refusing it, without charging it', async () => {
    const shop = await aStoreWithKey(app.orm, { limits: HIGH_LIMITS });
    expect((await app.request('GET', '/v1/labels?limit=5', { headers: shop.auth })).status).toBe(200);
    const before = await usedThisMinute(shop.keyId);
    expectError(await app.request('GET', '/v1/labels?limit=0', { headers: shop.auth }), 422, 'validation_error');
    expectError(
      await app.request('GET', '/v1/labels?limit=0', {
        headers: { authorization: `Bearer sla_live_${'B'.repeat(40)}` },
      }),
      401,
      'invalid_token',
    );
    expect(await usedThisMinute(shop.keyId)).toBe(before);
  });
});

describe('hot reads in the admission statement', () => {
  it('answers a label and a page the same on a key’s first request and once its store is known', async () => {
    const shop = await aStoreWithKey(app.orm, { limits: HIGH_LIMITS });
    const other = await aStoreWithKey(app.orm);
    const fulfillmentOrderIds = [aPlatformId(), aPlatformId()];
    const label = await aLabel(app.orm, shop.storeId, { fulfillmentOrderIds });
    await aStoredDocument(app.orm, label.id, { notIsolated: true });
    for (let i = 0; i < 3; i += 1) await aLabel(app.orm, shop.storeId);
    const foreign = await aLabel(app.orm, other.storeId);

    const first = await app.request('GET', `/v1/labels/${label.id}`, { headers: shop.auth });
    const firstPage = await app.request('GET', '/v1/labels?limit=2', { headers: shop.auth });
    const again = await app.request('GET', `/v1/labels/${label.id}`, { headers: shop.auth });
    const againPage = await app.request('GET', '/v1/labels?limit=2', { headers: shop.auth });
    expect(first.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(again.body.fulfillment_orders).toHaveLength(2);
    expect(again.body.document.availability).toBe('not_isolated');
    expect(againPage.body.data).toEqual(firstPage.body.data);
    expect(againPage.body.has_more).toBe(true);

    // The next page through the cursor, and another store's label, answer alike as well.
    const next = await app.request('GET', `/v1/labels?limit=2&cursor=${firstPage.body.next_cursor}`, {
      headers: shop.auth,
    });
    expect(next.body.data.map((l: { id: string }) => l.id)).not.toContain(firstPage.body.data[0].id);
    expect(next.body.data).toHaveLength(2);
    expectError(await app.request('GET', `/v1/labels/${foreign.id}`, { headers: shop.auth }), 404, 'not_found');
    expectError(await app.request('GET', `/v1/labels/${foreign.id}`, { headers: shop.auth }), 404, 'not_found');
  });

  it('refuses a cursor of other filters with the key known, and charges it as before', async () => {
    const shop = await aStoreWithKey(app.orm, { limits: HIGH_LIMITS });
    for (let i = 0; i < 3; i += 1) await aLabel(app.orm, shop.storeId);
    const page = await app.request('GET', '/v1/labels?limit=1', { headers: shop.auth });
    const res = await app.request('GET', `/v1/labels?limit=1&status=ready&cursor=${page.body.next_cursor}`, {
      headers: shop.auth,
    });
    expectError(res, 422, 'validation_error');
    expect(res.body.error.details.parameter).toBe('cursor');
  });
});

describe('label row projections kept by triggers', () => {
  it('follow the label’s fulfillment orders and its stored document', async () => {
    const shop = await aStoreWithKey(app.orm);
    const [a, b] = [aPlatformId(), aPlatformId()];
    const label = await aLabel(app.orm, shop.storeId, { fulfillmentOrderIds: [a, b] });
    const row = async () =>
      (
        await app.orm.em
          .fork()
          .execute<Array<{ coverage: unknown; document_stored: boolean; document_not_isolated: boolean }>>(
            'select coverage, document_stored, document_not_isolated from labels where id = ?',
            [label.id],
          )
      )[0]!;
    const stored = await app.orm.em
      .fork()
      .execute<Array<{ gid: string; legacy: string }>>(
        'select fulfillment_order_gid as gid, fulfillment_order_legacy_id as legacy from label_fulfillment_orders where label_id = ? order by 1',
        [label.id],
      );
    expect(await row()).toEqual({
      coverage: stored.map((s) => [s.gid, s.legacy]),
      document_stored: false,
      document_not_isolated: false,
    });
    await aStoredDocument(app.orm, label.id, { notIsolated: true });
    expect(await row()).toMatchObject({ document_stored: true, document_not_isolated: true });
    await aStoredDocument(app.orm, label.id, { notIsolated: false });
    expect(await row()).toMatchObject({ document_stored: true, document_not_isolated: false });
    await app.orm.em
      .fork()
      .execute('delete from label_fulfillment_orders where label_id = ? and fulfillment_order_gid = ?', [
        label.id,
        stored[0]!.gid,
      ]);
    await app.orm.em.fork().execute('delete from label_documents where label_id = ?', [label.id]);
    expect(await row()).toEqual({
      coverage: [[stored[1]!.gid, stored[1]!.legacy]],
      document_stored: false,
      document_not_isolated: false,
    });
  });
});

import { FAKE_BRANCHES, FAKE_POINTS } from '../../src/carriers/packeta/fake/network';
import { packetaPointsStore } from '../../src/db/packeta-pickup-points';
import { anOrderOnPlatform } from '../helpers/creation';
import { aDatabaseOfItsOwn } from '../helpers/own-database';
import { startAppWithOwnWorker, type AppWithOwnWorker } from '../helpers/own-worker';
import { packetaLedger } from '../helpers/packeta';
import { aPacketaPickupShop, importFeedFrom } from '../helpers/packeta-feed';
import { PRAHA } from '../helpers/pickup';
import { sandboxUrl } from '../helpers/sandbox';

// Issue 58 item 4 end to end, through the service's own wiring (src/adapters.ts): a Packeta account's pickup points
// come from the imported feed. The sandbox's feed (the fake Packeta's own network, as `npm run dev -- --packeta` imports
// it) goes into a database of this file's own; the API and the worker that creates the label use it.

let db: Awaited<ReturnType<typeof aDatabaseOfItsOwn>>;
let own: AppWithOwnWorker;
beforeAll(async () => {
  db = await aDatabaseOfItsOwn();
  own = await startAppWithOwnWorker({ taskQueue: `packeta-pickup-${process.pid}`, env: { DATABASE_URL: db.url } });
}, 120_000);
afterAll(async () => {
  await own?.stop();
  await db?.drop();
});

/** A pickup-point order, its point not chosen yet (its address not geocoded: the search names where to look). */
const aPickupOrder = (domain: string) =>
  anOrderOnPlatform(domain, { delivery_method: { type: 'pickup', title: 'Pickup point' } });

it('lists no Packeta points before the feed was imported, then lists, sets and ships to one from it', async () => {
  const { app } = own;
  const { shop, password } = await aPacketaPickupShop(app);
  const order = await aPickupOrder(shop.domain);
  const near = `latitude=${PRAHA.latitude}&longitude=${PRAHA.longitude}`;
  const list = () =>
    app.request('GET', `/v1/orders/${order.orderId}/pickup-points?limit=50&${near}`, { headers: shop.auth });

  const before = await list();
  expect(before.status).toBe(503);
  expect(before.body.error).toMatchObject({ code: 'carrier_unavailable' });

  await importFeedFrom(packetaPointsStore(app.orm.em), `${sandboxUrl()}/packeta-feed/v5`, 'sandboxfeedkey');

  const listed = await list();
  expect(listed.status).toBe(200);
  expect(listed.body.sources).toEqual([
    expect.objectContaining({ carrier: expect.objectContaining({ code: 'carrier_a' }), status: 'ok' }),
  ]);
  const praha = FAKE_BRANCHES.filter((b) => b.city === 'Praha' && b.statusId === 1).map((b) => b.id);
  const ids = listed.body.data.map((p: { id: string }) => p.id);
  expect([...ids].sort()).toEqual([...praha].sort());
  expect(ids).not.toContain(FAKE_POINTS.prahaEnded);
  expect(listed.body.data.find((p: { id: string }) => p.id === FAKE_POINTS.prahaBoxWithCod).type).toBe('locker');

  const set = await app.request('PUT', `/v1/orders/${order.orderId}/pickup-point`, {
    headers: shop.auth,
    body: { carrier: 'carrier_a', pickup_point_id: FAKE_POINTS.prahaPoint },
  });
  expect(set.status).toBe(200);
  const ended = await app.request('PUT', `/v1/orders/${order.orderId}/pickup-point`, {
    headers: shop.auth,
    body: { carrier: 'carrier_a', pickup_point_id: FAKE_POINTS.prahaEnded },
  });
  expect(ended.status).toBe(422);
  expect(ended.body.error).toMatchObject({ code: 'pickup_point_not_available', details: { reason: 'not_found' } });

  const created = await app.request('POST', '/v1/labels', {
    headers: { ...shop.auth, 'Idempotency-Key': `feed-point-${order.orderId}`, Prefer: 'wait=30' },
    body: { order_id: order.orderId },
  });
  expect([created.status, created.body.error ?? null]).toEqual([201, null]);
  expect(created.body.status).toBe('succeeded');
  expect((await packetaLedger(password)).at(-1).attributes.addressId).toBe(FAKE_POINTS.prahaPoint);
});

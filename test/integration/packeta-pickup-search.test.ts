import { FakeFeed, startFakeFeedServer } from '../../src/carriers/packeta/feed/fake-feed';
import { generatedFeedTexts } from '../../src/carriers/packeta/feed/generated-feed';
import { packetaDay, packetaPickupNetwork } from '../../src/carriers/packeta/feed/network';
import type { CarrierAccountSettings, PickupNetworkPort } from '../../src/carriers/port';
import { openOrm, type Orm } from '../../src/db/orm';
import { packetaPointsStore } from '../../src/db/packeta-pickup-points';
import { distanceMeters, MAX_PICKUP_POINTS } from '../../src/domain/pickup-points';
import { aDatabaseOfItsOwn } from '../helpers/own-database';
import { aPacketaPickupShop, importFeedFrom } from '../helpers/packeta-feed';
import { aPlatformOrder, PRAHA } from '../helpers/pickup';
import { startTestApp, type TestApp } from '../helpers/test-app';

// Decision 1222: Packeta's pickup-point network answered from the imported feed, through the pickup-network port, and
// through GET and PUT /v1/orders/{id}/pickup-point(s) of a carrier A account on Packeta's endpoint. The feed is a generated
// network of 10,000 points over six countries plus a few points near Praha made for each rule; a database of this
// file's own holds it.

const KEY = 'abcdef0123456789';
const NETWORK_SIZE = 10_000;
const DAY_MS = 86_400_000;
const today = packetaDay(new Date());
const yesterday = packetaDay(new Date(Date.now() - DAY_MS));
const tomorrow = packetaDay(new Date(Date.now() + DAY_MS));

/** Points near Praha's centre, each unavailable for one reason, and two controls that are offered. */
const NEAR_PRAHA = { latitude: '50.07550', longitude: '14.43780' };
const made = (id: number, overrides: Record<string, unknown>) => ({
  id: String(id),
  name: `Made ${id}`,
  place: 'Trafika',
  street: `Národní ${id}`,
  city: 'Praha',
  zip: '110 00',
  country: 'cz',
  status: { statusId: '1' },
  displayFrontend: '1',
  ...NEAR_PRAHA,
  openingHours: { regular: { monday: '08:00–18:00' } },
  ...overrides,
});
const UNAVAILABLE = {
  holiday: made(9_000_001, { status: { statusId: '3', description: 'Holiday' } }),
  hidden: made(9_000_002, { displayFrontend: '0' }),
  noLongerEnterable: made(9_000_003, { enterableUntil: yesterday }),
  notOpenYet: made(9_000_004, { openSince: tomorrow }),
  closed: made(9_000_005, { openUntil: yesterday }),
  vanishing: made(9_000_006, {}),
};
const OFFERED = {
  closingSoon: made(9_000_010, { enterableUntil: tomorrow, openUntil: tomorrow }),
  newHours: made(9_000_011, {
    openingHours: { regular: { monday: '08:00–18:00' }, upcoming: { monday: '10:00–12:00', startDate: yesterday } },
  }),
  laterHours: made(9_000_012, {
    openingHours: { regular: { monday: '08:00–18:00' }, upcoming: { monday: '10:00–12:00', startDate: tomorrow } },
  }),
};

let db: Awaited<ReturnType<typeof aDatabaseOfItsOwn>>;
let orm: Orm;
let network: PickupNetworkPort;
let app: TestApp;
const account = { carrierCode: 'carrier_a', accountId: 'ca_test' } as CarrierAccountSettings;

async function importFeed(branch: unknown[], box: unknown[]) {
  const feed = new FakeFeed(new Set([KEY]));
  feed.publishPoints('branch', branch, new Date());
  feed.publishPoints('box', box, new Date());
  const server = await startFakeFeedServer(feed);
  try {
    return await importFeedFrom(packetaPointsStore(orm.em), server.baseUrl, KEY);
  } finally {
    await server.close();
  }
}

beforeAll(async () => {
  db = await aDatabaseOfItsOwn();
  orm = await openOrm(db.url);
  const texts = generatedFeedTexts(NETWORK_SIZE);
  const generatedBranches = JSON.parse(texts.branch) as unknown[];
  const boxes = JSON.parse(texts.box) as unknown[];
  await importFeed([...generatedBranches, ...Object.values(UNAVAILABLE), ...Object.values(OFFERED)], boxes);
  // The next reading no longer lists one point: it vanishes.
  const { vanishing: _gone, ...stay } = UNAVAILABLE;
  await importFeed([...generatedBranches, ...Object.values(stay), ...Object.values(OFFERED)], boxes);
  network = packetaPickupNetwork(packetaPointsStore(orm.em));
  // The service's own wiring (src/adapters.ts) on this database: Packeta accounts search the imported feed.
  app = await startTestApp({ env: { DATABASE_URL: db.url } });
}, 180_000);
afterAll(async () => {
  await app?.close();
  await orm?.close();
  await db?.drop();
});

interface Offerable {
  id: string;
  country: string;
  latitude: number;
  longitude: number;
}
/** Every point that may be offered today, read without the index: what a search must agree with. */
const offerable = () =>
  orm.em.fork().execute<Offerable[]>(
    `select id::text as id, country, latitude, longitude from packeta_pickup_points
      where in_feed and status_id = 1 and display_frontend
        and (open_since is null or open_since <= ?::date) and (open_until is null or open_until >= ?::date)
        and (enterable_until is null or enterable_until >= ?::date)`,
    [today, today, today],
  );

const CITIES = [
  { name: 'Praha', country: 'CZ', latitude: 50.0755, longitude: 14.4378 },
  { name: 'Ostrava outskirts', country: 'CZ', latitude: 49.9, longitude: 18.1 },
  { name: 'Bratislava', country: 'SK', latitude: 48.1486, longitude: 17.1077 },
  { name: 'Budapest', country: 'HU', latitude: 47.4979, longitude: 19.0402 },
  { name: 'Gdańsk', country: 'PL', latitude: 54.352, longitude: 18.6466 },
  { name: 'a Romanian village', country: 'RO', latitude: 46.2, longitude: 24.8 },
  { name: 'Leipzig', country: 'DE', latitude: 51.3397, longitude: 12.3731 },
];

describe('the nearest points', () => {
  it.each(CITIES)('near $name are exactly the 50 nearest offerable points of $country, nearest first', async (city) => {
    const found = await network.searchPickupPoints(account, {
      latitude: city.latitude,
      longitude: city.longitude,
      countryCode: city.country,
      limit: MAX_PICKUP_POINTS,
    });
    expect(found).toHaveLength(50);
    const distances = found.map((p) => distanceMeters(city, p));
    expect(distances).toEqual([...distances].sort((a, b) => a - b));
    expect(found.every((p) => p.country === city.country)).toBe(true);
    // The same as measuring every offerable point of the country (ties at the 50th may swap, distances may not).
    const expected = (await offerable())
      .filter((p) => p.country === city.country)
      .map((p) => distanceMeters(city, p))
      .sort((a, b) => a - b)
      .slice(0, 50);
    expect(distances).toEqual(expected);
  });

  it('keeps to the country asked for, even across a border, and finds none where the network has none', async () => {
    const bratislava = CITIES.find((c) => c.name === 'Bratislava')!;
    const czech = await network.searchPickupPoints(account, { ...bratislava, countryCode: 'CZ', limit: 10 });
    expect(czech.length).toBe(10);
    expect(czech.every((p) => p.country === 'CZ')).toBe(true);
    const hungarian = await network.searchPickupPoints(account, { ...bratislava, countryCode: 'hu', limit: 10 });
    expect(hungarian.every((p) => p.country === 'HU')).toBe(true);
    expect(await network.searchPickupPoints(account, { ...bratislava, countryCode: 'AT', limit: 10 })).toEqual([]);
  });

  it('never offers a point that vanished, is not in operation, is hidden or is outside its dates', async () => {
    const found = await network.searchPickupPoints(account, { ...PRAHA, countryCode: 'CZ', limit: 50 });
    const ids = found.map((p) => p.id);
    for (const point of Object.values(UNAVAILABLE)) {
      expect(ids).not.toContain(point.id);
      expect(await network.findPickupPoint(account, point.id)).toBeNull();
    }
    // The made points stand where the search starts: the offered ones come first.
    expect(ids.slice(0, 3).sort()).toEqual(
      Object.values(OFFERED)
        .map((p) => p.id)
        .sort(),
    );
    const everyOfferable = new Set((await offerable()).map((p) => p.id));
    expect(ids.every((id) => everyOfferable.has(id))).toBe(true);
  });

  it('answers each point as the port’s PickupPoint: a box is a locker, hours as in force today', async () => {
    const sample = (await offerable()).find((p) => Number(p.id) < 9_000_000 && p.country === 'CZ')!;
    const found = await network.searchPickupPoints(account, {
      latitude: sample.latitude,
      longitude: sample.longitude,
      countryCode: 'CZ',
      limit: 1,
    });
    expect(found[0]!.id).toBe(sample.id);
    const point = await network.findPickupPoint(account, found[0]!.id);
    expect(point).toEqual(found[0]);
    expect(point).toMatchObject({ pinUrl: null, requiresCustomerId: false, country: 'CZ' });
    expect(['pickup_point', 'locker']).toContain(point!.type);

    expect((await network.findPickupPoint(account, OFFERED.newHours.id))!.openingHours.monday).toEqual([
      { opens: '10:00', closes: '12:00' },
    ]);
    expect((await network.findPickupPoint(account, OFFERED.laterHours.id))!.openingHours.monday).toEqual([
      { opens: '08:00', closes: '18:00' },
    ]);
    expect(await network.findPickupPoint(account, '8888888888')).toBeNull();
    expect(await network.findPickupPoint(account, 'CZ10001')).toBeNull();
  });
});

describe('GET and PUT /v1/orders/{id}/pickup-point(s) of a Packeta account', () => {
  it('lists Packeta points near the order and sets one; a point that vanished is not found', async () => {
    const { shop: store } = await aPacketaPickupShop(app);
    const order = await aPlatformOrder(store.domain);
    const listed = await app.request('GET', `/v1/orders/${order.id}/pickup-points?limit=50`, { headers: store.auth });
    expect(listed.status).toBe(200);
    expect(listed.body.sources).toEqual([expect.objectContaining({ status: 'ok', points_found: 50 })]);
    const nearest = await network.searchPickupPoints(account, { ...PRAHA, countryCode: 'CZ', limit: 50 });
    expect(listed.body.data.map((p: { id: string }) => p.id)).toEqual(nearest.map((p) => p.id));

    const chosen = listed.body.data[10];
    const put = (pointId: string) =>
      app.request('PUT', `/v1/orders/${order.id}/pickup-point`, {
        headers: store.auth,
        body: { carrier: 'carrier_a', pickup_point_id: pointId },
      });
    const set = await put(chosen.id);
    expect(set.status).toBe(200);
    expect(set.body.pickup_point).toMatchObject({ id: chosen.id, name: chosen.name, country: 'CZ' });

    const gone = await put(UNAVAILABLE.vanishing.id);
    expect(gone.status).toBe(422);
    expect(gone.body.error).toMatchObject({ code: 'pickup_point_not_available', details: { reason: 'not_found' } });
  });
});

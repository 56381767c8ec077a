import { addProvider } from '../../src/pickup-points/providers-repository';
import { scriptFaults } from '../helpers/sandbox';
import {
  aCustomProvider,
  aPickupStore,
  aPlatformOrder,
  aProviderName,
  configureProvider,
  PRAHA,
  providerRequests,
  providerUrl,
  scriptProviderFaults,
  setProviderPoints,
} from '../helpers/pickup';
import { sampleValue } from '../helpers/prometheus';
import { startTestApp, type TestApp } from '../helpers/test-app';

// The provider time box is short here so the slow-provider cases stay quick; the cache is off (TTL 0) so every
// search reaches the provider, while answers are still kept to stand in when it is down.
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ env: { PICKUP_PROVIDER_TIMEOUT: '400ms', PICKUP_POINT_CACHE_TTL: '0ms' } });
});
afterAll(async () => app.close());

const pickupStore = (carriers?: Parameters<typeof aPickupStore>[1]) => aPickupStore(app.orm, carriers);
const list = (orderId: string, auth: Record<string, string>, query = '') =>
  app.request('GET', `/v1/orders/${encodeURIComponent(orderId)}/pickup-points${query}`, { headers: auth });

describe('GET /v1/orders/{order_id}/pickup-points', () => {
  it('merges the carriers the delivery method allows with the custom providers, nearest first', async () => {
    const store = await pickupStore();
    const provider = await aCustomProvider(app.orm, app.config, store.storeId);
    const order = await aPlatformOrder(store.domain);
    const res = await list(order.id, store.auth, '?limit=50');
    expect(res.status).toBe(200);
    expect(res.body.search).toEqual({ ...PRAHA, country_code: 'CZ', source: 'shipping_address' });
    expect(res.body.data).toHaveLength(50);
    const distances = res.body.data.map((p: { distance_meters: number }) => p.distance_meters);
    expect(distances).toEqual([...distances].sort((a, b) => a - b));
    const networks = new Set(res.body.data.map((p: { carrier: { code: string } }) => p.carrier.code));
    expect(networks).toEqual(new Set(['carrier_a', 'carrier_c', 'carrier_d', provider.network]));
    expect(res.body.sources.map((s: any) => [s.carrier.code, s.status])).toEqual([
      ['carrier_a', 'ok'],
      ['carrier_c', 'ok'],
      ['carrier_d', 'ok'],
      [provider.network, 'ok'],
    ]);
    // Each network's IDs in its own format.
    const idOf = (code: string) => res.body.data.find((p: any) => p.carrier.code === code).id;
    expect(idOf('carrier_a')).toMatch(/^\d+$/);
    expect(idOf('carrier_c')).toMatch(/^CZ\d{5}$/);
    expect(idOf('carrier_d')).toMatch(/^KM\d{8}$/);
    const shop = res.body.data.find((p: any) => p.id === 'shop-praha-2');
    expect(shop).toMatchObject({
      carrier: { code: provider.network, name: 'Our shops', account_id: null },
      type: 'pickup_point',
      pin_url: 'https://pins.example.com/our-shop.png',
      opening_hours: { saturday: [{ opens: '10:00', closes: '14:00' }], sunday: [] },
      requires_customer_id: false,
    });
    const carrierPoint = res.body.data.find((p: any) => p.carrier.code === 'carrier_a');
    expect(carrierPoint.carrier.account_id).toBe(store.accounts.carrier_a);
    // The contract's body reached the provider with the customer's location as it is and the store's domain as `shop`.
    const [request] = await providerRequests(provider.sandboxName);
    expect(request!.body).toEqual({ ...PRAHA, countryCode: 'CZ', shop: store.domain });
  });

  it('filters by carrier, limits, and searches where the request says', async () => {
    const store = await pickupStore();
    const provider = await aCustomProvider(app.orm, app.config, store.storeId);
    const order = await aPlatformOrder(store.domain);
    const filtered = await list(order.gid, store.auth, `?carrier=carrier_d,${provider.network}&limit=5`);
    expect(filtered.status).toBe(200);
    expect(filtered.body.data).toHaveLength(5);
    for (const p of filtered.body.data) expect(['carrier_d', provider.network]).toContain(p.carrier.code);
    expect(filtered.body.sources.map((s: any) => s.carrier.code)).toEqual(['carrier_d', provider.network]);

    const brno = { latitude: 49.1951, longitude: 16.6068 };
    const elsewhere = await list(
      order.id,
      store.auth,
      `?carrier=carrier_a&latitude=${brno.latitude}&longitude=${brno.longitude}`,
    );
    expect(elsewhere.status).toBe(200);
    expect(elsewhere.body.search).toMatchObject({ ...brno, source: 'request' });
    expect(elsewhere.body.data[0].city).toBe('Brno');
    expect(elsewhere.body.data).toHaveLength(10);

    const slovakia = await list(
      order.id,
      store.auth,
      '?carrier=carrier_c&latitude=48.1486&longitude=17.1077&country_code=SK',
    );
    expect(slovakia.body.data.every((p: any) => p.country === 'SK' && /^SK\d{5}$/.test(p.id))).toBe(true);
  });

  it.each([
    ['?limit=0', 'limit'],
    ['?limit=51', 'limit'],
    ['?limit=ten', 'limit'],
    ['?latitude=50.1', 'latitude'],
    ['?latitude=91&longitude=14', 'latitude'],
    ['?country_code=cz', 'country_code'],
    ['?carrier=carrier_b', 'carrier'],
    ['?carrier=custom:unknown', 'carrier'],
    ['?radius=5', 'radius'],
  ])('refuses %s with validation_error on `%s`', async (query, parameter) => {
    const store = await pickupStore();
    const order = await aPlatformOrder(store.domain);
    const res = await list(order.id, store.auth, query);
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('validation_error');
    expect(res.body.error.details.parameter).toBe(parameter);
  });

  it('asks for coordinates when the shipping address has none', async () => {
    const store = await pickupStore();
    const order = await aPlatformOrder(store.domain, { location: null });
    const res = await list(order.id, store.auth);
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'validation_error', details: { parameter: 'latitude' } });
    expect((await list(order.id, store.auth, `?latitude=${PRAHA.latitude}&longitude=${PRAHA.longitude}`)).status).toBe(
      200,
    );
  });

  it('leaves out a provider whose headers no longer open (settings key changed); the other networks answer', async () => {
    const store = await pickupStore(['carrier_a']);
    await addProvider(
      app.orm.em.fork(),
      Buffer.alloc(32, 9),
      { storeId: store.storeId, code: 'old', name: 'Old key', url: providerUrl(aProviderName()), headers: [] },
      new Date(),
    );
    const order = await aPlatformOrder(store.domain);
    const res = await list(order.id, store.auth);
    expect(res.status).toBe(200);
    expect(res.body.sources.map((s: any) => s.carrier.code)).toEqual(['carrier_a']);
  });

  it('answers order_not_eligible for an order without a pickup-point delivery method, not_found for others', async () => {
    const store = await pickupStore();
    const home = await aPlatformOrder(store.domain, { deliveryType: 'shipping' });
    const res = await list(home.id, store.auth);
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({
      code: 'order_not_eligible',
      details: { reason: 'no_pickup_point_method', order_id: home.gid },
    });
    const other = await pickupStore();
    expect((await list(home.id, other.auth)).status).toBe(404);
    expect((await list('abc', store.auth)).status).toBe(404);
    expect((await list('99999999999', store.auth)).status).toBe(404);
  });

  it('lists what the other networks have when one carrier is down, and 503 when every one is', async () => {
    const store = await pickupStore(['carrier_a', 'carrier_d']);
    const order = await aPlatformOrder(store.domain);
    await scriptFaults(store.accounts.carrier_a!, [{ type: 'server_error', operation: 'pickup_points' }]);
    const partial = await list(order.id, store.auth);
    expect(partial.status).toBe(200);
    expect(partial.body.sources).toEqual([
      expect.objectContaining({
        carrier: expect.objectContaining({ code: 'carrier_a' }),
        status: 'unavailable',
        failure: 'error',
      }),
      expect.objectContaining({ carrier: expect.objectContaining({ code: 'carrier_d' }), status: 'ok', failure: null }),
    ]);
    expect(partial.body.data.every((p: any) => p.carrier.code === 'carrier_d')).toBe(true);

    await scriptFaults(store.accounts.carrier_a!, [{ type: 'server_error', operation: 'pickup_points' }]);
    await scriptFaults(store.accounts.carrier_d!, [{ type: 'server_error', operation: 'pickup_points' }]);
    const none = await list(order.id, store.auth);
    expect(none.status).toBe(503);
    expect(none.body.error).toMatchObject({ code: 'carrier_unavailable', details: { reason: 'carrier_error' } });
    expect(none.headers.get('retry-after')).toBe('5');
  });
});

describe('custom provider failure modes, as the merchant sees them', () => {
  async function setup() {
    const store = await pickupStore(['carrier_a']);
    const provider = await aCustomProvider(app.orm, app.config, store.storeId);
    const order = await aPlatformOrder(store.domain);
    const only = `?carrier=${encodeURIComponent(provider.network)}&limit=50`;
    const search = () => list(order.id, store.auth, only);
    const withCarrier = () => list(order.id, store.auth, '?limit=50');
    return { store, provider, order, search, withCarrier };
  }
  const sourceOf = (body: any, code: string) => body.sources.find((s: any) => s.carrier.code === code);
  /** What this API process has counted of providers' answers that it does not show. */
  async function droppedCounts() {
    const text = (await app.request('GET', '/metrics')).text;
    const count = (part: string) => sampleValue(text, 'shipping_label_pickup_provider_dropped_total', { part }) ?? 0;
    return { item: count('item'), pin: count('pin'), openingHours: count('openingHours') };
  }
  /** What was counted since `before`. */
  async function droppedSince(before: Awaited<ReturnType<typeof droppedCounts>>) {
    const now = await droppedCounts();
    return {
      item: now.item - before.item,
      pin: now.pin - before.pin,
      openingHours: now.openingHours - before.openingHours,
    };
  }

  it.each([
    ['a slow provider (past the time box)', { type: 'slow', delay_ms: 1500 }, 'timeout'],
    ['a 500 with {error}', { type: 'server_error', times: 2 }, 'error'],
    ['a 400 with {error}', { type: 'bad_request' }, 'error'],
    ['a dropped connection', { type: 'drop', times: 2 }, 'error'],
    ['an answer that is not JSON', { type: 'not_json' }, 'error'],
    ['an answer without data', { type: 'wrong_shape' }, 'error'],
    ['an answer over the size cap', { type: 'oversized' }, 'error'],
  ])(
    '%s: the carriers still answer; the provider is unavailable and its words never shown',
    async (_name, fault, failure) => {
      const t = await setup();
      await scriptProviderFaults(t.provider.sandboxName, [fault]);
      const res = await t.withCarrier();
      expect(res.status).toBe(200);
      expect(sourceOf(res.body, t.provider.network)).toMatchObject({ status: 'unavailable', failure, points_found: 0 });
      expect(sourceOf(res.body, 'carrier_a')).toMatchObject({ status: 'ok' });
      expect(res.text).not.toMatch(/Scripted|database|countryCode XX|Maintenance/);
    },
  );

  it('answers 503 carrier_unavailable when the provider is the only network and fails, without its message', async () => {
    const t = await setup();
    await scriptProviderFaults(t.provider.sandboxName, [{ type: 'server_error', times: 2 }]);
    const res = await t.search();
    expect(res.status).toBe(503);
    expect(res.body.error).toMatchObject({ code: 'carrier_unavailable', details: { reason: 'carrier_error' } });
    expect(res.text).not.toContain('Scripted');
  });

  it('retries a 500 once and then shows the answer', async () => {
    const t = await setup();
    await scriptProviderFaults(t.provider.sandboxName, [{ type: 'server_error', times: 1 }]);
    const res = await t.search();
    expect(res.status).toBe(200);
    expect(sourceOf(res.body, t.provider.network).status).toBe('ok');
    expect(await providerRequests(t.provider.sandboxName)).toHaveLength(2);
  });

  it('does not retry a 400 or a timeout', async () => {
    const t = await setup();
    await scriptProviderFaults(t.provider.sandboxName, [{ type: 'bad_request' }]);
    await t.withCarrier();
    expect(await providerRequests(t.provider.sandboxName)).toHaveLength(1);
    await scriptProviderFaults(t.provider.sandboxName, [{ type: 'slow', delay_ms: 1500 }]);
    await t.withCarrier();
    expect(await providerRequests(t.provider.sandboxName)).toHaveLength(2);
  });

  it('shows the items with every required field valid, each without its unusable optional fields', async () => {
    const t = await setup();
    const before = await droppedCounts();
    await scriptProviderFaults(t.provider.sandboxName, [{ type: 'malformed_items' }]);
    const res = await t.search();
    expect(res.status).toBe(200);
    // gen-4 has a script as its pin, gen-5 a day that is no range, gen-6 an unknown weekday: the points stay.
    expect(res.body.data.map((p: any) => p.id)).toEqual(['gen-1', 'gen-4', 'gen-5', 'gen-6', 'gen-9']);
    const byId = (id: string) => res.body.data.find((p: any) => p.id === id);
    expect(byId('gen-4')).toMatchObject({
      pin_url: null,
      opening_hours: { monday: [{ opens: '08:00', closes: '16:00' }] },
    });
    expect(byId('gen-5').opening_hours.monday).toEqual([]);
    expect(byId('gen-6').opening_hours.monday).toEqual([]);
    // Counted for the operator: five items dropped whole, one pin and two opening-hours entries left out.
    expect(await droppedSince(before)).toEqual({ item: 5, pin: 1, openingHours: 2 });
  });

  it('keeps a point with a bad pin, a capitalised weekday or a night range, leaving out only what is unusable', async () => {
    const t = await setup();
    const point = (id: string, extra: Record<string, unknown>, north: number) => ({
      id,
      latitude: PRAHA.latitude + north * 0.001,
      longitude: PRAHA.longitude,
      name: `Shop ${id}`,
      street: 'Dlouhá 1',
      city: 'Praha',
      zip: '110 00',
      country: 'CZ',
      ...extra,
    });
    const before = await droppedCounts();
    await setProviderPoints(t.provider.sandboxName, [
      point('bad-pin', { pin: 'ftp://pins.example.com/a.png', openingHours: { monday: '08:00 - 12:00' } }, 1),
      point(
        'capitalised',
        { pin: 'https://pins.example.com/b.png', openingHours: { Monday: '08:00 - 12:00', tuesday: '09:00 - 17:00' } },
        2,
      ),
      point(
        'night',
        {
          openingHours: { friday: '10:00 - 14:00, 22:00 - 06:00', saturday: '05:00 - 12:00', sunday: '20:00 - 02:00' },
        },
        3,
      ),
    ]);
    const res = await t.search();
    expect(res.status).toBe(200);
    expect(sourceOf(res.body, t.provider.network)).toMatchObject({ status: 'ok', points_found: 3 });
    const byId = (id: string) => res.body.data.find((p: any) => p.id === id);
    expect(byId('bad-pin')).toMatchObject({
      pin_url: null,
      opening_hours: { monday: [{ opens: '08:00', closes: '12:00' }] },
    });
    // "Monday" is no key of the contract's: the day is absent, so closed; the other days stand.
    expect(byId('capitalised')).toMatchObject({
      pin_url: 'https://pins.example.com/b.png',
      opening_hours: { monday: [], tuesday: [{ opens: '09:00', closes: '17:00' }] },
    });
    // A range past midnight is the contract's HH:MM - HH:MM too: it ends the day and opens the next.
    expect(byId('night').opening_hours).toMatchObject({
      friday: [
        { opens: '10:00', closes: '14:00' },
        { opens: '22:00', closes: '24:00' },
      ],
      saturday: [{ opens: '00:00', closes: '12:00' }],
      sunday: [{ opens: '20:00', closes: '24:00' }],
      monday: [{ opens: '00:00', closes: '02:00' }],
    });
    expect(await droppedSince(before)).toEqual({ item: 0, pin: 1, openingHours: 1 });
  });

  it('processes only the first 50 of 80 items', async () => {
    const t = await setup();
    await scriptProviderFaults(t.provider.sandboxName, [{ type: 'many_items' }]);
    const res = await t.search();
    expect(res.body.data).toHaveLength(50);
    expect(res.body.data.at(-1).id).toBe('gen-50');
    expect(sourceOf(res.body, t.provider.network).points_found).toBe(50);
  });

  it("keeps an unsorted answer in the provider's order", async () => {
    const t = await setup();
    await scriptProviderFaults(t.provider.sandboxName, [{ type: 'unsorted' }]);
    const res = await t.search();
    expect(res.body.data.map((p: any) => p.id)).toEqual(Array.from({ length: 10 }, (_, i) => `gen-${10 - i}`));
  });

  it('serves the last answer as stale while the provider is down', async () => {
    const t = await setup();
    const fresh = await t.search();
    expect(sourceOf(fresh.body, t.provider.network).status).toBe('ok');
    await scriptProviderFaults(t.provider.sandboxName, [{ type: 'server_error', times: 2 }]);
    const stale = await t.search();
    expect(stale.status).toBe(200);
    expect(sourceOf(stale.body, t.provider.network)).toMatchObject({ status: 'stale', failure: null });
    expect(stale.body.data.map((p: any) => p.id)).toEqual(fresh.body.data.map((p: any) => p.id));
  });

  it('sends the configured header and never returns it', async () => {
    const t = await setup();
    const res = await t.withCarrier();
    const [request] = await providerRequests(t.provider.sandboxName);
    expect(request!.headers['x-provider-key']).toBe(t.provider.secret);
    expect(request!.headers['x-origin-service']).toBe('shipping-label-api/pickup-points');
    expect(request!.headers['content-type']).toBe('application/json');
    expect(res.text).not.toContain(t.provider.secret);
    const order = await app.request('GET', `/v1/orders/${t.order.id}`, { headers: t.store.auth });
    expect(order.status).toBe(200);
    expect(order.text).not.toContain(t.provider.secret);
    expect((await app.request('GET', '/v1/openapi.json')).text).not.toContain(t.provider.secret);
  });

  it('a wrong key is a provider failure (401 with {error}), reported as unavailable', async () => {
    const t = await setup();
    await configureProvider(t.provider.sandboxName, { 'X-Provider-Key': 'another-secret' });
    const res = await t.withCarrier();
    expect(sourceOf(res.body, t.provider.network)).toMatchObject({ status: 'unavailable', failure: 'error' });
  });
});

describe('the provider cache, with the configured TTL', () => {
  let cached: TestApp;
  beforeAll(async () => {
    cached = await startTestApp();
  });
  afterAll(async () => cached.close());

  it('asks the provider once per location, with the location as it is (never rounded)', async () => {
    const store = await aPickupStore(cached.orm, ['carrier_a']);
    const provider = await aCustomProvider(cached.orm, cached.config, store.storeId);
    const order = await aPlatformOrder(store.domain);
    const at = (latitude: number, longitude: number) =>
      cached.request(
        'GET',
        `/v1/orders/${order.id}/pickup-points?carrier=${provider.network}&latitude=${latitude}&longitude=${longitude}`,
        { headers: store.auth },
      );
    const first = await at(50.07551, 14.43779);
    const again = await at(50.07551, 14.43779);
    expect(again.body.data.map((p: any) => p.id)).toEqual(first.body.data.map((p: any) => p.id));
    expect(await providerRequests(provider.sandboxName)).toHaveLength(1);
    // About 20 m away is another location: asked again, with its own coordinates.
    await at(50.07569, 14.43801);
    expect((await providerRequests(provider.sandboxName)).map((r) => [r.body.latitude, r.body.longitude])).toEqual([
      [50.07551, 14.43779],
      [50.07569, 14.43801],
    ]);
  });
});

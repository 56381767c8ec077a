import { aCarrierAAccount } from '../helpers/creation';
import { aCarrierAccount } from '../helpers/labels';
import { aStoreWithKey } from '../helpers/stores';
import { startTestApp, type TestApp } from '../helpers/test-app';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => app.close());

describe('GET /v1/carrier-accounts', () => {
  it('lists the store’s accounts with services, options, declared value, COD rounding and API creation', async () => {
    const shop = await aStoreWithKey(app.orm, { scopes: [] });
    const a = await aCarrierAAccount(app.orm, shop.storeId, { defaultFulfillment: 'fulfill', printTag: 'printed' });
    const d = await aCarrierAccount(app.orm, shop.storeId, {
      carrierCode: 'carrier_d',
      apiCreation: 'not_enabled',
      sender: { name: 'Shop', countryCode: 'CZ', iban: 'CZ65 secret' },
    });
    const res = await app.request('GET', '/v1/carrier-accounts', { headers: shop.auth });
    expect(res.status).toBe(200);
    expect(res.body.data.map((x: { id: string }) => x.id)).toEqual([a.id, d.id]);
    expect(res.body.data[0]).toEqual({
      id: a.id,
      name: 'Carrier A',
      carrier: {
        code: 'carrier_a',
        name: 'Carrier A',
        cod: {
          supported: true,
          rounding_by_currency: { CZK: { mode: 'whole' }, HUF: { mode: 'up_to_multiple', multiple: 20 } },
        },
      },
      currency: 'CZK',
      api_creation: 'enabled',
      services: [
        { code: 'a_home', name: 'Home delivery', cod_supported: true, pickup_point_required: false },
        { code: 'a_pickup', name: 'Pickup point', cod_supported: true, pickup_point_required: true },
      ],
      options: { consign_password: { type: 'boolean', default: false, description: 'Ask for a password' } },
      declared_value: { supported: true },
      default_fulfillment: 'fulfill',
      sender: { name: 'Shop s.r.o.', country_code: 'CZ' },
      print_tag: 'printed',
      created_at: expect.stringMatching(/Z$/),
      updated_at: expect.stringMatching(/Z$/),
    });
    expect(res.body.data[1]).toMatchObject({
      api_creation: 'not_enabled',
      declared_value: { supported: false },
      carrier: { cod: { rounding_by_currency: { '*': { mode: 'whole' } } } },
    });
    expect(res.text).not.toContain('secret');

    const filtered = await app.request('GET', '/v1/carrier-accounts?carrier=carrier_d&api_creation=not_enabled', {
      headers: shop.auth,
    });
    expect(filtered.body.data.map((x: { id: string }) => x.id)).toEqual([d.id]);
    const bad = await app.request('GET', '/v1/carrier-accounts?api_creation=maybe', { headers: shop.auth });
    expect(bad.status).toBe(422);
    expect(bad.body.error.details).toMatchObject({ parameter: 'api_creation', allowed: ['enabled', 'not_enabled'] });
  });

  it('reads one account; another store’s, unknown and malformed IDs answer 404 alike', async () => {
    const shop = await aStoreWithKey(app.orm);
    const other = await aStoreWithKey(app.orm);
    const mine = await aCarrierAAccount(app.orm, shop.storeId);
    const theirs = await aCarrierAAccount(app.orm, other.storeId);
    const res = await app.request('GET', `/v1/carrier-accounts/${mine.id}`, { headers: shop.auth });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: mine.id, carrier: { code: 'carrier_a' } });
    for (const id of [theirs.id, 'ca_doesnotexist', 'nonsense'])
      expect((await app.request('GET', `/v1/carrier-accounts/${id}`, { headers: shop.auth })).body.error.code).toBe(
        'not_found',
      );
  });
});

import type { ContextPickupPoint } from '../../src/domain/creation-context';
import { decideDeclaredValue, type DeclaredValueInput } from '../../src/domain/declared-value';
import { preCarrierChecks, type PreCarrierInput } from '../../src/domain/pre-carrier-checks';
import { aFulfillmentOrder, anAccount, anOrder, czk } from '../helpers/creation-context';

const point = (overrides: Partial<ContextPickupPoint> = {}): ContextPickupPoint => ({
  id: '4410',
  carrierCode: 'carrier_a',
  name: null,
  country: 'CZ',
  ...overrides,
});
const withPoint = (p: ContextPickupPoint) => ({
  deliveryMethod: { type: 'pickup' as const, title: null, pickupPoint: p },
});
const home = { code: 'home', name: 'Home', codSupported: true, pickupPointRequired: false };
const pickup = { code: 'pickup', name: 'Pickup', codSupported: true, pickupPointRequired: true };

function check(overrides: {
  carrier?: string;
  service?: typeof home;
  order?: Parameters<typeof anOrder>[0];
  cod?: string;
  declared?: { amount: string; currency: string } | null;
  weight?: number | null;
  sender?: { name: string; countryCode: string | null; iban: string | null };
}) {
  const input: PreCarrierInput = {
    account: anAccount({
      carrierCode: overrides.carrier ?? 'carrier_a',
      sender: overrides.sender ?? { name: 'Shop', countryCode: 'CZ', iban: 'CZ65' },
    }),
    service: overrides.service ?? home,
    order: anOrder(overrides.order),
    codToCarrier: czk(overrides.cod ?? '0.00'),
    declaredValueToCarrier: overrides.declared === undefined ? null : overrides.declared,
    weightGrams: overrides.weight === undefined ? 1000 : overrides.weight,
  };
  return preCarrierChecks(input);
}

describe('preCarrierChecks: every label_validation_failed issue code', () => {
  it.each<[string, Parameters<typeof check>[0], Array<Record<string, unknown>>]>([
    ['nothing wrong', {}, []],
    ['pickup_point_required', { service: pickup }, [{ code: 'pickup_point_required' }]],
    [
      'pickup_point_malformed',
      { service: pickup, order: withPoint(point({ id: 'PP-1' })) },
      [{ code: 'pickup_point_malformed', raw: 'PP-1' }],
    ],
    [
      'pickup_point_id_missing',
      { service: pickup, order: withPoint(point({ id: ' ' })) },
      [{ code: 'pickup_point_id_missing' }],
    ],
    [
      'carrier_a_foreign_pickup_point',
      { service: pickup, order: withPoint(point({ carrierCode: 'carrier_d' })) },
      [{ code: 'carrier_a_foreign_pickup_point', raw: 'carrier_d' }],
    ],
    [
      'psd_requires_carrier_point (a store’s own point)',
      { carrier: 'carrier_c', service: pickup, order: withPoint(point({ id: 'shop-1', carrierCode: null })) },
      [
        { code: 'pickup_point_malformed', raw: 'shop-1' },
        { code: 'psd_requires_carrier_point', raw: 'custom' },
      ],
    ],
    [
      'missing_phone: carrier C with a pickup point',
      {
        carrier: 'carrier_c',
        service: pickup,
        order: { ...withPoint(point({ id: 'CZ10001', carrierCode: 'carrier_c' })), phone: null },
      },
      [{ code: 'missing_phone', field: 'phone' }],
    ],
    [
      'cod_foreign_pickup_point: carrier D, COD to a point abroad',
      {
        carrier: 'carrier_d',
        service: pickup,
        cod: '10.00',
        order: withPoint(point({ id: 'KM10000075', carrierCode: 'carrier_d', country: 'SK' })),
      },
      [{ code: 'cod_foreign_pickup_point', raw: 'SK' }],
    ],
    [
      'email_invalid: carrier D',
      { carrier: 'carrier_d', order: { email: 'jana@example' } },
      [{ code: 'email_invalid', field: 'email', raw: 'jana@example' }],
    ],
    ['cod_not_supported', { service: { ...home, codSupported: false }, cod: '1.00' }, [{ code: 'cod_not_supported' }]],
    [
      'cod_dropped_by_carrier_module',
      { carrier: 'carrier_f', cod: '1.00' },
      [{ code: 'cod_dropped_by_carrier_module' }],
    ],
    [
      'cod_bank_account_missing: carrier B',
      { carrier: 'carrier_b', cod: '1.00', sender: { name: 'S', countryCode: 'CZ', iban: null } },
      [{ code: 'cod_bank_account_missing' }],
    ],
    [
      'cod_variable_symbol_missing: carrier B',
      { carrier: 'carrier_b', cod: '1.00', order: { name: '#ABC' } },
      [{ code: 'cod_variable_symbol_missing', raw: '#ABC' }],
    ],
    [
      'cod_packet_currency_mismatch: carrier A',
      { cod: '1.00', declared: { amount: '10.00', currency: 'EUR' } },
      [{ code: 'cod_packet_currency_mismatch' }],
    ],
    [
      'account_config_incomplete: no shipping address',
      { order: { shippingAddress: null } },
      [{ code: 'account_config_incomplete', raw: 'shipping_address_missing' }],
    ],
    [
      'account_config_incomplete: no sender country',
      { sender: { name: 'S', countryCode: null, iban: null } },
      [{ code: 'account_config_incomplete', raw: 'sender_country_missing' }],
    ],
    [
      'account_config_incomplete: no parcel weight',
      { weight: null },
      [{ code: 'account_config_incomplete', field: 'parcels', raw: 'parcel_weight_unknown' }],
    ],
  ])('%s', (_name, input, issues) => {
    expect(check(input).issues).toEqual(issues);
  });

  it.each<[string, Parameters<typeof check>[0]]>([
    [
      'carrier B without COD needs no IBAN nor digits',
      { carrier: 'carrier_b', order: { name: '#ABC' }, sender: { name: 'S', countryCode: 'CZ', iban: null } },
    ],
    [
      'carrier D COD to a point at home',
      {
        carrier: 'carrier_d',
        service: pickup,
        cod: '1.00',
        order: withPoint(point({ id: 'KM10000001', carrierCode: 'carrier_d' })),
      },
    ],
    ['carrier D without an e-mail', { carrier: 'carrier_d', order: { email: null } }],
    ['carrier A with its own point', { service: pickup, order: withPoint(point()) }],
    ['carrier A packet value in the COD currency', { cod: '1.00', declared: czk('10.00') }],
    ['no COD: a service without COD is fine', { service: { ...home, codSupported: false } }],
  ])('no issue: %s', (_name, input) => {
    expect(check(input).issues).toEqual([]);
  });

  // The IDs each network issues (the sandbox networks' first points) pass at their own carrier and only there.
  it.each([
    ['carrier_a', '1001', ['CZ10001', 'KM10000001', '12345678901']],
    ['carrier_c', 'CZ10001', ['1001', 'KM10000001', 'CZ1000', 'cz10001']],
    ['carrier_d', 'KM10000001', ['1001', 'CZ10001', 'KM1000000', 'KM100000001']],
  ])('%s takes %s and answers pickup_point_malformed for its other IDs', (carrier, own, others) => {
    const issuesFor = (id: string) =>
      check({ carrier, service: pickup, order: withPoint(point({ id, carrierCode: carrier })) }).issues;
    expect(issuesFor(own)).toEqual([]);
    for (const id of others) expect(issuesFor(id)).toEqual([{ code: 'pickup_point_malformed', raw: id }]);
  });

  it('lists every issue at once', () => {
    const result = check({
      carrier: 'carrier_b',
      cod: '1.00',
      order: { name: '#ABC', shippingAddress: null },
      sender: { name: 'S', countryCode: 'CZ', iban: null },
    });
    expect(result.issues.map((i) => i.code)).toEqual([
      'account_config_incomplete',
      'cod_bank_account_missing',
      'cod_variable_symbol_missing',
    ]);
  });

  it('warns of a missing phone everywhere else, and of a pickup point a home service does not use', () => {
    expect(check({ order: { phone: null } })).toMatchObject({ issues: [], warnings: [{ code: 'missing_phone' }] });
    expect(check({ carrier: 'carrier_c', order: { phone: null } }).warnings.map((w) => w.code)).toEqual([
      'missing_phone',
    ]);
    const homeToPoint = check({ order: withPoint(point()) });
    expect(homeToPoint).toMatchObject({
      issues: [],
      usesPickupPoint: false,
      warnings: [{ code: 'pickup_point_not_used' }],
    });
    expect(check({ service: pickup, order: withPoint(point()) }).usesPickupPoint).toBe(true);
  });
});

describe('decideDeclaredValue', () => {
  const input = (overrides: Partial<DeclaredValueInput> = {}): DeclaredValueInput => ({
    requestDeclaredValue: null,
    supported: true,
    carrierCode: 'carrier_a',
    order: anOrder(),
    target: [aFulfillmentOrder(1, { goodsValueHundredths: 40_000 })],
    fulfillmentOrders: [
      aFulfillmentOrder(1, { goodsValueHundredths: 40_000 }),
      aFulfillmentOrder(2, { goodsValueHundredths: 60_000 }),
    ],
    labelCurrency: 'CZK',
    ...overrides,
  });
  const packet = { 'custom.packet_value': '50', 'custom.converted_currency': 'EUR' };

  it.each<[string, Partial<DeclaredValueInput>, unknown]>([
    [
      'from the request',
      { requestDeclaredValue: czk('123.00') },
      { decided: { ...czk('123.00'), source: 'request' }, toCarrier: czk('123.00') },
    ],
    [
      'from the order: goods value of the label’s fulfillment orders',
      {},
      { decided: { ...czk('400.00'), source: 'order' }, toCarrier: czk('400.00') },
    ],
    [
      'carrier A packet value, scaled to the label’s share',
      { order: anOrder({ metafields: packet }) },
      {
        decided: { amount: '20.00', currency: 'EUR', source: 'order' },
        toCarrier: { amount: '20.00', currency: 'EUR' },
      },
    ],
    [
      'none where the account takes none',
      { supported: false, carrierCode: 'carrier_c' },
      { decided: null, toCarrier: null },
    ],
  ])('%s', (_name, overrides, expected) => {
    const result = decideDeclaredValue(input(overrides));
    expect(result.ok && result.value).toEqual({ declaredValue: expected, issues: [] });
  });

  it('refuses a request value in another currency', () => {
    expect(decideDeclaredValue(input({ requestDeclaredValue: { amount: '1.00', currency: 'EUR' } }))).toMatchObject({
      ok: false,
      refusal: { code: 'currency_mismatch', details: { field: 'declared_value', expected_currency: 'CZK' } },
    });
  });

  it('reports an unusable packet value', () => {
    const result = decideDeclaredValue(input({ order: anOrder({ metafields: { 'custom.packet_value': 'x' } }) }));
    expect(result.ok && result.value.issues.map((i) => i.field)).toEqual([
      'custom.packet_value',
      'custom.converted_currency',
    ]);
  });
});

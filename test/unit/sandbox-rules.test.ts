import { accountLabelSize, CARRIERS } from '../../src/domain/carrier-catalog';
import { takeFault, withDefaultOperation, faultSchema } from '../../src/carriers/sandbox/faults';
import { reasonFromNativeCode, NATIVE_REFUSAL_CODES } from '../../src/carriers/sandbox-api/refusal-codes';
import { naturalRefusal } from '../../src/carriers/sandbox/refusals';
import type { SimulatorShipment } from '../../src/carriers/sandbox-api/shipment-body';
import { CARRIER_REJECTION_REASONS } from '../../src/carriers/port';
import { legacyIdOf, normalizeOrderName } from '../../src/platform/sandbox/state';
import { pageSizeName } from '../../src/pdf/inspect';
import { PAGE_SIZES } from '../../src/domain/carrier-catalog';

function aShipment(overrides: Partial<SimulatorShipment> = {}): SimulatorShipment {
  return {
    reference: 'ref-1',
    order_name: '#1001',
    service_code: 'a_home',
    recipient: { name: 'Jana Nováková' },
    address: { street: 'Dlouhá 1', city: 'Praha', postcode: '110 00', country: 'CZ' },
    phone: '+420600000000',
    email: 'jana@example.com',
    pickup_point: null,
    weight_grams: 1000,
    cod: null,
    declared_value: null,
    options: {},
    sender_country: 'CZ',
    ...overrides,
  };
}

describe('naturalRefusal', () => {
  it.each<[string, string, Partial<SimulatorShipment>, string | null]>([
    ['accepts a valid home delivery', 'carrier_a', {}, null],
    ['unknown service', 'carrier_a', { service_code: 'x' }, 'service_not_available'],
    ['carrier A over 10 kg', 'carrier_a', { weight_grams: 10_001 }, 'weight_out_of_range'],
    ['zero weight', 'carrier_c', { service_code: 'c_home', weight_grams: 0 }, 'weight_out_of_range'],
    [
      'bad CZ postcode',
      'carrier_a',
      { address: { street: 'a', city: 'b', postcode: '1100', country: 'CZ' } },
      'postcode_invalid',
    ],
    [
      'empty street',
      'carrier_a',
      { address: { street: ' ', city: 'b', postcode: '110 00', country: 'CZ' } },
      'address_invalid',
    ],
    ['pickup-only service without a point', 'carrier_a', { service_code: 'a_pickup' }, 'pickup_point_invalid'],
    [
      'unknown pickup point',
      'carrier_a',
      { service_code: 'a_pickup', pickup_point: { id: 'nope', country: 'CZ' } },
      'pickup_point_invalid',
    ],
    ['COD over the CZK limit', 'carrier_a', { cod: { amount: '100000.01', currency: 'CZK' } }, 'cod_limit'],
    [
      'carrier B COD without IBAN',
      'carrier_b',
      { service_code: 'b_standard', cod: { amount: '10.00', currency: 'CZK' } },
      'other',
    ],
    [
      'carrier B COD with IBAN but no digits in the name',
      'carrier_b',
      { service_code: 'b_standard', order_name: '#ABC', iban: 'CZ65', cod: { amount: '10.00', currency: 'CZK' } },
      'other',
    ],
    [
      'carrier B COD with IBAN and digits',
      'carrier_b',
      { service_code: 'b_standard', iban: 'CZ65', cod: { amount: '10.00', currency: 'CZK' } },
      null,
    ],
    [
      'carrier C pickup point without phone',
      'carrier_c',
      { service_code: 'c_pickup', phone: null, pickup_point: { id: 'CZ10001', country: 'CZ' } },
      'address_invalid',
    ],
    [
      "carrier C refuses a point ID outside its own format (another carrier's)",
      'carrier_c',
      { service_code: 'c_pickup', pickup_point: { id: '4410', country: 'CZ' } },
      'pickup_point_invalid',
    ],
    [
      'carrier C pickup point in its format',
      'carrier_c',
      { service_code: 'c_pickup', pickup_point: { id: 'CZ10001', country: 'CZ' } },
      null,
    ],
    ['carrier D invalid e-mail', 'carrier_d', { service_code: 'd_home', email: 'jana@' }, 'address_invalid'],
    [
      'carrier D COD to a foreign pickup point',
      'carrier_d',
      {
        service_code: 'd_pickup',
        pickup_point: { id: 'KM10000075', country: 'SK' },
        cod: { amount: '5.00', currency: 'EUR' },
      },
      'pickup_point_invalid',
    ],
    [
      'carrier D COD to a domestic pickup point',
      'carrier_d',
      {
        service_code: 'd_pickup',
        pickup_point: { id: 'KM10000001', country: 'CZ' },
        cod: { amount: '5.00', currency: 'CZK' },
      },
      null,
    ],
    ['carrier E standard service', 'carrier_e', { service_code: 'standard' }, null],
  ])('%s', (_name, carrier, overrides, expected) => {
    expect(naturalRefusal(carrier, aShipment(overrides))?.reason ?? null).toBe(expected);
  });
});

describe('refusal codes', () => {
  it.each(
    Object.keys(NATIVE_REFUSAL_CODES).flatMap((carrier) =>
      CARRIER_REJECTION_REASONS.map((reason) => [carrier, reason] as const),
    ),
  )('%s native code of %s maps back', (carrier, reason) => {
    expect(reasonFromNativeCode(carrier, NATIVE_REFUSAL_CODES[carrier]![reason])).toBe(reason);
  });
  it('maps an unknown native code to other', () => {
    expect(reasonFromNativeCode('carrier_a', 'SomethingNew')).toBe('other');
    expect(reasonFromNativeCode('carrier_e', 'cod_limit')).toBe('cod_limit');
  });
});

describe('takeFault', () => {
  it('uses a fault `times` times for its operation only, then drops it', () => {
    const queue = [
      withDefaultOperation(faultSchema.parse({ type: 'server_error', times: 2 })),
      withDefaultOperation(faultSchema.parse({ type: 'render_error' })),
    ];
    expect(takeFault(queue, 'label')?.type).toBe('render_error');
    expect(takeFault(queue, 'label')).toBeNull();
    expect(takeFault(queue, 'create')?.type).toBe('server_error');
    expect(takeFault(queue, 'create')?.type).toBe('server_error');
    expect(takeFault(queue, 'create')).toBeNull();
    expect(queue).toHaveLength(0);
  });
  it('a reject fault needs a reason', () => {
    expect(faultSchema.safeParse({ type: 'reject' }).success).toBe(false);
  });
});

describe('platform identifiers and names', () => {
  it.each([
    ['1001', '1001'],
    ['gid://shopify/Order/1001', '1001'],
    ['gid://shopify/FulfillmentOrder/77', '77'],
  ])('legacyIdOf(%s)', (id, expected) => expect(legacyIdOf(id)).toBe(expected));
  it.each([
    ['#1001', '1001'],
    ['1001', '1001'],
    ['#CZ1001', 'cz1001'],
  ])('normalizeOrderName(%s)', (name, expected) => expect(normalizeOrderName(name)).toBe(expected));
});

describe('page sizes', () => {
  it.each(Object.entries(PAGE_SIZES))('%s is recognised', (name, size) =>
    expect(pageSizeName(size.width, size.height)).toBe(name),
  );
  it.each([
    ['carrier_b', { printerType: 'thermal' as const }, '10x15'],
    ['carrier_b', {}, 'A6'],
    ['carrier_e', { portalLabelSize: '10x15' as const }, '10x15'],
    ['carrier_d', {}, 'roll_101x160'],
  ])('accountLabelSize %s', (code, account, expected) =>
    expect(accountLabelSize(CARRIERS[code]!, account)).toBe(expected),
  );
});

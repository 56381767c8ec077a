import fc from 'fast-check';
import { createLabelBodySchema } from '../../src/api/labels/create-schema';
import { idempotencyFingerprint, normalizeCreationRequest, requestedWire } from '../../src/domain/creation-request';

const parse = (body: unknown) => createLabelBodySchema.parse(body);
const fingerprint = (body: unknown) => idempotencyFingerprint(normalizeCreationRequest(parse(body)));

describe('normalizeCreationRequest', () => {
  it('fills every default and writes IDs as GIDs', () => {
    expect(requestedWire(normalizeCreationRequest(parse({ order_id: '1001' })))).toEqual({
      order_id: 'gid://shopify/Order/1001',
      order_name: null,
      fulfillment_order_ids: null,
      all_locations: false,
      carrier_account_id: null,
      service_code: null,
      parcels: null,
      cod: null,
      declared_value: null,
      carrier_options: {},
      fulfillment: 'account_default',
      on_existing: 'return',
      replaces: [],
      include: [],
      client_reference: null,
      dry_run: false,
    });
  });

  it.each<[string, unknown, unknown]>([
    ['numeric order ID and GID', { order_id: '1001' }, { order_id: 'gid://shopify/Order/1001' }],
    ['order name with # and case', { order_name: '#CZ-1001' }, { order_name: 'cz-1001' }],
    ['order name with spaces', { order_name: ' #cz-1001 ' }, { order_name: 'CZ-1001' }],
    [
      'fulfillment order numeric and GID',
      { order_id: '1', fulfillment_order_ids: ['501'] },
      { order_id: '1', fulfillment_order_ids: ['gid://shopify/FulfillmentOrder/501'] },
    ],
    [
      'amounts with and without decimals',
      { order_id: '1', cod: { amount: '5', currency: 'CZK' }, declared_value: { amount: '7.5', currency: 'CZK' } },
      {
        order_id: '1',
        cod: { amount: '5.00', currency: 'CZK' },
        declared_value: { amount: '007.50', currency: 'CZK' },
      },
    ],
    [
      'defaults given or left out',
      { order_id: '1' },
      {
        order_id: '1',
        all_locations: false,
        fulfillment: 'account_default',
        on_existing: 'return',
        replaces: [],
        include: [],
        carrier_options: {},
        client_reference: null,
        cod: null,
        parcels: null,
      },
    ],
    [
      'replaces in any order, duplicates once',
      { order_id: '1', on_existing: 'create_new', replaces: ['lbl_b', 'lcr_a'] },
      { order_id: '1', on_existing: 'create_new', replaces: ['lcr_a', 'lbl_b', 'lbl_b'] },
    ],
    [
      'carrier options in any key order',
      { order_id: '1', carrier_options: { b: 1, a: true } },
      { carrier_options: { a: true, b: 1 }, order_id: '1' },
    ],
    ['dry_run does not count', { order_id: '1', dry_run: true }, { order_id: '1' }],
  ])('treats %s as the same request', (_name, a, b) => {
    expect(fingerprint(a)).toBe(fingerprint(b));
  });

  it.each<[string, unknown, unknown]>([
    ['another order', { order_id: '1001' }, { order_id: '1002' }],
    ['order by ID and by name', { order_id: '1001' }, { order_name: '1001' }],
    [
      'another amount',
      { order_id: '1', cod: { amount: '5', currency: 'CZK' } },
      { order_id: '1', cod: { amount: '5.01', currency: 'CZK' } },
    ],
    ['explicit zero COD and derived COD', { order_id: '1', cod: { amount: '0', currency: 'CZK' } }, { order_id: '1' }],
    ['another mode', { order_id: '1', on_existing: 'reject' }, { order_id: '1' }],
    ['another client reference', { order_id: '1', client_reference: 'a' }, { order_id: '1', client_reference: 'b' }],
  ])('tells %s apart', (_name, a, b) => {
    expect(fingerprint(a)).not.toBe(fingerprint(b));
  });
});

// Bodies the schema accepts, in every equivalent spelling the normalization must see through.
const digits = fc.stringMatching(/^[1-9][0-9]{0,9}$/);
const amountArb = fc
  .tuple(fc.integer({ min: 0, max: 999_999_999 }), fc.constantFrom('plain', 'two', 'one', 'zeros'))
  .map(([hundredths, style]) => {
    const whole = Math.floor(hundredths / 100);
    const cents = hundredths % 100;
    if (style === 'plain' && cents === 0) return String(whole);
    if (style === 'one' && cents % 10 === 0) return `${whole}.${cents / 10}`;
    if (style === 'zeros') return `00${whole}.${String(cents).padStart(2, '0')}`;
    return `${whole}.${String(cents).padStart(2, '0')}`;
  });
const idSpelling = (kind: 'Order' | 'FulfillmentOrder') =>
  fc.tuple(digits, fc.boolean()).map(([id, gid]) => (gid ? `gid://shopify/${kind}/${id}` : id));
const nameSpelling = fc
  .tuple(fc.stringMatching(/^[A-Za-z0-9-]{1,12}$/), fc.boolean(), fc.boolean())
  .map(([name, hash, upper]) => `${hash ? '#' : ''}${upper ? name.toUpperCase() : name.toLowerCase()}`);
const money = fc.record({ amount: amountArb, currency: fc.constantFrom('CZK', 'EUR', 'HUF') });

const bodyArb: fc.Arbitrary<Record<string, unknown>> = fc
  .record(
    {
      order: fc.oneof(
        idSpelling('Order').map((order_id) => ({ order_id })),
        nameSpelling.map((order_name) => ({ order_name })),
      ),
      fulfillment_order_ids: fc.option(fc.tuple(idSpelling('FulfillmentOrder')), { nil: undefined }),
      carrier: fc.option(
        fc.record({
          carrier_account_id: fc.constantFrom('ca_a1', 'ca_b2'),
          service_code: fc.option(fc.constantFrom('a_home', 'a_pickup'), { nil: undefined }),
        }),
        { nil: undefined },
      ),
      parcels: fc.option(fc.tuple(fc.record({ weight_grams: fc.integer({ min: 1, max: 1_000_000 }) })), {
        nil: undefined,
      }),
      cod: fc.option(money, { nil: undefined }),
      declared_value: fc.option(money, { nil: undefined }),
      carrier_options: fc.option(
        fc.dictionary(
          fc.stringMatching(/^[a-z]{1,10}$/),
          fc.oneof(fc.boolean(), fc.integer(), fc.string({ maxLength: 5 })),
        ),
        { nil: undefined },
      ),
      fulfillment: fc.option(fc.constantFrom('account_default', 'none', 'fulfill', 'fulfill_and_notify'), {
        nil: undefined,
      }),
      mode: fc.option(
        fc.oneof(
          fc.constantFrom({ on_existing: 'return' }, { on_existing: 'reject' }),
          fc
            .array(fc.stringMatching(/^(lbl|lcr)_[A-Za-z0-9]{4}$/), { maxLength: 4 })
            .map((replaces) => ({ on_existing: 'create_new', replaces })),
        ),
        { nil: undefined },
      ),
      client_reference: fc.option(fc.string({ maxLength: 64 }), { nil: undefined }),
      dry_run: fc.option(fc.boolean(), { nil: undefined }),
    },
    { requiredKeys: ['order'] },
  )
  .map((r) => {
    const body: Record<string, unknown> = { ...r.order };
    if (r.fulfillment_order_ids) body.fulfillment_order_ids = [...r.fulfillment_order_ids];
    if (r.carrier) Object.assign(body, JSON.parse(JSON.stringify(r.carrier)));
    for (const key of [
      'parcels',
      'cod',
      'declared_value',
      'carrier_options',
      'fulfillment',
      'client_reference',
      'dry_run',
    ] as const)
      if (r[key] !== undefined) body[key] = Array.isArray(r[key]) ? [...(r[key] as unknown[])] : r[key];
    if (r.mode) Object.assign(body, r.mode);
    return body;
  });

/** The same body with its keys (at every level) in another order. */
function shuffledKeys(value: unknown, seed: number): unknown {
  if (Array.isArray(value)) return value.map((v) => shuffledKeys(v, seed));
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value as Record<string, unknown>);
  const rotated = entries
    .slice(seed % Math.max(entries.length, 1))
    .concat(entries.slice(0, seed % Math.max(entries.length, 1)));
  return Object.fromEntries(rotated.reverse().map(([k, v]) => [k, shuffledKeys(v, seed + 1)]));
}

describe('normalization properties', () => {
  it('accepts every generated body (the arbitraries stay inside the schema)', () => {
    fc.assert(fc.property(bodyArb, (body) => createLabelBodySchema.safeParse(body).success));
  });

  it('is idempotent: the normalized request sent again as a body normalizes to itself', () => {
    fc.assert(
      fc.property(bodyArb, (body) => {
        const once = normalizeCreationRequest(parse(body));
        const twice = normalizeCreationRequest(parse(requestedWire(once)));
        expect(twice).toEqual(once);
      }),
    );
  });

  it('does not depend on key order', () => {
    fc.assert(
      fc.property(bodyArb, fc.nat(20), (body, seed) => {
        expect(fingerprint(shuffledKeys(body, seed))).toBe(fingerprint(body));
      }),
    );
  });

  it('sees through equivalent spellings: GID or numeric ID, `#` and case in names, "5" or "5.00", defaults given', () => {
    fc.assert(
      fc.property(bodyArb, (body) => {
        const wire = requestedWire(normalizeCreationRequest(parse(body)));
        const respelled: Record<string, unknown> = { ...wire };
        if (wire.order_id) respelled.order_id = wire.order_id.replace('gid://shopify/Order/', '');
        else {
          respelled.order_name = `#${wire.order_name!.toUpperCase()}`;
          delete respelled.order_id;
        }
        if (wire.fulfillment_order_ids)
          respelled.fulfillment_order_ids = wire.fulfillment_order_ids.map((id) => id.split('/').pop());
        if (wire.cod) respelled.cod = { ...wire.cod, amount: wire.cod.amount.replace(/\.00$/, '') };
        if (wire.replaces.length > 0) respelled.replaces = [...wire.replaces].reverse();
        expect(fingerprint(respelled)).toBe(fingerprint(body));
      }),
    );
  });
});

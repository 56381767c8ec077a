import {
  allowedNetworks,
  closedWeek,
  customNetworkCode,
  distanceMeters,
  findOutOfOrder,
  mergeByDistance,
  parseOpeningRanges,
  parseOpeningWeek,
  pointChoiceRefusal,
  type AccountFacts,
  type AllowedNetwork,
  type OpeningHours,
  type PointChoice,
  type RuleFacts,
} from '../../src/domain/pickup-points';

const PRAHA = { latitude: 50.0755, longitude: 14.4378 };
const BRNO = { latitude: 49.1951, longitude: 16.6068 };

describe('distanceMeters', () => {
  it.each([
    ['the same place', PRAHA, PRAHA, 0, 0],
    ['Praha to Brno (about 185 km)', PRAHA, BRNO, 184_000, 186_000],
    ['a tenth of a degree north (about 11.1 km)', PRAHA, { ...PRAHA, latitude: 50.1755 }, 11_100, 11_130],
    ['across the antimeridian', { latitude: 0, longitude: 179.9 }, { latitude: 0, longitude: -179.9 }, 22_200, 22_300],
  ])('%s', (_name, a, b, min, max) => {
    const d = distanceMeters(a, b);
    expect(d).toBeGreaterThanOrEqual(min);
    expect(d).toBeLessThanOrEqual(max);
    expect(distanceMeters(b, a)).toBe(d);
  });
});

describe('findOutOfOrder', () => {
  it.each<[string, number[], number[]]>([
    ['empty', [], []],
    ['sorted', [10, 20, 30], []],
    ['equal distances', [10, 10, 10], []],
    ['within the tolerance', [100, 80, 120], []],
    ['one step back', [100, 500, 200, 600], [2]],
    ['reversed', [300, 200, 100], [1, 2]],
    ['a far first item makes every later nearer one out of order', [5000, 100, 200], [1, 2]],
  ])('%s', (_name, distances, indexes) => {
    expect(findOutOfOrder(distances).map((o) => o.index)).toEqual(indexes);
  });
  it('reports the farther distance that came before', () => {
    expect(findOutOfOrder([100, 900, 200])).toEqual([{ index: 2, distanceMeters: 200, previousDistanceMeters: 900 }]);
  });
});

describe('mergeByDistance', () => {
  const list = (name: string, distances: number[]) =>
    distances.map((d, i) => ({ item: `${name}${i}`, distanceMeters: d }));
  it.each<[string, Array<ReturnType<typeof list>>, number, string[]]>([
    ['no lists', [], 10, []],
    ['one list', [list('a', [1, 2, 3])], 10, ['a0', 'a1', 'a2']],
    [
      'interleaves by distance',
      [list('a', [1, 4, 9]), list('b', [2, 3, 10])],
      10,
      ['a0', 'b0', 'b1', 'a1', 'a2', 'b2'],
    ],
    ['ties go to the earlier list', [list('a', [5]), list('b', [5])], 10, ['a0', 'b0']],
    ['stops at the limit', [list('a', [1, 4]), list('b', [2, 3])], 3, ['a0', 'b0', 'b1']],
    ['keeps an unsorted list in its own order', [list('a', [9, 1]), list('b', [5])], 10, ['b0', 'a0', 'a1']],
  ])('%s', (_name, lists, limit, expected) => {
    expect(mergeByDistance(lists, limit).map((p) => p.item)).toEqual(expected);
  });
});

describe('parseOpeningRanges', () => {
  type Range = { opens: string; closes: string };
  const r = (opens: string, closes: string): Range => ({ opens, closes });
  it.each<[string, string, Range[] | null, Range | null]>([
    ['one range', '08:00 - 12:00', [r('08:00', '12:00')], null],
    ['two ranges', '08:00 - 12:00, 13:00 - 17:30', [r('08:00', '12:00'), r('13:00', '17:30')], null],
    ['no spaces', '08:00-12:00,13:00-17:00', [r('08:00', '12:00'), r('13:00', '17:00')], null],
    ['touching ranges', '08:00 - 12:00, 12:00 - 17:00', [r('08:00', '12:00'), r('12:00', '17:00')], null],
    ['all day', '00:00 - 24:00', [r('00:00', '24:00')], null],
    ['empty is closed', '', [], null],
    ['past midnight', '22:00 - 06:00', [r('22:00', '24:00')], r('00:00', '06:00')],
    ['closing at midnight written 00:00', '18:00 - 00:00', [r('18:00', '24:00')], null],
    [
      'a day, then past midnight',
      '10:00 - 14:00, 22:00 - 02:30',
      [r('10:00', '14:00'), r('22:00', '24:00')],
      r('00:00', '02:30'),
    ],
    ['past midnight from early evening', '17:00 - 08:00', [r('17:00', '24:00')], r('00:00', '08:00')],
    ['single digits', '8:00 - 12:00', null, null],
    ['no range', '08:00', null, null],
    ['words', 'closed', null, null],
    ['minutes over 59', '08:60 - 12:00', null, null],
    ['hour 25', '08:00 - 25:00', null, null],
    ['24:30', '08:00 - 24:30', null, null],
    ['starting at 24:00', '24:00 - 24:00', null, null],
    ['zero length', '08:00 - 08:00', null, null],
    ['overlapping', '08:00 - 12:00, 11:00 - 14:00', null, null],
    ['a range after one past midnight', '22:00 - 02:00, 08:00 - 12:00', null, null],
    ['two ranges past midnight', '22:00 - 02:00, 23:00 - 03:00', null, null],
    ['trailing comma', '08:00 - 12:00,', null, null],
  ])('%s', (_name, text, ranges, pastMidnight) => {
    const parsed = parseOpeningRanges(text);
    if (ranges === null) {
      expect(parsed.ok).toBe(false);
      if (!parsed.ok) expect(parsed.problem.length).toBeGreaterThan(0);
    } else {
      expect(parsed).toEqual({ ok: true, ranges, pastMidnight });
    }
  });
});

describe('parseOpeningWeek', () => {
  const r = (opens: string, closes: string) => ({ opens, closes });
  it.each<[string, Record<string, unknown>, Partial<OpeningHours>, string[]]>([
    ['every day absent is closed', {}, { monday: [], sunday: [] }, []],
    ['a day as given', { monday: '08:00 - 12:00' }, { monday: [r('08:00', '12:00')], tuesday: [] }, []],
    [
      'a capitalised weekday is no key of the contract: left out, that day closed, the others kept',
      { Monday: '08:00 - 12:00', tuesday: '09:00 - 17:00' },
      { monday: [], tuesday: [r('09:00', '17:00')] },
      ['Monday'],
    ],
    ['an unknown key', { mon: '08:00 - 12:00' }, { monday: [] }, ['mon']],
    [
      'a day that is no range: left out (closed), the others kept',
      { monday: '8-17', tuesday: '08:00 - 16:00' },
      { monday: [], tuesday: [r('08:00', '16:00')] },
      ['monday'],
    ],
    [
      'a day that is not text',
      { monday: 8, friday: ['08:00 - 12:00'] },
      { monday: [], friday: [] },
      ['monday', 'friday'],
    ],
    [
      'a night runs into the next day, joined with its own first range',
      { friday: '22:00 - 06:00', saturday: '05:00 - 12:00, 14:00 - 18:00' },
      { friday: [r('22:00', '24:00')], saturday: [r('00:00', '12:00'), r('14:00', '18:00')] },
      [],
    ],
    [
      'a night tail before a later range of a day that is otherwise absent',
      { tuesday: '23:00 - 01:00' },
      { tuesday: [r('23:00', '24:00')], wednesday: [r('00:00', '01:00')] },
      [],
    ],
    [
      'Sunday night runs into Monday',
      { sunday: '20:00 - 02:00', monday: '08:00 - 12:00' },
      { sunday: [r('20:00', '24:00')], monday: [r('00:00', '02:00'), r('08:00', '12:00')] },
      [],
    ],
    [
      'a tail that covers the next day’s first range',
      { monday: '20:00 - 09:00', tuesday: '08:00 - 08:30, 10:00 - 12:00' },
      { tuesday: [r('00:00', '09:00'), r('10:00', '12:00')] },
      [],
    ],
    [
      'the night of a day left out does not reach the next',
      { Friday: '22:00 - 06:00', saturday: '08:00 - 12:00' },
      { friday: [], saturday: [r('08:00', '12:00')] },
      ['Friday'],
    ],
  ])('%s', (_name, days, expected, problemKeys) => {
    const week = parseOpeningWeek(days);
    expect(week.hours).toMatchObject(expected);
    expect(week.problems.map((p) => p.key)).toEqual(problemKeys);
    for (const p of week.problems) expect(p.problem.length).toBeGreaterThan(0);
  });
});

describe('allowedNetworks', () => {
  const account = (id: string, carrierCode: string, services: AccountFacts['services']): AccountFacts => ({
    id,
    carrierCode,
    carrierName: carrierCode,
    services,
  });
  const pickup = (code: string, types?: Array<'pickup_point' | 'locker'>) => ({
    code,
    pickupPointRequired: true,
    ...(types ? { pickupPointTypes: types } : {}),
  });
  const home = (code: string) => ({ code, pickupPointRequired: false });
  const accounts = [
    account('ca_a', 'carrier_a', [home('a_home'), pickup('a_pickup')]),
    account('ca_c', 'carrier_c', [home('c_home'), pickup('c_pickup', ['pickup_point'])]),
    account('ca_d', 'carrier_d', [pickup('d_pickup')]),
    account('ca_b', 'carrier_b', [pickup('b_pickup')]),
    account('ca_e', 'carrier_e', [home('standard')]),
  ];
  const rule = (
    priority: number,
    accountId: string,
    serviceCode: string,
    conditions: RuleFacts['conditions'] = {},
  ) => ({
    priority,
    carrierAccountId: accountId,
    serviceCode,
    conditions,
  });
  const method = { type: 'pickup', title: 'Pickup point' };
  const withNetworks = new Set(['carrier_a', 'carrier_c', 'carrier_d']);
  const codes = (networks: AllowedNetwork[]) => networks.map((n) => n.code);

  it.each<[string, { type: string; title: string | null }, RuleFacts[], string[]]>([
    ['not a pickup-point method', { type: 'shipping', title: null }, [], []],
    [
      'no rules: every account with a pickup service and a network',
      method,
      [],
      ['carrier_a', 'carrier_c', 'carrier_d'],
    ],
    [
      'rules naming the method decide',
      method,
      [rule(1, 'ca_c', 'c_pickup', { deliveryMethodTypes: ['pickup'] }), rule(2, 'ca_a', 'a_home')],
      ['carrier_c'],
    ],
    [
      'a rule for another shipping method title does not count',
      method,
      [
        rule(1, 'ca_c', 'c_pickup', { shippingMethodNames: ['Locker express'] }),
        rule(2, 'ca_d', 'd_pickup', { shippingMethodNames: ['pickup point'] }),
      ],
      ['carrier_d'],
    ],
    [
      'a rule for a home service only falls back to every pickup account',
      method,
      [rule(1, 'ca_a', 'a_home', { deliveryMethodTypes: ['pickup'] })],
      ['carrier_a', 'carrier_c', 'carrier_d'],
    ],
    [
      'carriers without a network are left out',
      method,
      [rule(1, 'ca_b', 'b_pickup'), rule(2, 'ca_d', 'd_pickup')],
      ['carrier_d'],
    ],
    [
      'a rule for an unknown account is ignored',
      method,
      [rule(1, 'ca_x', 'x')],
      ['carrier_a', 'carrier_c', 'carrier_d'],
    ],
  ])('%s', (_name, deliveryMethod, rules, expected) => {
    expect(
      codes(allowedNetworks({ deliveryMethod, rules, accounts, providers: [], carriersWithNetworks: withNetworks })),
    ).toEqual(expected);
  });

  it('adds every custom provider as custom:<code> with every point type', () => {
    const networks = allowedNetworks({
      deliveryMethod: method,
      rules: [rule(1, 'ca_a', 'a_pickup')],
      accounts,
      providers: [{ id: 'pp_1', code: 'shops', name: 'Our shops' }],
      carriersWithNetworks: withNetworks,
    });
    expect(networks).toEqual([
      {
        code: 'carrier_a',
        name: 'carrier_a',
        kind: 'carrier',
        accountId: 'ca_a',
        providerId: null,
        pointTypes: ['pickup_point', 'locker'],
      },
      {
        code: customNetworkCode('shops'),
        name: 'Our shops',
        kind: 'custom_provider',
        accountId: null,
        providerId: 'pp_1',
        pointTypes: ['pickup_point', 'locker'],
      },
    ]);
  });

  it("takes point types from the services, one network per carrier through the first rule's account", () => {
    const second = account('ca_c2', 'carrier_c', [pickup('c_pickup', ['locker'])]);
    const networks = allowedNetworks({
      deliveryMethod: method,
      rules: [rule(2, 'ca_c2', 'c_pickup'), rule(1, 'ca_c', 'c_pickup')],
      accounts: [...accounts, second],
      providers: [],
      carriersWithNetworks: withNetworks,
    });
    expect(networks).toHaveLength(1);
    expect(networks[0]).toMatchObject({ accountId: 'ca_c', pointTypes: ['pickup_point'] });
  });
});

describe('pointChoiceRefusal', () => {
  const network: AllowedNetwork = {
    code: 'carrier_c',
    name: 'Carrier C',
    kind: 'carrier',
    accountId: 'ca_c',
    providerId: null,
    pointTypes: ['pickup_point'],
  };
  const base: PointChoice = {
    network,
    lookup: 'found',
    amongNearest: true,
    point: { type: 'pickup_point', requiresCustomerId: false },
    customerIdGiven: false,
  };
  it.each<[string, Partial<PointChoice>, string | null]>([
    ['a point that fits', {}, null],
    ['a network the delivery method does not offer', { network: null, lookup: 'missing' }, 'carrier_not_offered'],
    ['an ID the network does not know', { lookup: 'missing', amongNearest: false, point: null }, 'not_found'],
    ['a point far away', { amongNearest: false }, 'not_found_nearby'],
    [
      'a custom provider point not in the nearest answer',
      { lookup: 'unsupported', amongNearest: false, point: null },
      'not_found_nearby',
    ],
    ['a custom provider point among the nearest', { lookup: 'unsupported' }, null],
    [
      'a locker where the service takes only pickup points',
      { point: { type: 'locker', requiresCustomerId: false } },
      'type_not_allowed',
    ],
    [
      'a point for registered recipients without a customer ID',
      { point: { type: 'pickup_point', requiresCustomerId: true } },
      'requires_customer_id',
    ],
    [
      'a point for registered recipients with a customer ID',
      { point: { type: 'pickup_point', requiresCustomerId: true }, customerIdGiven: true },
      null,
    ],
    [
      'the type is checked before the customer ID',
      { point: { type: 'locker', requiresCustomerId: true } },
      'type_not_allowed',
    ],
    [
      'distance is checked before the type',
      { amongNearest: false, point: { type: 'locker', requiresCustomerId: true } },
      'not_found_nearby',
    ],
  ])('%s', (_name, overrides, expected) => {
    expect(pointChoiceRefusal({ ...base, ...overrides })).toBe(expected);
  });
});

describe('closedWeek', () => {
  it('has every weekday closed', () => {
    expect(Object.values(closedWeek()).every((d) => d.length === 0)).toBe(true);
    expect(Object.keys(closedWeek())).toHaveLength(7);
  });
});

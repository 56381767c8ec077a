import { conflictingFulfillmentOrders, deriveCurrentLabels, type CoverageInput } from '../../src/domain/current-labels';

type Spec = Partial<CoverageInput> & { id: string; fos?: string[] };

/** Labels in the order given are created one second apart, oldest first. */
function labels(...specs: Spec[]): CoverageInput[] {
  return specs.map((s, i) => ({
    createdAt: new Date(Date.UTC(2026, 9, 1, 12, 0, i)),
    seq: i + 1,
    status: 'ready',
    kind: 'shipment',
    coverageKnown: true,
    fulfillmentOrderIds: s.fos ?? [],
    ...s,
  }));
}

type Expected = Record<string, { current: boolean; supersedes?: string[]; supersededBy?: string[] }>;

const cases: Array<[string, CoverageInput[], Expected, 'ok' | 'ambiguous']> = [
  ['a single label is current', labels({ id: 'a', fos: ['1'] }), { a: { current: true } }, 'ok'],
  [
    'a newer label on the same fulfillment order supersedes the older one',
    labels({ id: 'a', fos: ['1'] }, { id: 'b', fos: ['1'] }),
    { a: { current: false, supersededBy: ['b'] }, b: { current: true, supersedes: ['a'] } },
    'ok',
  ],
  [
    'superseded_by lists every newer label covering the older one',
    labels({ id: 'a', fos: ['1', '2'] }, { id: 'b', fos: ['1'] }, { id: 'c', fos: ['2'] }),
    {
      a: { current: false, supersededBy: ['b', 'c'] },
      b: { current: true, supersedes: ['a'] },
      c: { current: true, supersedes: ['a'] },
    },
    'ok',
  ],
  [
    'a label stays current while one of its fulfillment orders is not covered by a newer label; the set is ambiguous',
    labels({ id: 'a', fos: ['1', '2'] }, { id: 'b', fos: ['1'] }),
    { a: { current: true }, b: { current: true } },
    'ambiguous',
  ],
  [
    'labels on different fulfillment orders are both current',
    labels({ id: 'a', fos: ['1'] }, { id: 'b', fos: ['2'] }),
    { a: { current: true }, b: { current: true } },
    'ok',
  ],
  [
    'a chain of replacements leaves only the newest current',
    labels({ id: 'a', fos: ['1'] }, { id: 'b', fos: ['1'] }, { id: 'c', fos: ['1'] }),
    {
      a: { current: false, supersededBy: ['b', 'c'] },
      b: { current: false, supersededBy: ['c'], supersedes: ['a'] },
      c: { current: true, supersedes: ['a', 'b'] },
    },
    'ok',
  ],
  [
    'failed labels are never current and do not supersede',
    labels({ id: 'a', fos: ['1'] }, { id: 'b', fos: ['1'], status: 'failed' }),
    { a: { current: true }, b: { current: false } },
    'ok',
  ],
  [
    'claims are never current and do not supersede',
    labels({ id: 'a', fos: ['1'] }, { id: 'b', fos: ['1'], kind: 'claim' }),
    { a: { current: true }, b: { current: false } },
    'ok',
  ],
  [
    'a pending label supersedes like a ready one',
    labels({ id: 'a', fos: ['1'] }, { id: 'b', fos: ['1'], status: 'pending' }),
    { a: { current: false, supersededBy: ['b'] }, b: { current: true, supersedes: ['a'] } },
    'ok',
  ],
  [
    'a collection takes part like a shipment',
    labels({ id: 'a', fos: ['1'] }, { id: 'b', fos: ['1'], kind: 'collection' }),
    { a: { current: false, supersededBy: ['b'] }, b: { current: true, supersedes: ['a'] } },
    'ok',
  ],
  [
    'a newer whole-order label supersedes every older label',
    labels({ id: 'a', fos: ['1'] }, { id: 'b', fos: ['2'] }, { id: 'c' }),
    {
      a: { current: false, supersededBy: ['c'] },
      b: { current: false, supersededBy: ['c'] },
      c: { current: true, supersedes: ['a', 'b'] },
    },
    'ok',
  ],
  [
    'a newer partial label does not supersede a whole-order label; both current and ambiguous',
    labels({ id: 'a' }, { id: 'b', fos: ['1'] }),
    { a: { current: true }, b: { current: true } },
    'ambiguous',
  ],
  [
    'a newer whole-order label supersedes an older whole-order label',
    labels({ id: 'a' }, { id: 'b' }),
    { a: { current: false, supersededBy: ['b'] }, b: { current: true, supersedes: ['a'] } },
    'ok',
  ],
  [
    'an older label without per-fulfillment-order coverage counts as covering the whole order',
    labels({ id: 'a', fos: ['1'], coverageKnown: false }, { id: 'b', fos: ['1'] }),
    { a: { current: true }, b: { current: true } },
    'ambiguous',
  ],
  [
    'a newer whole-order label supersedes a label without coverage',
    labels({ id: 'a', coverageKnown: false }, { id: 'b' }),
    { a: { current: false, supersededBy: ['b'] }, b: { current: true, supersedes: ['a'] } },
    'ok',
  ],
  [
    'a newer label without coverage supersedes older labels like a whole-order label',
    labels({ id: 'a', fos: ['1'] }, { id: 'b', fos: ['7'], coverageKnown: false }),
    { a: { current: false, supersededBy: ['b'] }, b: { current: true, supersedes: ['a'] } },
    'ok',
  ],
  [
    'only failed labels: nothing current, set ok',
    labels({ id: 'a', fos: ['1'], status: 'failed' }, { id: 'b', fos: ['1'], status: 'failed' }),
    { a: { current: false }, b: { current: false } },
    'ok',
  ],
  ['no labels', [], {}, 'ok'],
];

describe('deriveCurrentLabels', () => {
  it.each(cases)('%s', (_name, input, expected, currentSet) => {
    const derived = deriveCurrentLabels(input);
    expect(derived.size).toBe(input.length);
    for (const [id, want] of Object.entries(expected)) {
      expect(derived.get(id)).toEqual({
        current: want.current,
        supersedes: want.supersedes ?? [],
        supersededBy: want.supersededBy ?? [],
        currentSet,
      });
    }
  });

  it('orders by created_at, then by insertion within the same second, whatever the input order', () => {
    const sameSecond = new Date('2026-10-01T12:00:00Z');
    const input: CoverageInput[] = [
      {
        id: 'later',
        createdAt: sameSecond,
        seq: 2,
        status: 'ready',
        kind: 'shipment',
        fulfillmentOrderIds: ['1'],
        coverageKnown: true,
      },
      {
        id: 'earlier',
        createdAt: sameSecond,
        seq: 1,
        status: 'ready',
        kind: 'shipment',
        fulfillmentOrderIds: ['1'],
        coverageKnown: true,
      },
    ];
    const derived = deriveCurrentLabels(input);
    expect(derived.get('earlier')).toMatchObject({ current: false, supersededBy: ['later'] });
    expect(derived.get('later')).toMatchObject({ current: true, supersedes: ['earlier'] });
  });
});

describe('conflictingFulfillmentOrders', () => {
  const fo = (n: string) => ({ gid: `gid://shopify/FulfillmentOrder/${n}`, legacyId: n });
  const out = (n: string) => ({ id: `gid://shopify/FulfillmentOrder/${n}`, legacy_id: n });
  it.each([
    [
      'no overlap',
      [
        { id: 'a', coverageKnown: true, fulfillmentOrders: [fo('1')] },
        { id: 'b', coverageKnown: true, fulfillmentOrders: [fo('2')] },
      ],
      [],
    ],
    [
      'a fulfillment order two labels cover',
      [
        { id: 'a', coverageKnown: true, fulfillmentOrders: [fo('2'), fo('1')] },
        { id: 'b', coverageKnown: true, fulfillmentOrders: [fo('1')] },
      ],
      [out('1')],
    ],
    [
      'a whole-order label conflicts with every covered fulfillment order, sorted',
      [
        { id: 'a', coverageKnown: true, fulfillmentOrders: [] },
        { id: 'b', coverageKnown: true, fulfillmentOrders: [fo('3'), fo('1')] },
      ],
      [out('1'), out('3')],
    ],
    [
      'a label without recorded coverage counts as whole-order',
      [
        { id: 'a', coverageKnown: false, fulfillmentOrders: [fo('9')] },
        { id: 'b', coverageKnown: true, fulfillmentOrders: [fo('2')] },
      ],
      [out('2')],
    ],
  ])('%s', (_name, input, expected) => expect(conflictingFulfillmentOrders(input)).toEqual(expected));
});

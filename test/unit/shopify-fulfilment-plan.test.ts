import { ownFulfilment, planFulfilment, type FulfillmentOrderState } from '../../src/platform/shopify/fulfilment-plan';

const fo = (id: string, overrides: Partial<FulfillmentOrderState> = {}): FulfillmentOrderState => ({
  id,
  status: 'OPEN',
  locationId: 'L1',
  fulfillments: [],
  ...overrides,
});
const closedBy = (id: string, locationId: string, fulfillmentId: string, number: string | null, status = 'SUCCESS') =>
  fo(id, { status: 'CLOSED', locationId, fulfillments: [{ id: fulfillmentId, status, trackingNumbers: [number] }] });
const states = (...list: FulfillmentOrderState[]) => new Map(list.map((s) => [s.id, s] as const));

describe('a fulfillment order closed by this label', () => {
  it.each([
    ['closed by a fulfilment with the label’s tracking number', closedBy('1', 'L1', 'F1', 'Z123'), 'Z123', 'F1'],
    ['the number as carriers print it: spaces and case aside', closedBy('1', 'L1', 'F1', 'z 123'), 'Z123', 'F1'],
    ['closed by another fulfilment (another number)', closedBy('1', 'L1', 'F1', 'Y999'), 'Z123', null],
    ['closed by a fulfilment without a number', closedBy('1', 'L1', 'F1', null), 'Z123', null],
    ['closed, ours cancelled since', closedBy('1', 'L1', 'F1', 'Z123', 'CANCELLED'), 'Z123', null],
    ['still open', fo('1'), 'Z123', null],
    ['the label has no tracking number', closedBy('1', 'L1', 'F1', 'Z123'), null, null],
  ] as const)('%s: %s', (_what, state, number, expected) => {
    expect(ownFulfilment(state, number)).toBe(expected);
  });

  it('a fulfillment order Shopify does not know is not done', () => {
    expect(ownFulfilment(null, 'Z123')).toBeNull();
  });
});

describe('what a fulfilment still has to do', () => {
  it('groups what is open by location, in the order the locations first appear', () => {
    const plan = planFulfilment(
      ['1', '2', '3'],
      states(fo('1', { locationId: 'L2' }), fo('2', { locationId: 'L1' }), fo('3', { locationId: 'L2' })),
      'Z123',
    );
    expect(plan).toEqual([
      { kind: 'fulfil', fulfillmentOrderIds: ['1', '3'] },
      { kind: 'fulfil', fulfillmentOrderIds: ['2'] },
    ]);
  });

  it('an earlier attempt’s location is done, the rest is still sent', () => {
    const plan = planFulfilment(
      ['1', '2'],
      states(closedBy('1', 'L1', 'F1', 'Z123'), fo('2', { locationId: 'L2' })),
      'Z123',
    );
    expect(plan).toEqual([
      { kind: 'done', fulfillmentOrderIds: ['1'], fulfillmentId: 'F1' },
      { kind: 'fulfil', fulfillmentOrderIds: ['2'] },
    ]);
  });

  it('every location done: nothing to send', () => {
    const plan = planFulfilment(
      ['1', '2'],
      states(closedBy('1', 'L1', 'F1', 'Z123'), closedBy('2', 'L2', 'F2', 'Z123')),
      'Z123',
    );
    expect(plan.map((s) => s.kind)).toEqual(['done', 'done']);
  });

  it('one closed by something else is sent all the same, so Shopify’s refusal stays the failure it is', () => {
    const plan = planFulfilment(['1', '2'], states(closedBy('1', 'L1', 'F9', 'OTHER'), fo('2')), 'Z123');
    expect(plan).toEqual([{ kind: 'fulfil', fulfillmentOrderIds: ['1', '2'] }]);
  });

  it('one Shopify does not know goes alone, so its refusal names it', () => {
    const plan = planFulfilment(
      ['1', '2'],
      new Map([
        ['1', null],
        ['2', fo('2')],
      ]),
      'Z123',
    );
    expect(plan).toEqual([
      { kind: 'fulfil', fulfillmentOrderIds: ['1'] },
      { kind: 'fulfil', fulfillmentOrderIds: ['2'] },
    ]);
  });
});

import {
  deliveryStatus,
  isFulfilled,
  orderReminders,
  pickupPointChangeRefusal,
  type OrderFacts,
  type OrderLabelFacts,
} from '../../src/domain/order-status';

const aFulfillmentOrder = (status: string, extra: { held?: boolean; byService?: boolean } = {}) => ({
  status,
  deliveryMethodType: 'shipping',
  held: extra.held ?? false,
  byService: extra.byService ?? false,
});
const fos = (...statuses: string[]) => statuses.map((status) => aFulfillmentOrder(status));

function anOrder(overrides: Partial<OrderFacts> = {}): OrderFacts {
  return {
    cancelled: false,
    deliveryMethod: { type: 'pickup', title: 'Pickup point' },
    hasPickupPoint: true,
    fulfillmentOrders: fos('open'),
    ...overrides,
  };
}

function aLabel(overrides: Partial<OrderLabelFacts> = {}): OrderLabelFacts {
  return {
    id: 'lbl_1',
    direction: 'outbound',
    kind: 'shipment',
    status: 'ready',
    current: true,
    currentSet: 'ok',
    ...overrides,
  };
}

describe('isFulfilled and deliveryStatus', () => {
  it.each<[string, Partial<OrderFacts>, OrderLabelFacts[], boolean, string]>([
    ['open, no label', {}, [], false, 'awaiting_label'],
    ['open with a current label', {}, [aLabel()], false, 'label_created'],
    ['open with a pending current label', {}, [aLabel({ status: 'pending' })], false, 'label_created'],
    ['only a failed label', {}, [aLabel({ status: 'failed', current: false })], false, 'awaiting_label'],
    ['only a superseded label', {}, [aLabel({ current: false })], false, 'awaiting_label'],
    ['only a return claim', {}, [aLabel({ direction: 'return', kind: 'claim' })], false, 'awaiting_label'],
    ['every fulfillment order closed', { fulfillmentOrders: fos('closed', 'closed') }, [], true, 'fulfilled'],
    ['closed and cancelled', { fulfillmentOrders: fos('closed', 'cancelled') }, [], true, 'fulfilled'],
    ['closed and open', { fulfillmentOrders: fos('closed', 'open') }, [aLabel()], false, 'partially_fulfilled'],
    ['only cancelled fulfillment orders', { fulfillmentOrders: fos('cancelled') }, [], false, 'awaiting_label'],
    ['no fulfillment orders', { fulfillmentOrders: [] }, [], false, 'awaiting_label'],
    ['cancelled order', { cancelled: true, fulfillmentOrders: fos('closed') }, [], true, 'cancelled'],
  ])('%s', (_name, overrides, labels, fulfilled, status) => {
    expect(isFulfilled(anOrder(overrides))).toBe(fulfilled);
    expect(deliveryStatus(anOrder(overrides), labels)).toBe(status);
  });
});

describe('orderReminders', () => {
  it.each<[string, Partial<OrderFacts>, OrderLabelFacts[], Array<[string, string[]]>]>([
    ['nothing to do once labelled', {}, [aLabel()], []],
    ['a label is missing', {}, [], [['label_missing', []]]],
    [
      'a label is missing for a fulfillment order someone holds',
      { fulfillmentOrders: [aFulfillmentOrder('on_hold', { held: true })] },
      [],
      [['label_missing', []]],
    ],
    ['none for one on hold without a hold (not ready)', { fulfillmentOrders: fos('on_hold') }, [], []],
    [
      'none for what a fulfillment service ships',
      { fulfillmentOrders: [aFulfillmentOrder('open', { byService: true })] },
      [],
      [],
    ],
    ['a pickup point is missing', { hasPickupPoint: false }, [aLabel()], [['pickup_point_missing', []]]],
    [
      'pickup point and label missing',
      { hasPickupPoint: false },
      [],
      [
        ['pickup_point_missing', []],
        ['label_missing', []],
      ],
    ],
    [
      'home delivery needs no pickup point',
      { deliveryMethod: { type: 'shipping', title: null }, hasPickupPoint: false },
      [aLabel()],
      [],
    ],
    ['a pending label', {}, [aLabel({ id: 'lbl_p', status: 'pending' })], [['label_pending', ['lbl_p']]]],
    [
      'an ambiguous current set comes first',
      {},
      [
        aLabel({ id: 'lbl_x', currentSet: 'ambiguous' }),
        aLabel({ id: 'lbl_y', currentSet: 'ambiguous', status: 'pending' }),
      ],
      [
        ['ambiguous_current_set', ['lbl_x', 'lbl_y']],
        ['label_pending', ['lbl_y']],
      ],
    ],
    [
      'in-store pickup fulfillment orders need no label',
      {
        deliveryMethod: { type: 'shipping', title: null },
        fulfillmentOrders: [{ ...aFulfillmentOrder('open'), deliveryMethodType: 'pickup' }],
      },
      [],
      [],
    ],
    ['nothing for a fulfilled order', { hasPickupPoint: false, fulfillmentOrders: fos('closed') }, [], []],
    ['nothing for a cancelled order', { cancelled: true, hasPickupPoint: false }, [], []],
  ])('%s', (_name, overrides, labels, expected) => {
    expect(orderReminders(anOrder(overrides), labels).map((r) => [r.code, r.labelIds])).toEqual(expected);
  });
});

describe('pickupPointChangeRefusal', () => {
  it.each<[string, Partial<OrderFacts>, OrderLabelFacts[], unknown]>([
    ['an open pickup-point order without labels', {}, [], null],
    ['without a point yet', { hasPickupPoint: false }, [], null],
    ['partially fulfilled', { fulfillmentOrders: fos('closed', 'open') }, [], null],
    ['a failed label does not block', {}, [aLabel({ status: 'failed', current: false })], null],
    ['cancelled', { cancelled: true }, [], { code: 'order_not_eligible', reason: 'order_cancelled' }],
    [
      'home delivery',
      { deliveryMethod: { type: 'shipping', title: 'Courier' } },
      [],
      { code: 'order_not_eligible', reason: 'no_pickup_point_method' },
    ],
    [
      'local delivery',
      { deliveryMethod: { type: 'local', title: null } },
      [],
      { code: 'order_not_eligible', reason: 'no_pickup_point_method' },
    ],
    ['fulfilled', { fulfillmentOrders: fos('closed') }, [], { code: 'order_not_eligible', reason: 'order_fulfilled' }],
    [
      'fulfilled is decided before labels',
      { fulfillmentOrders: fos('closed') },
      [aLabel()],
      { code: 'order_not_eligible', reason: 'order_fulfilled' },
    ],
    [
      'any label but a failed one blocks, superseded and pending included',
      {},
      [
        aLabel({ id: 'lbl_old', current: false }),
        aLabel({ id: 'lbl_failed', status: 'failed', current: false }),
        aLabel({ id: 'lbl_new', status: 'pending' }),
      ],
      { code: 'label_exists', reason: 'order_has_label', labelIds: ['lbl_old', 'lbl_new'] },
    ],
    [
      'a return claim blocks too',
      {},
      [aLabel({ id: 'lbl_claim', direction: 'return', kind: 'claim' })],
      { code: 'label_exists', reason: 'order_has_label', labelIds: ['lbl_claim'] },
    ],
  ])('%s', (_name, overrides, labels, expected) => {
    expect(pickupPointChangeRefusal(anOrder(overrides), labels)).toEqual(expected);
  });
});

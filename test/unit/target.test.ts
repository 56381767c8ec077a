import type { ContextFulfillmentOrder, OrderLookup } from '../../src/domain/creation-context';
import { decideTarget, MAX_ORDER_FULFILLMENT_ORDERS, resolveOrder } from '../../src/domain/target';
import { aContextLabel, aFulfillmentOrder, anOrder, foGid } from '../helpers/creation-context';

describe('resolveOrder', () => {
  it.each<[string, OrderLookup, string | null, Record<string, unknown>]>([
    ['found', { kind: 'found', order: anOrder() }, null, {}],
    [
      'not found by ID',
      { kind: 'not_found', by: 'id', value: 'gid://shopify/Order/9' },
      'order_not_eligible',
      { reason: 'order_not_found', order_id: 'gid://shopify/Order/9' },
    ],
    [
      'not found by name',
      { kind: 'not_found', by: 'name', value: '1001' },
      'order_not_eligible',
      { reason: 'order_not_found', order_name: '1001' },
    ],
    ['ambiguous name', { kind: 'ambiguous', name: '1001', matches: 2 }, 'order_ambiguous', { order_name: '1001' }],
  ])('%s', (_name, lookup, code, details) => {
    const result = resolveOrder(lookup);
    if (code === null) expect(result.ok).toBe(true);
    else expect(result).toEqual({ ok: false, refusal: expect.objectContaining({ code, details }) });
  });

  it.each<['sandbox' | 'shopify' | undefined, RegExp]>([
    ['sandbox', /^The store has no such order on the sandbox store platform\.$/],
    ['shopify', /read_all_orders on Shopify/],
    [undefined, /read_all_orders on Shopify/],
  ])('names Shopify’s 60-day window only where the store may be on Shopify (%s)', (platform, message) => {
    const result = resolveOrder({ kind: 'not_found', by: 'id', value: 'gid://shopify/Order/9', platform });
    expect(!result.ok && result.refusal.message).toMatch(message);
  });

  it('says that the name index may lag when a name is not found', () => {
    const result = resolveOrder({ kind: 'not_found', by: 'name', value: '1001' });
    expect(!result.ok && result.refusal.message).toMatch(/index may lag/);
  });
});

const fo = aFulfillmentOrder;
const ids = (list: ContextFulfillmentOrder[]) => list.map((f) => f.id);

describe('decideTarget', () => {
  type Row = [
    string,
    { fos: ContextFulfillmentOrder[]; named?: string; allLocations?: boolean; cancelled?: boolean },
    string[] | { code: string; details: Record<string, unknown> },
  ];
  const notEligible = (reason: string, details: Record<string, unknown> = {}) => ({
    code: 'order_not_eligible',
    details: { reason, ...details },
  });
  const rows: Row[] = [
    ['one open parcel fulfillment order', { fos: [fo(1)] }, [foGid(1)]],
    ['open and in progress at one location', { fos: [fo(1), fo(2, { status: 'in_progress' })] }, [foGid(1), foGid(2)]],
    ['closed ones are skipped', { fos: [fo(1, { status: 'closed' }), fo(2)] }, [foGid(2)]],
    [
      'ship-and-pickup order: only the parcel one',
      { fos: [fo(1), fo(2, { deliveryMethodType: 'pickup' }), fo(3, { deliveryMethodType: 'local' })] },
      [foGid(1)],
    ],
    ['split order named', { fos: [fo(1), fo(2, { assignedLocationId: '2' })], named: foGid(2) }, [foGid(2)]],
    [
      'split order with all_locations',
      { fos: [fo(1), fo(2, { assignedLocationId: '2' })], allLocations: true },
      [foGid(1), foGid(2)],
    ],
    ['cancelled order', { fos: [fo(1)], cancelled: true }, notEligible('order_cancelled')],
    [
      'named one not in the order',
      { fos: [fo(1)], named: foGid(9) },
      notEligible('fulfillment_order_not_in_order', { fulfillment_order_id: foGid(9) }),
    ],
    [
      'named pickup one',
      { fos: [fo(1), fo(2, { deliveryMethodType: 'pickup' })], named: foGid(2) },
      notEligible('fulfillment_order_not_parcel', { delivery_method: 'pickup' }),
    ],
    [
      'named retail one',
      { fos: [fo(2, { deliveryMethodType: 'retail' })], named: foGid(2) },
      notEligible('fulfillment_order_not_parcel', { delivery_method: 'retail' }),
    ],
    [
      'named closed one',
      { fos: [fo(1, { status: 'closed' })], named: foGid(1) },
      notEligible('fulfillment_order_not_open', { status: 'closed' }),
    ],
    [
      'named cancelled one',
      { fos: [fo(1, { status: 'cancelled' })], named: foGid(1) },
      notEligible('fulfillment_order_not_open', { status: 'cancelled' }),
    ],
    [
      'named on hold',
      { fos: [fo(1, { status: 'on_hold' })], named: foGid(1) },
      notEligible('fulfillment_orders_not_ready', { status: 'on_hold' }),
    ],
    ['no fulfillment orders yet', { fos: [] }, notEligible('fulfillment_orders_not_ready')],
    ['only scheduled ones', { fos: [fo(1, { status: 'scheduled' })] }, notEligible('fulfillment_orders_not_ready')],
    ['everything closed', { fos: [fo(1, { status: 'closed' })] }, notEligible('nothing_to_ship')],
    ['only pickup in store', { fos: [fo(1, { deliveryMethodType: 'pickup' })] }, notEligible('nothing_to_ship')],
    // Decision 0705: a hold someone placed is not "not ready"; who holds it decides (holders).
    ['on hold with a hold on it: a target', { fos: [fo(1, { status: 'on_hold', heldOnPlatform: true })] }, [foGid(1)]],
    [
      'on hold with a hold on it, named',
      { fos: [fo(1, { status: 'on_hold', heldOnPlatform: true })], named: foGid(1) },
      [foGid(1)],
    ],
    [
      'on hold without a hold: not ready',
      { fos: [fo(1, { status: 'on_hold' })] },
      notEligible('fulfillment_orders_not_ready'),
    ],
    [
      'a fulfillment service’s fulfillment order is never a target',
      { fos: [fo(1), fo(2, { fulfillmentService: 'Warehouse Co', assignedLocationId: '9' })] },
      [foGid(1)],
    ],
    [
      'only a fulfillment service’s',
      { fos: [fo(1, { fulfillmentService: 'Warehouse Co' })] },
      notEligible('nothing_to_ship'),
    ],
    [
      'a fulfillment service’s, named',
      { fos: [fo(1, { fulfillmentService: 'Warehouse Co' })], named: foGid(1) },
      notEligible('fulfillment_order_not_parcel', { fulfillment_order_id: foGid(1) }),
    ],
    [
      'several locations, none named',
      { fos: [fo(1), fo(2, { assignedLocationId: '2', assignedLocationName: 'Brno' })] },
      { code: 'fulfillment_order_required', details: {} },
    ],
    [
      'more than 20 fulfillment orders',
      { fos: Array.from({ length: MAX_ORDER_FULFILLMENT_ORDERS + 1 }, (_, i) => fo(i + 1)) },
      notEligible('too_many_fulfillment_orders'),
    ],
    [
      'more than 20 on the order, one of them shippable: every fulfillment order of the order counts',
      { fos: [fo(1), ...Array.from({ length: 20 }, (_, i) => fo(i + 2, { status: 'closed' }))] },
      notEligible('too_many_fulfillment_orders'),
    ],
    [
      'more than 20 on the order, pickup and local ones among them',
      {
        fos: [
          ...Array.from({ length: 19 }, (_, i) => fo(i + 1)),
          fo(20, { deliveryMethodType: 'pickup' }),
          fo(21, { deliveryMethodType: 'local' }),
        ],
      },
      notEligible('too_many_fulfillment_orders'),
    ],
    [
      'more than 20 on the order, one named',
      {
        fos: Array.from({ length: 21 }, (_, i) => fo(i + 1, { status: i === 0 ? 'open' : 'closed' })),
        named: foGid(1),
      },
      notEligible('too_many_fulfillment_orders'),
    ],
    [
      'a cancelled order with more than 20 is cancelled first',
      { fos: Array.from({ length: 21 }, (_, i) => fo(i + 1)), cancelled: true },
      notEligible('order_cancelled'),
    ],
    [
      'exactly 20',
      { fos: Array.from({ length: 20 }, (_, i) => fo(i + 1)) },
      Array.from({ length: 20 }, (_, i) => foGid(i + 1)),
    ],
    [
      'exactly 20 on the order, one of them shippable',
      { fos: [fo(1), ...Array.from({ length: 19 }, (_, i) => fo(i + 2, { status: 'closed' }))] },
      [foGid(1)],
    ],
  ];

  it.each(rows)('%s', (_name, input, expected) => {
    const result = decideTarget(anOrder({ cancelled: input.cancelled ?? false }), input.fos, [], {
      fulfillmentOrderIds: input.named ? [input.named] : null,
      allLocations: input.allLocations ?? false,
    });
    if (Array.isArray(expected)) expect(result.ok && ids(result.value)).toEqual(expected);
    else
      expect(result).toEqual({
        ok: false,
        refusal: expect.objectContaining({ code: expected.code, details: expect.objectContaining(expected.details) }),
      });
  });

  describe('nothing to ship', () => {
    const refusalFor = (fos: ContextFulfillmentOrder[], labels = [aContextLabel('lbl_1')]) => {
      const result = decideTarget(anOrder(), fos, labels, { fulfillmentOrderIds: null, allLocations: false });
      if (result.ok) throw new Error('not refused');
      return result.refusal;
    };
    // Decision 0037: the order shipped with its labels; no fix to the request makes another one.
    it.each<[string, ContextFulfillmentOrder[], ReturnType<typeof aContextLabel>[], string[]]>([
      ['closed by its label', [fo(1, { status: 'closed' })], [aContextLabel('lbl_1')], ['lbl_1']],
      [
        'two closed, two labels',
        [fo(1, { status: 'closed' }), fo(2, { status: 'closed' })],
        [aContextLabel('lbl_1'), aContextLabel('lbl_2', { fulfillmentOrderIds: [foGid(2)] })],
        ['lbl_1', 'lbl_2'],
      ],
      [
        'a pickup-in-store one beside the closed parcel one does not count',
        [fo(1, { status: 'closed' }), fo(2, { deliveryMethodType: 'pickup' })],
        [aContextLabel('lbl_1')],
        ['lbl_1'],
      ],
    ])('%s: names the labels, retry no, next_action none', (_name, fos, labels, named) => {
      const refusal = refusalFor(fos, labels);
      expect(refusal.details).toMatchObject({
        reason: 'nothing_to_ship',
        existing_label_ids: named,
        retry: 'no',
        next_action: 'none',
      });
      for (const id of named) expect(refusal.message).toContain(`${id} (GET /v1/labels/${id})`);
    });

    it.each<[string, ContextFulfillmentOrder[], ReturnType<typeof aContextLabel>[]]>([
      ['closed without a label', [fo(1, { status: 'closed' })], []],
      [
        'one of two closed ones without a label',
        [fo(1, { status: 'closed' }), fo(2, { status: 'closed' })],
        [aContextLabel('lbl_1')],
      ],
      ['only pickup in store', [fo(1, { deliveryMethodType: 'pickup' })], [aContextLabel('lbl_1')]],
    ])('%s: the default pair, no label named', (_name, fos, labels) => {
      const refusal = refusalFor(fos, labels);
      expect(refusal.details).toMatchObject({ reason: 'nothing_to_ship' });
      expect(refusal.details).not.toHaveProperty('existing_label_ids');
      expect(refusal.details).not.toHaveProperty('retry');
    });
  });

  it('lists the candidates with their location and existing labels for fulfillment_order_required', () => {
    const result = decideTarget(
      anOrder(),
      [fo(1), fo(2, { assignedLocationId: '2', assignedLocationName: 'Brno' })],
      [aContextLabel('lbl_1', { fulfillmentOrderIds: [foGid(2)] })],
      { fulfillmentOrderIds: null, allLocations: false },
    );
    expect(!result.ok && result.refusal.details.fulfillment_orders).toEqual([
      { id: foGid(1), status: 'open', assigned_location_name: 'Praha', existing_label_ids: [] },
      { id: foGid(2), status: 'open', assigned_location_name: 'Brno', existing_label_ids: ['lbl_1'] },
    ]);
  });
});

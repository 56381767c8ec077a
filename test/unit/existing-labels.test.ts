import type { ContextCreation, ContextFulfillmentOrder, ContextLabel } from '../../src/domain/creation-context';
import {
  compareWithExisting,
  decideExistingLabels,
  type ExistingLabelsDecision,
  type ExistingLabelsInput,
} from '../../src/domain/existing-labels';
import type { FulfillmentOrderHolder } from '../../src/domain/holders';
import {
  aContextLabel,
  aCreation,
  aFulfillmentOrder,
  anAccount,
  aRequest,
  DAY,
  foGid,
  MINUTE,
  NOW,
} from '../helpers/creation-context';

const target = [aFulfillmentOrder(1), aFulfillmentOrder(2)];
const both = [foGid(1), foGid(2)];

interface Situation {
  labels?: ContextLabel[];
  creations?: ContextCreation[];
  holders?: FulfillmentOrderHolder[];
  fulfillmentOrders?: ContextFulfillmentOrder[];
  selfCreationId?: string;
}

function decide(situation: Situation, mode: 'return' | 'reject' | 'create_new', replaces: string[] = []) {
  const input: ExistingLabelsInput = {
    onExisting: mode,
    replaces,
    target,
    fulfillmentOrders: situation.fulfillmentOrders ?? target,
    labels: situation.labels ?? [],
    creations: situation.creations ?? [],
    holders: situation.holders ?? [],
    selfCreationId: situation.selfCreationId ?? null,
    nowMs: NOW,
  };
  return decideExistingLabels(input);
}

/** A short form of a decision for the table. */
function outcome(d: ExistingLabelsDecision): string {
  if (d.kind === 'refuse') {
    const reason = d.refusal.details.reason;
    return typeof reason === 'string' ? `${d.refusal.code}:${reason}` : d.refusal.code;
  }
  if (d.kind === 'wait_for_existing') return `wait:${d.waitFor.reason}`;
  if (d.kind === 'return_existing') return `return:${d.labels.map((l) => l.id).join(',')}`;
  return `create:${d.replaces.join(',')}`;
}

const ready = (id: string, fos = both, extra: Partial<ContextLabel> = {}) =>
  aContextLabel(id, { fulfillmentOrderIds: fos, ...extra });
const exportHold: FulfillmentOrderHolder = {
  fulfillmentOrderGid: foGid(1),
  heldBy: 'export',
  labelCreationId: null,
  workflowId: null,
};
const creationHold: FulfillmentOrderHolder = {
  fulfillmentOrderGid: foGid(2),
  heldBy: 'creation',
  labelCreationId: 'lcr_run',
  workflowId: 'wf-run',
};

// Spec `POST /labels` "Existing labels": each situation in `return` and `reject`.
const table: Array<[string, Situation, string, string]> = [
  [
    'a creation in needs_attention covers the target',
    { creations: [aCreation('lcr_na', 'needs_attention', [foGid(2)])] },
    'unresolved_creation',
    'unresolved_creation',
  ],
  [
    'an export holds a target fulfillment order',
    { holders: [exportHold] },
    'wait:fulfillment_order_held',
    'creation_in_progress',
  ],
  [
    'another creation runs on the target',
    { holders: [creationHold] },
    'wait:fulfillment_order_held',
    'creation_in_progress',
  ],
  [
    'an abandoned creation covers the target',
    { creations: [aCreation('lcr_ab', 'abandoned', [foGid(1)])] },
    'label_exists:shipment_outside_globe',
    'label_exists:shipment_outside_globe',
  ],
  ['no label covers the target', {}, 'create:', 'create:'],
  ['labels of other fulfillment orders only', { labels: [ready('lbl_other', [foGid(9)])] }, 'create:', 'create:'],
  [
    'a ready label covers the whole target',
    { labels: [ready('lbl_r')] },
    'return:lbl_r',
    'label_exists:existing_label_ready',
  ],
  [
    'two ready labels together cover it',
    { labels: [ready('lbl_1', [foGid(1)]), ready('lbl_2', [foGid(2)])] },
    'return:lbl_1,lbl_2',
    'label_exists:existing_label_ready',
  ],
  ['a whole-order label', { labels: [ready('lbl_w', [])] }, 'return:lbl_w', 'label_exists:existing_label_ready'],
  [
    'a covering label pending under 10 minutes',
    { labels: [ready('lbl_p', both, { status: 'pending', createdAtMs: NOW - 9 * MINUTE })] },
    'wait:label_pending',
    'label_exists:existing_label_pending',
  ],
  [
    'partial coverage',
    { labels: [ready('lbl_1', [foGid(1)])] },
    'label_exists:partial_coverage',
    'label_exists:partial_coverage',
  ],
  [
    'an ambiguous set',
    { labels: [ready('lbl_1'), ready('lbl_2', [foGid(2)])] },
    'label_exists:ambiguous_current_set',
    'label_exists:ambiguous_current_set',
  ],
  [
    'an expired label',
    { labels: [ready('lbl_old', both, { createdAtMs: NOW - 61 * DAY })] },
    'label_exists:existing_label_expired',
    'label_exists:existing_label_expired',
  ],
  [
    'a label on an order-edit-replaced fulfillment order',
    {
      labels: [ready('lbl_e', [foGid(7)])],
      fulfillmentOrders: [...target, aFulfillmentOrder(7, { status: 'closed', replacedBy: [foGid(2)] })],
    },
    'label_exists:existing_label_on_replaced_fulfillment_order',
    'label_exists:existing_label_on_replaced_fulfillment_order',
  ],
  [
    'a label replaced through a chain of edits',
    {
      labels: [ready('lbl_e', [foGid(6)])],
      fulfillmentOrders: [
        ...target,
        aFulfillmentOrder(6, { status: 'closed', replacedBy: [foGid(7)] }),
        aFulfillmentOrder(7, { status: 'closed', replacedBy: [foGid(1)] }),
      ],
    },
    'label_exists:existing_label_on_replaced_fulfillment_order',
    'label_exists:existing_label_on_replaced_fulfillment_order',
  ],
  [
    'a label pending over 10 minutes',
    { labels: [ready('lbl_p', both, { status: 'pending', createdAtMs: NOW - 11 * MINUTE })] },
    'label_exists:existing_label_pending',
    'label_exists:existing_label_pending',
  ],
  [
    'an older label without per-fulfillment-order coverage',
    { labels: [ready('lbl_u', [], { coverageKnown: false })] },
    'label_exists:existing_label_coverage_unknown',
    'label_exists:existing_label_coverage_unknown',
  ],
  [
    'its own creation holding the lock (live decision)',
    { holders: [{ ...creationHold, labelCreationId: 'lcr_self' }], selfCreationId: 'lcr_self' },
    'create:',
    'create:',
  ],
];

describe('decideExistingLabels: the existing-labels table', () => {
  it.each(table)('%s: return -> %s', (_name, situation, inReturn) => {
    expect(outcome(decide(situation, 'return'))).toBe(inReturn);
  });
  it.each(table)('%s: reject -> %s', (_name, situation, _inReturn, inReject) => {
    expect(outcome(decide(situation, 'reject'))).toBe(inReject);
  });

  it('gives the details each refusal names', () => {
    expect(decide({ creations: [aCreation('lcr_na', 'needs_attention')] }, 'return')).toMatchObject({
      refusal: { details: { label_creation_id: 'lcr_na', label_creation_ids: ['lcr_na'] } },
    });
    expect(decide({ holders: [creationHold] }, 'reject')).toMatchObject({
      refusal: { details: { held_by: 'creation', label_creation_id: 'lcr_run' }, retryAfterSeconds: 5 },
    });
    expect(decide({ holders: [exportHold] }, 'return')).toEqual({
      kind: 'wait_for_existing',
      waitFor: {
        reason: 'fulfillment_order_held',
        heldBy: 'export',
        labelCreationId: null,
        fulfillmentOrderIds: [foGid(1)],
      },
    });
    expect(decide({ labels: [ready('lbl_1', [foGid(1)])] }, 'reject')).toMatchObject({
      refusal: { details: { existing_label_ids: ['lbl_1'], uncovered_fulfillment_order_ids: [foGid(2)] } },
    });
    expect(decide({ creations: [aCreation('lcr_ab', 'abandoned')] }, 'return')).toMatchObject({
      refusal: { details: { label_creation_id: 'lcr_ab', label_creation_ids: ['lcr_ab'] } },
    });
  });

  it('never counts failed labels or claims', () => {
    const labels = [ready('lbl_f', both, { status: 'failed' }), ready('lbl_c', both, { kind: 'claim' })];
    expect(outcome(decide({ labels }, 'return'))).toBe('create:');
  });
});

describe('decideExistingLabels: create_new', () => {
  it.each<[string, Situation, string[], string]>([
    ['nothing blocks, replaces []', {}, [], 'create:'],
    ['nothing blocks, replaces names something', {}, ['lbl_x'], 'precondition_failed'],
    ['a ready label, replaced exactly', { labels: [ready('lbl_r')] }, ['lbl_r'], 'create:lbl_r'],
    ['a ready label, replaces []', { labels: [ready('lbl_r')] }, [], 'precondition_failed'],
    [
      'two labels, one named',
      { labels: [ready('lbl_1', [foGid(1)]), ready('lbl_2', [foGid(2)])] },
      ['lbl_1'],
      'precondition_failed',
    ],
    [
      'an abandoned creation, replaced by its lcr_ ID',
      { creations: [aCreation('lcr_ab', 'abandoned')] },
      ['lcr_ab'],
      'create:lcr_ab',
    ],
    [
      'an expired label',
      { labels: [ready('lbl_old', both, { createdAtMs: NOW - 61 * DAY })] },
      ['lbl_old'],
      'create:lbl_old',
    ],
    [
      'a label pending over 10 minutes',
      { labels: [ready('lbl_p', both, { status: 'pending', createdAtMs: NOW - 11 * MINUTE })] },
      ['lbl_p'],
      'create:lbl_p',
    ],
    [
      'never a label pending under 10 minutes',
      { labels: [ready('lbl_p', both, { status: 'pending', createdAtMs: NOW - MINUTE })] },
      ['lbl_p'],
      'label_exists:existing_label_pending',
    ],
    [
      'never an unresolved creation',
      { creations: [aCreation('lcr_na', 'needs_attention')] },
      ['lcr_na'],
      'unresolved_creation',
    ],
    ['never a running creation', { holders: [creationHold] }, ['lcr_run'], 'creation_in_progress'],
  ])('%s -> %s', (_name, situation, replaces, expected) => {
    expect(outcome(decide(situation, 'create_new', replaces))).toBe(expected);
  });

  it('names what blocks today in current_blocking', () => {
    const d = decide({ labels: [ready('lbl_r')], creations: [aCreation('lcr_ab', 'abandoned')] }, 'create_new', [
      'lbl_r',
    ]);
    expect(d).toMatchObject({
      refusal: { code: 'precondition_failed', details: { current_blocking: ['lbl_r', 'lcr_ab'] } },
    });
  });
});

describe('compareWithExisting', () => {
  const label = aContextLabel('lbl_r', {
    cod: { amount: '500.00', currency: 'CZK', source: 'payment_gateway' },
    declaredValue: { amount: '1000.00', currency: 'CZK' },
    weightGrams: 1200,
  });
  const accounts = [anAccount()];
  const compare = (body: Parameters<typeof aRequest>[0], labels = [label]) =>
    compareWithExisting(aRequest(body), labels, accounts);

  it.each<[string, Parameters<typeof aRequest>[0], string | null, unknown]>([
    ['nothing requested', {}, null, null],
    ['same account and service', { carrier_account_id: 'ca_a', service_code: 'a_home' }, null, null],
    [
      'COD equal after the carrier rounding (499.50 -> 500)',
      { cod: { amount: '499.50', currency: 'CZK' } },
      null,
      null,
    ],
    [
      'same declared value and weight',
      { declared_value: { amount: '1000', currency: 'CZK' }, parcels: [{ weight_grams: 1200 }] },
      null,
      null,
    ],
    [
      'another account',
      { carrier_account_id: 'ca_b' },
      'existing_label_differs',
      [{ field: 'carrier_account_id', requested: 'ca_b', existing: 'ca_a' }],
    ],
    [
      'another service',
      { carrier_account_id: 'ca_a', service_code: 'a_pickup' },
      'existing_label_differs',
      [{ field: 'service_code', requested: 'a_pickup', existing: 'a_home' }],
    ],
    [
      'another COD',
      { cod: { amount: '400', currency: 'CZK' } },
      'existing_label_differs',
      [
        {
          field: 'cod',
          requested: { amount: '400.00', currency: 'CZK' },
          existing: { amount: '500.00', currency: 'CZK' },
        },
      ],
    ],
    [
      'another declared value',
      { declared_value: { amount: '1', currency: 'CZK' } },
      'existing_label_differs',
      [
        {
          field: 'declared_value',
          requested: { amount: '1.00', currency: 'CZK' },
          existing: { amount: '1000.00', currency: 'CZK' },
        },
      ],
    ],
    [
      'another weight',
      { parcels: [{ weight_grams: 900 }] },
      'existing_label_differs',
      [{ field: 'parcels', requested: [{ weight_grams: 900 }], existing: [{ weight_grams: 1200 }] }],
    ],
  ])('%s', (_name, body, reason, differences) => {
    const result = compare(body);
    if (reason === null) expect(result).toEqual({ kind: 'match', warnings: [] });
    else
      expect(result).toMatchObject({
        kind: 'refuse',
        refusal: { code: 'label_exists', details: { reason, differences, existing_label_ids: ['lbl_r'] } },
      });
  });

  it.each<[string, Partial<typeof label>, Parameters<typeof aRequest>[0]]>([
    ['no recorded account', { carrierAccountId: null }, { carrier_account_id: 'ca_a' }],
    ['no recorded service', { serviceCode: null }, { carrier_account_id: 'ca_a', service_code: 'a_home' }],
    ['no recorded COD', { cod: null }, { cod: { amount: '1', currency: 'CZK' } }],
    [
      'an admin label without declared value',
      { declaredValue: null, source: 'admin' },
      { declared_value: { amount: '1', currency: 'CZK' } },
    ],
    ['no recorded weight', { weightGrams: null }, { parcels: [{ weight_grams: 1 }] }],
  ])('unverifiable: %s', (_name, labelOverrides, body) => {
    expect(compareWithExisting(aRequest(body), [{ ...label, ...labelOverrides }], accounts)).toMatchObject({
      refusal: { details: { reason: 'existing_label_unverifiable' } },
    });
  });

  it('is unverifiable with several covering labels when anything is compared, and returns them otherwise', () => {
    const two = [label, aContextLabel('lbl_2')];
    expect(compare({ parcels: [{ weight_grams: 1200 }] }, two)).toMatchObject({
      refusal: { details: { reason: 'existing_label_unverifiable', existing_label_ids: ['lbl_r', 'lbl_2'] } },
    });
    expect(compare({}, two)).toEqual({ kind: 'match', warnings: [] });
  });

  it.each<[string, Parameters<typeof aRequest>[0], string[]]>([
    ['carrier_options', { carrier_options: { consign_password: true } }, ['carrier_options']],
    ['fulfillment', { fulfillment: 'fulfill_and_notify' }, ['fulfillment']],
    ['both', { fulfillment: 'fulfill', carrier_options: { x: 1 } }, ['carrier_options', 'fulfillment']],
    ['fulfillment none is what a returned label does anyway', { fulfillment: 'none' }, []],
  ])('warns request_parameters_not_applied for %s', (_name, body, parameters) => {
    const result = compare(body);
    expect(result.kind).toBe('match');
    const warnings = result.kind === 'match' ? result.warnings : [];
    expect(warnings.map((w) => w.details?.parameters)).toEqual(parameters.length ? [parameters] : []);
  });
});

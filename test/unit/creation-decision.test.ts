import { decideCreation, decisionRecord, type CreationDecision } from '../../src/domain/creation-decision';
import {
  aContext,
  aContextLabel,
  aCreation,
  aFulfillmentOrder,
  anAccount,
  anOrder,
  aRequest,
  czk,
  foGid,
  NOW,
} from '../helpers/creation-context';

const refusalOf = (d: CreationDecision) => (d.kind === 'refuse' ? d.refusal : null);

describe('decideCreation', () => {
  it('decides a creation with the complete resolved block and the carrier call', () => {
    const context = aContext({
      order: anOrder({ paymentGateways: ['Cash on Delivery (COD)'], totalOutstanding: czk('999.60') }),
      carrierAccounts: [anAccount({ defaultFulfillment: 'fulfill_and_notify' })],
    });
    const decision = decideCreation(context, aRequest({ carrier_options: { consign_password: true } }), NOW);
    expect(decision).toEqual({
      kind: 'create',
      order: { id: 'gid://shopify/Order/1001', legacyId: '1001', name: '#1001' },
      targetFulfillmentOrderIds: [foGid(1)],
      replaces: [],
      resolved: {
        selection: 'auto',
        matchedRule: { id: 'cr_1', priority: 1 },
        carrierAccountId: 'ca_a',
        serviceCode: 'a_home',
        parcels: [{ weightGrams: 1000, source: 'order' }],
        fulfillment: { mode: 'fulfill_and_notify', source: 'account_default' },
        cod: {
          decided: { ...czk('999.60'), source: 'payment_gateway' },
          toCarrier: {
            ...czk('1000.00'),
            state: 'predicted',
            adjustments: [{ kind: 'carrier_rounding', rule: { mode: 'whole' }, from: '999.60', to: '1000.00' }],
          },
          derivation: expect.objectContaining({ matchedGateway: 'Cash on Delivery (COD)' }),
        },
        declaredValue: { decided: { ...czk('1000.00'), source: 'order' }, toCarrier: czk('1000.00') },
      },
      warnings: [expect.objectContaining({ code: 'cod_adjusted' })],
      fulfillment: 'fulfill_and_notify',
      carrierCall: {
        carrierAccountId: 'ca_a',
        carrierCode: 'carrier_a',
        serviceCode: 'a_home',
        orderName: '#1001',
        recipient: { name: 'Jana', company: null },
        address: { street: 'Dlouhá 12', city: 'Praha', postcode: '110 00', country: 'CZ' },
        phone: '+420600111222',
        email: 'jana@example.com',
        pickupPoint: null,
        weightGrams: 1000,
        cod: czk('1000.00'),
        declaredValue: czk('1000.00'),
        options: { consign_password: true },
      },
    });
  });

  it('survives a JSON round trip of its context (the workflow gets it through history)', () => {
    const context = aContext({ labels: [aContextLabel('lbl_1', { fulfillmentOrderIds: [foGid(9)] })] });
    const copy = JSON.parse(JSON.stringify(context)) as typeof context;
    expect(decideCreation(copy, aRequest(), NOW)).toEqual(decideCreation(context, aRequest(), NOW));
  });

  it('sends no COD, the account’s option defaults and the pickup point of a pickup service', () => {
    const context = aContext({
      order: anOrder({
        deliveryMethod: {
          type: 'pickup',
          title: null,
          pickupPoint: { id: '4410', carrierCode: 'carrier_a', name: null, country: 'CZ' },
        },
      }),
      rules: [
        {
          id: 'cr_1',
          priority: 1,
          conditions: { hasPickupPoint: true },
          carrierAccountId: 'ca_a',
          serviceCode: 'a_pickup',
        },
      ],
    });
    const decision = decideCreation(context, aRequest({ fulfillment: 'none', parcels: [{ weight_grams: 250 }] }), NOW);
    expect(decision.kind === 'create' && decision.carrierCall).toMatchObject({
      serviceCode: 'a_pickup',
      pickupPoint: { id: '4410', country: 'CZ' },
      cod: null,
      weightGrams: 250,
      options: { consign_password: false },
    });
    expect(decision.kind === 'create' && decision.resolved.fulfillment).toEqual({ mode: 'none', source: 'request' });
    expect(decision.kind === 'create' && decision.resolved.parcels).toEqual([{ weightGrams: 250, source: 'request' }]);
  });

  it.each<[string, Parameters<typeof aContext>[0], Parameters<typeof aRequest>[0], string]>([
    [
      'order lookup first',
      { orderLookup: { kind: 'not_found', by: 'id', value: 'x' }, carrierAccounts: [] },
      {},
      'order_not_eligible',
    ],
    [
      'target before existing labels',
      {
        fulfillmentOrders: [aFulfillmentOrder(1, { status: 'closed' })],
        creations: [aCreation('lcr_na', 'needs_attention')],
      },
      {},
      'order_not_eligible',
    ],
    [
      'existing labels before carrier selection',
      { labels: [aContextLabel('lbl_1')], carrierAccounts: [] },
      { on_existing: 'reject' },
      'label_exists',
    ],
    [
      'carrier selection before options',
      { carrierAccounts: [], rules: [] },
      { carrier_options: { nope: 1 } },
      'carrier_selection_failed',
    ],
    ['an undeclared option', {}, { carrier_options: { nope: 1 } }, 'unsupported_parameter'],
    ['an option of the wrong type', {}, { carrier_options: { consign_password: 'yes' } }, 'validation_error'],
    [
      'declared value where unsupported',
      { carrierAccounts: [anAccount({ declaredValueSupported: false })] },
      { declared_value: czk('1') },
      'unsupported_parameter',
    ],
    ['COD in another currency', {}, { cod: { amount: '1', currency: 'EUR' } }, 'currency_mismatch'],
    [
      'declared value in another currency',
      {},
      { declared_value: { amount: '1', currency: 'EUR' } },
      'currency_mismatch',
    ],
    [
      'an invalid label currency',
      { order: anOrder({ metafields: { 'service.currency': 'x' } }) },
      {},
      'label_validation_failed',
    ],
    ['pre-carrier checks last', { order: anOrder({ shippingAddress: null }) }, {}, 'label_validation_failed'],
  ])('refuses in the spec’s order: %s', (_name, context, body, code) => {
    expect(refusalOf(decideCreation(aContext(context), aRequest(body), NOW))?.code).toBe(code);
  });

  it('names the currencies of a COD/packet mismatch and lists metafield issues with the others', () => {
    const order = anOrder({
      currency: 'EUR',
      metafields: { 'service.cod_value': '100', 'service.currency': 'CZK', 'custom.packet_value': 'x' },
      phone: null,
    });
    const refusal = refusalOf(decideCreation(aContext({ order }), aRequest(), NOW));
    expect(refusal?.details.issues).toEqual([
      { code: 'cod_metafield_invalid', field: 'custom.packet_value', raw: 'x' },
      { code: 'cod_metafield_invalid', field: 'custom.converted_currency', raw: '' },
    ]);
    const mismatch = refusalOf(
      decideCreation(
        aContext({
          order: anOrder({ currency: 'EUR', metafields: { 'service.cod_value': '100', 'service.currency': 'CZK' } }),
        }),
        aRequest(),
        NOW,
      ),
    );
    expect(mismatch).toMatchObject({
      code: 'label_validation_failed',
      details: { issues: [{ code: 'cod_packet_currency_mismatch' }], cod_currency: 'CZK', packet_currency: 'EUR' },
    });
  });

  it('says retry no when the only issue is cod_dropped_by_carrier_module', () => {
    const context = aContext({
      carrierAccounts: [
        anAccount({ id: 'ca_f', carrierCode: 'carrier_f', declaredValueSupported: false, codRoundingByCurrency: {} }),
      ],
      rules: [],
    });
    expect(refusalOf(decideCreation(context, aRequest({ cod: czk('10') }), NOW))?.details).toMatchObject({
      issues: [{ code: 'cod_dropped_by_carrier_module' }],
      retry: 'no',
      next_action: 'none',
    });
  });

  it('returns existing labels with the warnings, and waits for holders', () => {
    const returned = decideCreation(
      aContext({ labels: [aContextLabel('lbl_1')] }),
      aRequest({ fulfillment: 'fulfill' }),
      NOW,
    );
    expect(returned).toMatchObject({
      kind: 'return_existing',
      labelIds: ['lbl_1'],
      warnings: [{ code: 'request_parameters_not_applied' }],
    });
    const waiting = decideCreation(
      aContext({
        holders: [{ fulfillmentOrderGid: foGid(1), heldBy: 'creation', labelCreationId: 'lcr_x', workflowId: 'wf-x' }],
      }),
      aRequest(),
      NOW,
    );
    expect(waiting).toMatchObject({
      kind: 'wait_for_existing',
      waitFor: { heldBy: 'creation', labelCreationId: 'lcr_x' },
    });
  });

  it('passes its own running creation inside the workflow', () => {
    const context = aContext({
      creations: [aCreation('lcr_self', 'processing')],
      holders: [
        { fulfillmentOrderGid: foGid(1), heldBy: 'creation', labelCreationId: 'lcr_self', workflowId: 'wf-self' },
      ],
      selfCreationId: 'lcr_self',
    });
    expect(decideCreation(context, aRequest({ on_existing: 'reject' }), NOW).kind).toBe('create');
  });

  it('replaces what blocks with create_new', () => {
    const decision = decideCreation(
      aContext({ labels: [aContextLabel('lbl_1')] }),
      aRequest({ on_existing: 'create_new', replaces: ['lbl_1'] }),
      NOW,
    );
    expect(decision.kind === 'create' && decision.replaces).toEqual(['lbl_1']);
  });

  it('matches cod_required rules on the carrier-independent COD', () => {
    const context = aContext({
      order: anOrder({ paymentGateways: ['COD'], totalOutstanding: czk('10.00') }),
      carrierAccounts: [
        anAccount(),
        anAccount({ id: 'ca_c', carrierCode: 'carrier_c', declaredValueSupported: false }),
      ],
      rules: [
        {
          id: 'cr_1',
          priority: 1,
          conditions: { codRequired: false },
          carrierAccountId: 'ca_a',
          serviceCode: 'a_home',
        },
        { id: 'cr_2', priority: 2, conditions: { codRequired: true }, carrierAccountId: 'ca_c', serviceCode: 'a_home' },
      ],
    });
    const decision = decideCreation(context, aRequest(), NOW);
    expect(decision.kind === 'create' && decision.resolved.matchedRule).toEqual({ id: 'cr_2', priority: 2 });
  });
});

describe('decisionRecord', () => {
  const order = { id: 'gid://shopify/Order/1001', legacyId: '1001', name: '#1001' };
  const warning = { code: 'cod_adjusted', message: 'adjusted' } as never;

  it('keeps the order, the target, the resolved block and warnings of a decision to create', () => {
    const decision = decideCreation(aContext(), aRequest(), NOW);
    if (decision.kind !== 'create') throw new Error(`expected create, got ${decision.kind}`);
    expect(decisionRecord(decision)).toEqual({
      order: decision.order,
      fulfillmentOrderGids: decision.targetFulfillmentOrderIds,
      resolved: decision.resolved,
      warnings: decision.warnings,
    });
  });

  it('has no resolved block for existing labels or a wait', () => {
    const common = { order, targetFulfillmentOrderIds: [foGid(1)], warnings: [warning] };
    const expected = { order, fulfillmentOrderGids: [foGid(1)], resolved: null, warnings: [warning] };
    expect(decisionRecord({ kind: 'return_existing', labelIds: ['lbl_1'], ...common })).toEqual(expected);
    const waitFor = { reason: 'label_pending', labelId: 'lbl_1' } as never;
    expect(decisionRecord({ kind: 'wait_for_existing', waitFor, ...common })).toEqual(expected);
  });

  it('keeps only the order of a refusal, and an empty order when none was found', () => {
    const refusal = { code: 'order_not_found', message: 'no such order' } as never;
    const empty = { fulfillmentOrderGids: [], resolved: null, warnings: [] };
    expect(decisionRecord({ kind: 'refuse', order, refusal })).toEqual({ order, ...empty });
    expect(decisionRecord({ kind: 'refuse', order: null, refusal })).toEqual({
      order: { id: '', legacyId: '', name: '' },
      ...empty,
    });
  });
});

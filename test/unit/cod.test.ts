import { CARRIERS } from '../../src/domain/carrier-catalog';
import {
  codToCarrier,
  decideCod,
  isCodGateway,
  labelCurrency,
  labelShare,
  parseMetafieldAmount,
  type CodInput,
} from '../../src/domain/cod';
import type { ContextOrder } from '../../src/domain/creation-context';
import { aFulfillmentOrder, anOrder, czk, foGid } from '../helpers/creation-context';

const codOrder = (overrides: Partial<ContextOrder> = {}) =>
  anOrder({ paymentGateways: ['Cash on Delivery (COD)'], totalOutstanding: czk('1000.00'), ...overrides });

function cod(overrides: Partial<CodInput> = {}) {
  return decideCod({
    requestCod: null,
    order: anOrder(),
    target: [aFulfillmentOrder(1)],
    fulfillmentOrders: [aFulfillmentOrder(1)],
    codRule: null,
    carrierCode: 'carrier_c',
    labelCurrency: 'CZK',
    ...overrides,
  });
}

/** decided amount and source, issues, warnings, or the refusal code. */
function summary(result: ReturnType<typeof decideCod>) {
  if (!result.ok) return { refusal: result.refusal.code, details: result.refusal.details };
  return {
    decided:
      result.value.cod &&
      `${result.value.cod.decided.amount} ${result.value.cod.decided.currency} ${result.value.cod.decided.source}`,
    issues: result.value.issues,
    warnings: result.value.warnings.map((w) => w.code),
  };
}

const converted = { 'custom.converted_value': '40', 'custom.converted_currency': 'EUR' };

describe('decideCod: the COD decision table, first match wins', () => {
  it.each<[string, Partial<CodInput>, ReturnType<typeof summary>]>([
    [
      '1 request',
      { requestCod: czk('250.00'), order: codOrder({ metafields: { 'service.cod_value': '900' } }) },
      { decided: '250.00 CZK request', issues: [], warnings: [] },
    ],
    [
      '1 request in another currency',
      { requestCod: { amount: '10.00', currency: 'EUR' } },
      { refusal: 'currency_mismatch', details: { field: 'cod', expected_currency: 'CZK' } },
    ],
    [
      '1 request wins over an invalid metafield',
      { requestCod: czk('1.00'), order: anOrder({ metafields: { 'service.cod_value': 'abc' } }) },
      { decided: '1.00 CZK request', issues: [], warnings: [] },
    ],
    [
      '2 order metafield',
      { order: codOrder({ metafields: { 'service.cod_value': '900.5' } }) },
      { decided: '900.50 CZK order_metafield', issues: [], warnings: [] },
    ],
    [
      '2 metafield zero means no COD even with a COD gateway',
      { order: codOrder({ metafields: { 'service.cod_value': '0' } }) },
      { decided: '0.00 CZK order_metafield', issues: [], warnings: [] },
    ],
    [
      '2 invalid metafield is never read as zero',
      { order: codOrder({ metafields: { 'service.cod_value': '12,50' } }) },
      {
        decided: null,
        issues: [{ code: 'cod_metafield_invalid', field: 'service/cod_value', raw: '12,50' }],
        warnings: [],
      },
    ],
    [
      '2 negative metafield',
      { order: anOrder({ metafields: { 'service.cod_value': '-5' } }) },
      {
        decided: null,
        issues: [{ code: 'cod_metafield_invalid', field: 'service/cod_value', raw: '-5' }],
        warnings: [],
      },
    ],
    [
      '2 empty metafield is absent',
      { order: anOrder({ metafields: { 'service.cod_value': ' ' } }) },
      { decided: '0.00 CZK none', issues: [], warnings: [] },
    ],
    [
      '3 COD gateway: the outstanding balance',
      { order: codOrder() },
      { decided: '1000.00 CZK payment_gateway', issues: [], warnings: [] },
    ],
    [
      '3 COD gateway on a paid order',
      { order: codOrder({ totalOutstanding: czk('0.00') }) },
      { decided: '0.00 CZK payment_gateway', issues: [], warnings: [] },
    ],
    [
      '3 COD gateway in another currency than the label',
      { order: codOrder(), labelCurrency: 'EUR' },
      { refusal: 'currency_mismatch', details: { field: 'cod', expected_currency: 'EUR' } },
    ],
    [
      '4 store rule, order total',
      { order: anOrder({ paymentGateways: [] }), codRule: { amountSource: 'order_total' } },
      { decided: '1000.00 CZK shop_rule', issues: [], warnings: [] },
    ],
    [
      '4 store rule, outstanding balance',
      {
        order: anOrder({ paymentGateways: [], totalOutstanding: czk('300.00') }),
        codRule: { amountSource: 'outstanding_balance' },
      },
      { decided: '300.00 CZK shop_rule', issues: [], warnings: [] },
    ],
    [
      '4 store rule only without any gateway',
      { order: anOrder({ paymentGateways: ['card'] }), codRule: { amountSource: 'order_total' } },
      { decided: '0.00 CZK none', issues: [], warnings: [] },
    ],
    ['5 none', {}, { decided: '0.00 CZK none', issues: [], warnings: [] }],
  ])('%s', (_name, input, expected) => {
    expect(summary(cod(input))).toEqual(expected);
  });

  it('describes how an automatic amount came about', () => {
    const result = cod({ order: codOrder() });
    expect(result.ok && result.value.cod!.derivation).toEqual({
      base: czk('1000.00'),
      rawMetafield: null,
      matchedGateway: 'Cash on Delivery (COD)',
      outstandingBalance: czk('1000.00'),
      share: czk('1000.00'),
      split: null,
      converted: null,
    });
    const fromMetafield = cod({ order: anOrder({ metafields: { 'service.cod_value': '12' } }) });
    expect(fromMetafield.ok && fromMetafield.value.cod!.derivation).toMatchObject({
      rawMetafield: '12',
      base: czk('12.00'),
    });
  });
});

describe('decideCod: carrier A converted metafields', () => {
  it.each<[string, Partial<CodInput>, ReturnType<typeof summary>]>([
    [
      'replace a gateway amount',
      { carrierCode: 'carrier_a', order: codOrder({ metafields: converted }) },
      { decided: '40.00 EUR payment_gateway', issues: [], warnings: [] },
    ],
    [
      'replace a store-rule amount',
      {
        carrierCode: 'carrier_a',
        order: anOrder({ paymentGateways: [], metafields: converted }),
        codRule: { amountSource: 'order_total' },
      },
      { decided: '40.00 EUR shop_rule', issues: [], warnings: [] },
    ],
    [
      'never make a paid order collect',
      { carrierCode: 'carrier_a', order: codOrder({ totalOutstanding: czk('0.00'), metafields: converted }) },
      { decided: '0.00 CZK payment_gateway', issues: [], warnings: [] },
    ],
    [
      'are ignored by other carriers',
      { carrierCode: 'carrier_c', order: codOrder({ metafields: converted }) },
      { decided: '1000.00 CZK payment_gateway', issues: [], warnings: [] },
    ],
    [
      'lose to an explicit cod, with a warning',
      { carrierCode: 'carrier_a', requestCod: czk('5.00'), order: codOrder({ metafields: converted }) },
      { decided: '5.00 CZK request', issues: [], warnings: ['cod_conversion_metafield_ignored'] },
    ],
    [
      'lose to service/cod_value, with a warning',
      { carrierCode: 'carrier_a', order: codOrder({ metafields: { ...converted, 'service.cod_value': '7' } }) },
      { decided: '7.00 CZK order_metafield', issues: [], warnings: ['cod_conversion_metafield_ignored'] },
    ],
    [
      'zero fails',
      { carrierCode: 'carrier_a', order: codOrder({ metafields: { ...converted, 'custom.converted_value': '0' } }) },
      {
        decided: null,
        issues: [{ code: 'cod_metafield_invalid', field: 'custom.converted_value', raw: '0' }],
        warnings: [],
      },
    ],
    [
      'not a number fails',
      {
        carrierCode: 'carrier_a',
        order: codOrder({ metafields: { ...converted, 'custom.converted_value': 'forty' } }),
      },
      {
        decided: null,
        issues: [{ code: 'cod_metafield_invalid', field: 'custom.converted_value', raw: 'forty' }],
        warnings: [],
      },
    ],
    [
      'without a currency fails',
      { carrierCode: 'carrier_a', order: codOrder({ metafields: { 'custom.converted_value': '40' } }) },
      {
        decided: null,
        issues: [{ code: 'cod_metafield_invalid', field: 'custom.converted_currency', raw: '' }],
        warnings: [],
      },
    ],
  ])('%s', (_name, input, expected) => {
    expect(summary(cod(input))).toEqual(expected);
  });

  it('scales the converted amount to the label’s share and records it', () => {
    const fos = [
      aFulfillmentOrder(1, { goodsValueHundredths: 25_000 }),
      aFulfillmentOrder(2, { goodsValueHundredths: 75_000 }),
    ];
    const result = cod({
      carrierCode: 'carrier_a',
      order: codOrder({ metafields: converted }),
      target: [fos[0]!],
      fulfillmentOrders: fos,
    });
    expect(result.ok && result.value.cod).toMatchObject({
      decided: { amount: '10.00', currency: 'EUR' },
      derivation: {
        base: { amount: '40.00', currency: 'EUR' },
        converted: { value: '40', currency: 'EUR' },
        split: { fulfillmentOrderIds: [foGid(1)] },
      },
    });
  });
});

describe('labelCurrency', () => {
  it.each<[string, Record<string, string>, unknown]>([
    ['the order currency', {}, { currency: 'CZK' }],
    ['service/currency', { 'service.currency': 'EUR' }, { currency: 'EUR' }],
    ['service/currency in any case', { 'service.currency': ' huf ' }, { currency: 'HUF' }],
    [
      'an invalid service/currency',
      { 'service.currency': 'euro' },
      { issue: { code: 'cod_metafield_invalid', field: 'service/currency', raw: 'euro' } },
    ],
  ])('%s', (_name, metafields, expected) => {
    expect(labelCurrency(anOrder({ metafields }))).toEqual(expected);
  });
});

describe('labelShare: an automatic amount split by goods value after discounts', () => {
  const fo = aFulfillmentOrder;
  it.each<[string, number, number[], Parameters<typeof fo>[1][], number, boolean]>([
    ['the whole order: no split', 100_000, [1, 2], [{}, {}], 100_000, false],
    [
      'one of two by goods value',
      100_000,
      [2],
      [{ goodsValueHundredths: 30_000 }, { goodsValueHundredths: 70_000 }],
      70_000,
      true,
    ],
    [
      'equal shares when the order has no goods value',
      100_000,
      [1],
      [{ goodsValueHundredths: 0 }, { goodsValueHundredths: 0 }],
      50_000,
      true,
    ],
    ['cancelled fulfillment orders take no share', 100_000, [1], [{}, { status: 'cancelled' }], 100_000, false],
    [
      'replaced fulfillment orders take no share',
      100_000,
      [1],
      [{}, { status: 'closed', replacedBy: [foGid(1)] }],
      100_000,
      false,
    ],
    ['shipped (closed) fulfillment orders keep their share', 100_000, [1], [{}, { status: 'closed' }], 50_000, true],
  ])('%s', (_name, amount, targetNumbers, fos, share, split) => {
    const all = fos.map((o, i) => fo(i + 1, o));
    const result = labelShare(
      amount,
      all.filter((_, i) => targetNumbers.includes(i + 1)),
      all,
      'CZK',
    );
    expect(result.shareHundredths).toBe(share);
    expect(result.split !== null).toBe(split);
  });

  it('apportions by largest remainder, so the shares of an order add up to the amount', () => {
    const all = [1, 2, 3].map((n) => aFulfillmentOrder(n));
    const shares = all.map((f) => labelShare(10_000, [f], all, 'CZK').shareHundredths);
    expect(shares).toEqual([3334, 3333, 3333]);
    expect(shares.reduce((a, b) => a + b, 0)).toBe(10_000);
  });
});

describe('codToCarrier: carrier rounding and cod_adjusted', () => {
  const rounding = (code: string) => CARRIERS[code]!.codRounding;
  it.each<[string, string, { amount: string; currency: string }, string, boolean]>([
    ['carrier A CZK to whole units, half up', 'carrier_a', czk('499.50'), '500.00', true],
    ['carrier A CZK below half', 'carrier_a', czk('499.49'), '499.00', true],
    ['carrier A CZK already whole', 'carrier_a', czk('499.00'), '499.00', false],
    ['carrier A HUF up to a multiple of 20', 'carrier_a', { amount: '1001.00', currency: 'HUF' }, '1020.00', true],
    ['carrier A HUF already a multiple', 'carrier_a', { amount: '1020.00', currency: 'HUF' }, '1020.00', false],
    ['carrier A EUR is not rounded', 'carrier_a', { amount: '10.55', currency: 'EUR' }, '10.55', false],
    ['carrier B CZK whole', 'carrier_b', czk('10.50'), '11.00', true],
    ['carrier C HUF whole', 'carrier_c', { amount: '10.40', currency: 'HUF' }, '10.00', true],
    ['carrier D every currency whole', 'carrier_d', { amount: '10.50', currency: 'EUR' }, '11.00', true],
    ['zero stays zero', 'carrier_a', czk('0.00'), '0.00', false],
  ])('%s', (_name, carrier, decided, toCarrier, adjusted) => {
    const { toCarrier: result, warning } = codToCarrier(decided, rounding(carrier));
    expect(result.amount).toBe(toCarrier);
    expect(result.adjustments.length > 0).toBe(adjusted);
    expect(warning?.code ?? null).toBe(adjusted ? 'cod_adjusted' : null);
  });

  it('records the adjustment and the warning details', () => {
    expect(codToCarrier({ amount: '1001.00', currency: 'HUF' }, rounding('carrier_a'))).toEqual({
      toCarrier: {
        amount: '1020.00',
        currency: 'HUF',
        adjustments: [
          { kind: 'carrier_rounding', rule: { mode: 'up_to_multiple', multiple: 20 }, from: '1001.00', to: '1020.00' },
        ],
      },
      warning: expect.objectContaining({
        code: 'cod_adjusted',
        details: {
          decided: { amount: '1001.00', currency: 'HUF' },
          to_carrier: { amount: '1020.00', currency: 'HUF' },
        },
      }),
    });
  });
});

describe('metafield amounts and COD gateways', () => {
  it.each<[string, number | null]>([
    ['1290', 129_000],
    ['1290.5', 129_050],
    ['1290.50', 129_050],
    ['1290.500', 129_050],
    [' 12 ', 1_200],
    ['0', 0],
    ['1290.505', null],
    ['12,50', null],
    ['-1', null],
    ['1e3', null],
    ['', null],
  ])('%j -> %s', (raw, hundredths) => {
    expect(parseMetafieldAmount(raw)).toBe(hundredths);
  });

  it.each<[string, boolean]>([
    ['Cash on Delivery (COD)', true],
    ['cod', true],
    ['Dobírka', true],
    ['Utánvét', true],
    ['Płatność przy odbiorze (pobranie)', true],
    ['Nachnahme', true],
    ['shopify_payments', false],
    ['Bank transfer', false],
    ['Codeshop voucher', false],
  ])('%s is a COD gateway: %s', (name, expected) => {
    expect(isCodGateway(name)).toBe(expected);
  });
});

import type { CodRounding } from './carrier-catalog';
import type { Money } from './money';
import { codRoundingFor, fromHundredths, roundCod, toHundredths } from './cod-rounding';
import type { ContextFulfillmentOrder, ContextOrder } from './creation-context';
import type { CodSource } from './labels';
import { decided, refusal, refused, type CreationWarning, type Decided, type ValidationIssue } from './refusal';

/**
 * Order metafields the decisions read, by their `namespace.key` on the platform port. Issue `field` values use the
 * spec's spelling (`service/cod_value`, `custom.converted_value`).
 */
export const METAFIELDS = {
  codValue: { key: 'service.cod_value', field: 'service/cod_value' },
  currency: { key: 'service.currency', field: 'service/currency' },
  convertedValue: { key: 'custom.converted_value', field: 'custom.converted_value' },
  convertedCurrency: { key: 'custom.converted_currency', field: 'custom.converted_currency' },
  packetValue: { key: 'custom.packet_value', field: 'custom.packet_value' },
} as const;

/** Gateway names that collect cash on delivery (docs/decisions/0116-cod-and-declared-value.md). */
const COD_GATEWAY =
  /cash on delivery|\bcod\b|dob[ií]rk|dobierk|ut[aá]nv[eé]t|pobrani|nachnahme|contrassegno|contra reembolso/i;
export const isCodGateway = (name: string): boolean => COD_GATEWAY.test(name);

const CURRENCY = /^[A-Z]{3}$/;

function metafield(order: ContextOrder, key: string): string | null {
  const raw = order.metafields[key];
  return raw === undefined || raw.trim() === '' ? null : raw;
}

/**
 * A metafield amount: a non-negative decimal with at most two places (trailing zeros beyond them are tolerated,
 * `1290.000`), in hundredths; null when it is not such a number.
 */
export function parseMetafieldAmount(raw: string): number | null {
  const match = /^(\d{1,9})(?:\.(\d+))?$/.exec(raw.trim());
  if (!match) return null;
  const decimals = (match[2] ?? '').replace(/0+$/, '');
  if (decimals.length > 2) return null;
  return toHundredths(decimals ? `${match[1]}.${decimals}` : match[1]!);
}

/** Spec: label currency is metafield `service/currency`, else the order currency. */
export function labelCurrency(order: ContextOrder): { currency: string } | { issue: ValidationIssue } {
  const raw = metafield(order, METAFIELDS.currency.key);
  if (raw === null) return { currency: order.currency };
  const currency = raw.trim().toUpperCase();
  if (CURRENCY.test(currency)) return { currency };
  return { issue: { code: 'cod_metafield_invalid', field: METAFIELDS.currency.field, raw } };
}

export interface CodSplit {
  labelGoodsValue: Money;
  orderGoodsValue: Money;
  fulfillmentOrderIds: string[];
}

/** Fulfillment orders an order-level amount is shared across: all but cancelled ones and ones an edit replaced. */
const sharesOrderAmount = (fo: ContextFulfillmentOrder) => fo.status !== 'cancelled' && fo.replacedBy.length === 0;

/**
 * The label's share of an order-level amount, split across the order's fulfillment orders by goods value after
 * discounts (equally when the order has no goods value). Shares are apportioned by largest remainder over every
 * fulfillment order, so the labels of one order always add up to the amount. `split` is null when the label covers
 * the whole order.
 */
export function labelShare(
  amountHundredths: number,
  target: readonly ContextFulfillmentOrder[],
  all: readonly ContextFulfillmentOrder[],
  currency: string,
): { shareHundredths: number; split: CodSplit | null } {
  const targetIds = new Set(target.map((fo) => fo.id));
  const parts = all.filter((fo) => sharesOrderAmount(fo) || targetIds.has(fo.id));
  if (parts.every((fo) => targetIds.has(fo.id))) return { shareHundredths: amountHundredths, split: null };
  const total = parts.reduce((sum, fo) => sum + fo.goodsValueHundredths, 0);
  const weights = parts.map((fo) => BigInt(total === 0 ? 1 : fo.goodsValueHundredths));
  const weightSum = weights.reduce((a, b) => a + b, 0n);
  const amount = BigInt(amountHundredths);
  const floors = weights.map((w) => (amount * w) / weightSum);
  const remainders = weights.map((w, i) => ({ i, r: (amount * w) % weightSum }));
  let left = Number(amount - floors.reduce((a, b) => a + b, 0n));
  const extra = new Set<number>();
  for (const { i } of [...remainders].sort((a, b) => (a.r === b.r ? a.i - b.i : a.r > b.r ? -1 : 1))) {
    if (left <= 0) break;
    extra.add(i);
    left -= 1;
  }
  let share = 0;
  parts.forEach((fo, i) => {
    if (targetIds.has(fo.id)) share += Number(floors[i]!) + (extra.has(i) ? 1 : 0);
  });
  const labelGoods = parts.filter((fo) => targetIds.has(fo.id)).reduce((s, fo) => s + fo.goodsValueHundredths, 0);
  return {
    shareHundredths: share,
    split: {
      labelGoodsValue: { amount: fromHundredths(labelGoods), currency },
      orderGoodsValue: { amount: fromHundredths(total), currency },
      fulfillmentOrderIds: target.map((fo) => fo.id),
    },
  };
}

/** `resolved.cod.derivation`: how an automatic amount came about; all null for an explicit `cod`. */
export interface CodDerivation {
  /** The order-level amount before the label's share. */
  base: Money | null;
  /** `service/cod_value` as read, when it decided. */
  rawMetafield: string | null;
  matchedGateway: string | null;
  outstandingBalance: Money | null;
  /** The label's share of `base`. */
  share: Money | null;
  split: CodSplit | null;
  /** Carrier A's `custom.converted_value` / `custom.converted_currency` when they replaced the amount. */
  converted: { value: string; currency: string } | null;
}

export interface CodAdjustment {
  kind: 'carrier_rounding';
  rule: CodRounding;
  from: string;
  to: string;
}

export interface CodDecision {
  decided: Money & { source: CodSource };
  derivation: CodDerivation;
}

export interface CodDecisionOutcome {
  /** Null when an issue leaves nothing to decide (then `issues` says why). */
  cod: CodDecision | null;
  issues: ValidationIssue[];
  warnings: CreationWarning[];
}

export interface CodInput {
  requestCod: Money | null;
  order: ContextOrder;
  target: readonly ContextFulfillmentOrder[];
  fulfillmentOrders: readonly ContextFulfillmentOrder[];
  codRule: { amountSource: 'order_total' | 'outstanding_balance' } | null;
  /** Catalogue code of the chosen account's carrier: carrier A reads converted metafields. */
  carrierCode: string;
  labelCurrency: string;
}

const noDerivation: CodDerivation = {
  base: null,
  rawMetafield: null,
  matchedGateway: null,
  outstandingBalance: null,
  share: null,
  split: null,
  converted: null,
};

/** Carrier A's converted metafields: `null` when absent, an issue when unusable. */
function convertedMetafields(
  order: ContextOrder,
): { value: string; hundredths: number; currency: string } | { issue: ValidationIssue } | null {
  const value = metafield(order, METAFIELDS.convertedValue.key);
  if (value === null) return null;
  const hundredths = parseMetafieldAmount(value);
  if (hundredths === null || hundredths === 0)
    return { issue: { code: 'cod_metafield_invalid', field: METAFIELDS.convertedValue.field, raw: value } };
  const currency = (metafield(order, METAFIELDS.convertedCurrency.key) ?? '').trim().toUpperCase();
  if (!CURRENCY.test(currency)) {
    return {
      issue: {
        code: 'cod_metafield_invalid',
        field: METAFIELDS.convertedCurrency.field,
        raw: order.metafields[METAFIELDS.convertedCurrency.key] ?? '',
      },
    };
  }
  return { value, hundredths, currency };
}

const conversionIgnored = (source: CodSource): CreationWarning => ({
  code: 'cod_conversion_metafield_ignored',
  message: `custom.converted_value was not used: the COD comes from ${source === 'request' ? 'the request' : 'service/cod_value'}.`,
  details: { source },
});

/**
 * Spec `POST /labels` "Cash on delivery decision": the five sources in order (first match wins), the metafield rules,
 * the label currency without conversion, the split of an automatic amount, and carrier A's converted metafields.
 * Returns a refusal only for `currency_mismatch`; metafield problems are `label_validation_failed` issues, collected
 * with the other pre-carrier checks.
 */
export function decideCod(input: CodInput): Decided<CodDecisionOutcome> {
  const { order, labelCurrency: currency } = input;
  const carrierA = input.carrierCode === 'carrier_a';
  const hasConversion = carrierA && metafield(order, METAFIELDS.convertedValue.key) !== null;

  if (input.requestCod) {
    if (input.requestCod.currency !== currency) {
      return refused(
        refusal('currency_mismatch', `cod must be in ${currency}, the label currency; amounts are never converted.`, {
          field: 'cod',
          expected_currency: currency,
        }),
      );
    }
    return decided({
      cod: { decided: { ...input.requestCod, source: 'request' }, derivation: noDerivation },
      issues: [],
      warnings: hasConversion ? [conversionIgnored('request')] : [],
    });
  }

  const rawCodValue = metafield(order, METAFIELDS.codValue.key);
  if (rawCodValue !== null) {
    const base = parseMetafieldAmount(rawCodValue);
    if (base === null) {
      return decided({
        cod: null,
        issues: [{ code: 'cod_metafield_invalid', field: METAFIELDS.codValue.field, raw: rawCodValue }],
        warnings: [],
      });
    }
    const { shareHundredths, split } = labelShare(base, input.target, input.fulfillmentOrders, order.currency);
    return decided({
      cod: {
        decided: { amount: fromHundredths(shareHundredths), currency, source: 'order_metafield' },
        derivation: {
          ...noDerivation,
          base: { amount: fromHundredths(base), currency },
          rawMetafield: rawCodValue,
          share: { amount: fromHundredths(shareHundredths), currency },
          split,
        },
      },
      issues: [],
      warnings: hasConversion ? [conversionIgnored('order_metafield')] : [],
    });
  }

  const gateway = order.paymentGateways.find(isCodGateway) ?? null;
  const ruleApplies = gateway === null && input.codRule !== null && order.paymentGateways.length === 0;
  if (gateway === null && !ruleApplies) {
    return decided({
      cod: { decided: { amount: '0.00', currency, source: 'none' }, derivation: noDerivation },
      issues: [],
      warnings: [],
    });
  }
  const source: CodSource = gateway !== null ? 'payment_gateway' : 'shop_rule';
  const orderAmount =
    gateway !== null || input.codRule?.amountSource === 'outstanding_balance'
      ? order.totalOutstanding
      : order.totalPrice;
  const derivation: CodDerivation = {
    ...noDerivation,
    matchedGateway: gateway,
    outstandingBalance: orderAmount === order.totalOutstanding ? order.totalOutstanding : null,
  };
  const orderHundredths = toHundredths(orderAmount.amount);
  if (orderHundredths === 0) {
    // Nothing left to collect: paid orders ship without COD, converted metafields or not.
    return decided({
      cod: {
        decided: { amount: '0.00', currency, source },
        derivation: { ...derivation, base: orderAmount, share: { amount: '0.00', currency: orderAmount.currency } },
      },
      issues: [],
      warnings: [],
    });
  }

  if (hasConversion) {
    const converted = convertedMetafields(order);
    if (converted && 'issue' in converted) return decided({ cod: null, issues: [converted.issue], warnings: [] });
    if (converted) {
      const { shareHundredths, split } = labelShare(
        converted.hundredths,
        input.target,
        input.fulfillmentOrders,
        order.currency,
      );
      const share = { amount: fromHundredths(shareHundredths), currency: converted.currency };
      return decided({
        cod: {
          decided: { ...share, source },
          derivation: {
            ...derivation,
            base: { amount: fromHundredths(converted.hundredths), currency: converted.currency },
            share,
            split,
            converted: { value: converted.value, currency: converted.currency },
          },
        },
        issues: [],
        warnings: [],
      });
    }
  }

  if (orderAmount.currency !== currency) {
    return refused(
      refusal(
        'currency_mismatch',
        `The order’s amount to collect is in ${orderAmount.currency} but the label currency is ${currency}; amounts are never converted. Send cod in ${currency}.`,
        { field: 'cod', expected_currency: currency },
      ),
    );
  }
  const { shareHundredths, split } = labelShare(orderHundredths, input.target, input.fulfillmentOrders, order.currency);
  const share = { amount: fromHundredths(shareHundredths), currency };
  return decided({
    cod: { decided: { ...share, source }, derivation: { ...derivation, base: orderAmount, share, split } },
    issues: [],
    warnings: [],
  });
}

export interface CodToCarrier extends Money {
  adjustments: CodAdjustment[];
}

/**
 * Spec: `to_carrier` differs from `decided` when the carrier rounds (`carrier.cod.rounding_by_currency`); warning
 * `cod_adjusted` marks it.
 */
export function codToCarrier(
  decidedCod: Money,
  rounding: Readonly<Record<string, CodRounding>>,
): { toCarrier: CodToCarrier; warning: CreationWarning | null } {
  const rounded = roundCod(decidedCod, rounding);
  const rule = codRoundingFor(rounding, decidedCod.currency);
  if (rounded.amount === fromHundredths(toHundredths(decidedCod.amount)) || !rule) {
    return { toCarrier: { ...rounded, adjustments: [] }, warning: null };
  }
  return {
    toCarrier: {
      ...rounded,
      adjustments: [{ kind: 'carrier_rounding', rule, from: decidedCod.amount, to: rounded.amount }],
    },
    warning: {
      code: 'cod_adjusted',
      message: `The carrier collects ${rounded.amount} ${rounded.currency} instead of ${decidedCod.amount} (its rounding).`,
      details: { decided: { amount: decidedCod.amount, currency: decidedCod.currency }, to_carrier: rounded },
    },
  };
}

import type { Money } from './money';
import { METAFIELDS, labelShare, parseMetafieldAmount } from './cod';
import { fromHundredths } from './cod-rounding';
import type { ContextFulfillmentOrder, ContextOrder } from './creation-context';
import { decided, refusal, refused, type Decided, type ValidationIssue } from './refusal';

export type DeclaredValueSource = 'request' | 'order';

/** `resolved.declared_value`: both null where the carrier account takes no declared value. */
export interface DeclaredValueDecision {
  decided: (Money & { source: DeclaredValueSource }) | null;
  toCarrier: Money | null;
}

export interface DeclaredValueInput {
  requestDeclaredValue: Money | null;
  /** `declared_value.supported` of the chosen account (v1: carrier A only). */
  supported: boolean;
  carrierCode: string;
  order: ContextOrder;
  target: readonly ContextFulfillmentOrder[];
  fulfillmentOrders: readonly ContextFulfillmentOrder[];
  labelCurrency: string;
}

/**
 * Spec `POST /labels` `declared_value` ("derived"): the request's amount (in the label currency), else the order's:
 * carrier A's `custom.packet_value` in `custom.converted_currency` scaled to the label's share, else the goods value
 * after discounts of the fulfillment orders the label covers, in the order currency. Carriers without declared value
 * support get none. An explicit value there is refused earlier, as `unsupported_parameter`.
 */
export function decideDeclaredValue(
  input: DeclaredValueInput,
): Decided<{ declaredValue: DeclaredValueDecision; issues: ValidationIssue[] }> {
  if (!input.supported) return decided({ declaredValue: { decided: null, toCarrier: null }, issues: [] });
  const done = (value: Money & { source: DeclaredValueSource }) =>
    decided({
      declaredValue: { decided: value, toCarrier: { amount: value.amount, currency: value.currency } },
      issues: [],
    });

  if (input.requestDeclaredValue) {
    if (input.requestDeclaredValue.currency !== input.labelCurrency) {
      return refused(
        refusal(
          'currency_mismatch',
          `declared_value must be in ${input.labelCurrency}, the label currency; amounts are never converted.`,
          { field: 'declared_value', expected_currency: input.labelCurrency },
        ),
      );
    }
    return done({ ...input.requestDeclaredValue, source: 'request' });
  }

  const packetRaw = input.order.metafields[METAFIELDS.packetValue.key];
  if (input.carrierCode === 'carrier_a' && packetRaw !== undefined && packetRaw.trim() !== '') {
    const packet = parseMetafieldAmount(packetRaw);
    const currencyRaw = input.order.metafields[METAFIELDS.convertedCurrency.key] ?? '';
    const currency = currencyRaw.trim().toUpperCase();
    const issues: ValidationIssue[] = [];
    if (packet === null)
      issues.push({ code: 'cod_metafield_invalid', field: METAFIELDS.packetValue.field, raw: packetRaw });
    if (!/^[A-Z]{3}$/.test(currency))
      issues.push({ code: 'cod_metafield_invalid', field: METAFIELDS.convertedCurrency.field, raw: currencyRaw });
    if (issues.length > 0 || packet === null)
      return decided({ declaredValue: { decided: null, toCarrier: null }, issues });
    const { shareHundredths } = labelShare(packet, input.target, input.fulfillmentOrders, currency);
    return done({ amount: fromHundredths(shareHundredths), currency, source: 'order' });
  }

  const goods = input.target.reduce((sum, fo) => sum + fo.goodsValueHundredths, 0);
  return done({ amount: fromHundredths(goods), currency: input.order.currency, source: 'order' });
}

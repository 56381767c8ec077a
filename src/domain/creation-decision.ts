import type { Money } from './money';
import { selectCarrier, type Selection } from './carrier-selection';
import { codToCarrier, decideCod, labelCurrency, type CodAdjustment, type CodDerivation } from './cod';
import { fromHundredths, toHundredths } from './cod-rounding';
import type { ContextCarrierAccount, ContextFulfillmentOrder, ContextOrder, CreationContext } from './creation-context';
import type { CarrierOptionValue, CreationRequest } from './creation-request';
import { decideDeclaredValue, type DeclaredValueDecision } from './declared-value';
import { compareWithExisting, decideExistingLabels, type WaitFor } from './existing-labels';
import type { CodSource, FulfillmentMode } from './labels';
import { preCarrierChecks } from './pre-carrier-checks';
import { refusal, type CreationWarning, type Refusal, type ValidationIssue } from './refusal';
import { decideTarget, resolveOrder } from './target';

export interface OrderRef {
  id: string;
  legacyId: string;
  name: string;
}

export interface ResolvedCod {
  decided: Money & { source: CodSource };
  toCarrier: Money & { adjustments: CodAdjustment[]; state: 'predicted' | 'sent' };
  derivation: CodDerivation;
}

/**
 * The creation's `resolved` block (camelCase; the label creation serializer writes the wire form). Every field is
 * null until decided; a `create` decision fills all of them.
 */
export interface ResolvedBlock {
  selection: Selection | null;
  matchedRule: { id: string; priority: number } | null;
  carrierAccountId: string | null;
  serviceCode: string | null;
  parcels: Array<{ weightGrams: number; source: 'request' | 'order' }> | null;
  fulfillment: { mode: FulfillmentMode; source: 'request' | 'account_default' } | null;
  cod: ResolvedCod | null;
  declaredValue: DeclaredValueDecision | null;
}

export const EMPTY_RESOLVED: ResolvedBlock = {
  selection: null,
  matchedRule: null,
  carrierAccountId: null,
  serviceCode: null,
  parcels: null,
  fulfillment: null,
  cod: null,
  declaredValue: null,
};

/** Everything the carrier port's create call needs besides the creation's own reference. */
export interface CarrierCall {
  carrierAccountId: string;
  carrierCode: string;
  serviceCode: string;
  orderName: string;
  recipient: { name: string; company: string | null };
  address: { street: string; city: string; postcode: string; country: string };
  phone: string | null;
  email: string | null;
  pickupPoint: { id: string; country: string } | null;
  weightGrams: number;
  /** What the courier collects, after the carrier's rounding; null without COD. */
  cod: Money | null;
  declaredValue: Money | null;
  options: Record<string, CarrierOptionValue>;
}

export type CreationDecision =
  | {
      kind: 'create';
      order: OrderRef;
      /** GIDs of the fulfillment orders the label covers. */
      targetFulfillmentOrderIds: string[];
      /** What `create_new` replaces (`lbl_` and `lcr_` IDs); empty otherwise. */
      replaces: string[];
      resolved: ResolvedBlock;
      warnings: CreationWarning[];
      fulfillment: FulfillmentMode;
      carrierCall: CarrierCall;
    }
  | {
      kind: 'return_existing';
      order: OrderRef;
      targetFulfillmentOrderIds: string[];
      labelIds: string[];
      warnings: CreationWarning[];
    }
  | {
      kind: 'wait_for_existing';
      order: OrderRef;
      targetFulfillmentOrderIds: string[];
      waitFor: WaitFor;
      warnings: CreationWarning[];
    }
  | { kind: 'refuse'; order: OrderRef | null; refusal: Refusal };

/** What a creation's record keeps of its decision: the order, the target, the `resolved` block and warnings. */
export interface DecisionRecord {
  order: OrderRef;
  fulfillmentOrderGids: string[];
  resolved: ResolvedBlock | null;
  warnings: CreationWarning[];
}

export function decisionRecord(decision: CreationDecision): DecisionRecord {
  return {
    order: decision.order ?? { id: '', legacyId: '', name: '' },
    fulfillmentOrderGids: decision.kind === 'refuse' ? [] : decision.targetFulfillmentOrderIds,
    resolved: decision.kind === 'create' ? decision.resolved : null,
    warnings: decision.kind === 'refuse' ? [] : decision.warnings,
  };
}

const orderRef = (order: ContextOrder): OrderRef => ({ id: order.id, legacyId: order.legacyId, name: order.name });

/** Issue codes whose request will not succeed however it is fixed (spec: `cod_dropped_by_carrier_module`: no/none). */
const UNFIXABLE_ISSUES = new Set(['cod_dropped_by_carrier_module']);

export function validationFailed(issues: ValidationIssue[], extra: Record<string, unknown> = {}): Refusal {
  const unfixable = issues.every((i) => UNFIXABLE_ISSUES.has(i.code));
  return refusal(
    'label_validation_failed',
    `Checks before the carrier call failed: ${issues.map((i) => i.code).join(', ')}. Nothing was sent to the carrier.`,
    { issues, ...extra, ...(unfixable ? { retry: 'no', next_action: 'none' } : {}) },
  );
}

function carrierOptions(
  account: ContextCarrierAccount,
  requested: Readonly<Record<string, CarrierOptionValue>>,
): { options: Record<string, CarrierOptionValue> } | { refusal: Refusal } {
  for (const [key, value] of Object.entries(requested)) {
    const declared = account.options[key];
    if (!declared) {
      return {
        refusal: refusal(
          'unsupported_parameter',
          `Carrier account ${account.id} has no option ${JSON.stringify(key)}; its options are listed on GET /carrier-accounts/${account.id}.`,
          { parameter: `carrier_options.${key}`, carrier_account_id: account.id },
        ),
      };
    }
    if (typeof value !== declared.type) {
      return {
        refusal: refusal('validation_error', `carrier_options.${key} must be a ${declared.type}.`, {
          parameter: `carrier_options.${key}`,
          received: value,
          allowed: [declared.type],
        }),
      };
    }
  }
  const options: Record<string, CarrierOptionValue> = {};
  for (const key of Object.keys(account.options).sort()) {
    const value = requested[key] ?? account.options[key]!.default;
    if (value !== null) options[key] = value;
  }
  return { options };
}

/** Parcel weight: the request's, else the sum of the target's line items (unknown when one has no weight). */
function parcelWeight(
  request: CreationRequest,
  target: readonly ContextFulfillmentOrder[],
): { weightGrams: number; source: 'request' | 'order' } | null {
  if (request.parcels) return { weightGrams: request.parcels[0]!.weightGrams, source: 'request' };
  if (target.some((fo) => fo.weightGrams === null)) return null;
  const sum = target.reduce((s, fo) => s + fo.weightGrams!, 0);
  return sum >= 1 ? { weightGrams: sum, source: 'order' } : null;
}

/** Whether the order has COD to collect, decided without the carrier (what rules' `cod_required` matches). */
function codRequiredForRules(context: CreationContext, request: CreationRequest, order: ContextOrder): boolean {
  const currency = labelCurrency(order);
  const probe = decideCod({
    requestCod: request.cod,
    order,
    target: [],
    fulfillmentOrders: [],
    codRule: context.store.codRule,
    carrierCode: '',
    labelCurrency: 'currency' in currency ? currency.currency : order.currency,
  });
  return probe.ok && probe.value.cod !== null && toHundredths(probe.value.cod.decided.amount) > 0;
}

/**
 * Every decision `POST /labels` makes before it calls a carrier, in the spec's order: order, target, existing labels,
 * carrier selection, carrier options and declared value support, COD and declared value, pre-carrier checks. Pure:
 * the dry run calls it once; the creation workflow calls it with the same context its preparing activity loaded.
 * Refusals are returned, never thrown.
 */
export function decideCreation(context: CreationContext, request: CreationRequest, nowMs: number): CreationDecision {
  const found = resolveOrder(context.orderLookup);
  if (!found.ok) return { kind: 'refuse', order: null, refusal: found.refusal };
  const order = found.value;
  const ref = orderRef(order);
  const refuse = (r: Refusal): CreationDecision => ({ kind: 'refuse', order: ref, refusal: r });

  const targetDecision = decideTarget(order, context.fulfillmentOrders, context.labels, request);
  if (!targetDecision.ok) return refuse(targetDecision.refusal);
  const target = targetDecision.value;
  const targetIds = target.map((fo) => fo.id);

  const existing = decideExistingLabels({
    onExisting: request.onExisting,
    replaces: request.replaces,
    target,
    fulfillmentOrders: context.fulfillmentOrders,
    labels: context.labels,
    creations: context.creations,
    holders: context.holders,
    selfCreationId: context.selfCreationId,
    nowMs,
  });
  if (existing.kind === 'refuse') return refuse(existing.refusal);
  if (existing.kind === 'wait_for_existing') {
    return {
      kind: 'wait_for_existing',
      order: ref,
      targetFulfillmentOrderIds: targetIds,
      waitFor: existing.waitFor,
      warnings: [],
    };
  }
  if (existing.kind === 'return_existing') {
    const compared = compareWithExisting(request, existing.labels, context.carrierAccounts);
    if (compared.kind === 'refuse') return refuse(compared.refusal);
    return {
      kind: 'return_existing',
      order: ref,
      targetFulfillmentOrderIds: targetIds,
      labelIds: existing.labels.map((l) => l.id),
      warnings: compared.warnings,
    };
  }
  return decideNewShipment(context, request, { order, target, replaces: existing.replaces });
}

/**
 * The decisions for a new shipment, once order, target and existing labels let one be made: carrier selection,
 * carrier options and declared value support, COD and declared value, pre-carrier checks; then the carrier call.
 */
function decideNewShipment(
  context: CreationContext,
  request: CreationRequest,
  given: { order: ContextOrder; target: readonly ContextFulfillmentOrder[]; replaces: string[] },
): CreationDecision {
  const { order, target } = given;
  const ref = orderRef(order);
  const refuse = (r: Refusal): CreationDecision => ({ kind: 'refuse', order: ref, refusal: r });
  const currency = labelCurrency(order);
  if ('issue' in currency) return refuse(validationFailed([currency.issue]));

  const selected = selectCarrier(
    context.carrierAccounts,
    context.rules,
    { order, labelCurrency: currency.currency, codRequired: codRequiredForRules(context, request, order) },
    request,
  );
  if (!selected.ok) return refuse(selected.refusal);
  const { account, service } = selected.value;

  const options = carrierOptions(account, request.carrierOptions);
  if ('refusal' in options) return refuse(options.refusal);
  if (request.declaredValue !== null && !account.declaredValueSupported) {
    return refuse(
      refusal(
        'unsupported_parameter',
        `Carrier account ${account.id} takes no declared value (declared_value.supported is false).`,
        { parameter: 'declared_value', carrier_account_id: account.id },
      ),
    );
  }

  const cod = decideCod({
    requestCod: request.cod,
    order,
    target,
    fulfillmentOrders: context.fulfillmentOrders,
    codRule: context.store.codRule,
    carrierCode: account.carrierCode,
    labelCurrency: currency.currency,
  });
  if (!cod.ok) return refuse(cod.refusal);
  const declared = decideDeclaredValue({
    requestDeclaredValue: request.declaredValue,
    supported: account.declaredValueSupported,
    carrierCode: account.carrierCode,
    order,
    target,
    fulfillmentOrders: context.fulfillmentOrders,
    labelCurrency: currency.currency,
  });
  if (!declared.ok) return refuse(declared.refusal);

  const weight = parcelWeight(request, target);
  const decidedCod = cod.value.cod;
  const rounded = decidedCod ? codToCarrier(decidedCod.decided, account.codRoundingByCurrency) : null;
  const checks = preCarrierChecks({
    account,
    service,
    order,
    codToCarrier: rounded?.toCarrier ?? { amount: '0.00', currency: currency.currency },
    declaredValueToCarrier: declared.value.declaredValue.toCarrier,
    weightGrams: weight?.weightGrams ?? null,
  });
  const issues = [...cod.value.issues, ...declared.value.issues, ...checks.issues];
  if (issues.length > 0 || !decidedCod || !rounded || !weight) {
    const packetMismatch = issues.some((i) => i.code === 'cod_packet_currency_mismatch');
    return refuse(
      validationFailed(
        issues,
        packetMismatch
          ? {
              cod_currency: rounded?.toCarrier.currency ?? null,
              packet_currency: declared.value.declaredValue.toCarrier?.currency ?? null,
            }
          : {},
      ),
    );
  }

  const fulfillment: ResolvedBlock['fulfillment'] =
    request.fulfillment === 'account_default'
      ? { mode: account.defaultFulfillment, source: 'account_default' }
      : { mode: request.fulfillment, source: 'request' };
  const toCarrierCod = rounded.toCarrier;
  const address = order.shippingAddress!;
  const point = order.deliveryMethod.pickupPoint;
  return {
    kind: 'create',
    order: ref,
    targetFulfillmentOrderIds: target.map((fo) => fo.id),
    replaces: given.replaces,
    resolved: {
      selection: selected.value.selection,
      matchedRule: selected.value.matchedRule,
      carrierAccountId: account.id,
      serviceCode: service.code,
      parcels: [weight],
      fulfillment,
      cod: {
        decided: decidedCod.decided,
        toCarrier: { ...toCarrierCod, state: 'predicted' },
        derivation: decidedCod.derivation,
      },
      declaredValue: declared.value.declaredValue,
    },
    warnings: [...cod.value.warnings, ...(rounded.warning ? [rounded.warning] : []), ...checks.warnings],
    fulfillment: fulfillment.mode,
    carrierCall: {
      carrierAccountId: account.id,
      carrierCode: account.carrierCode,
      serviceCode: service.code,
      orderName: order.name,
      recipient: { name: address.name, company: address.company },
      address: { street: address.street, city: address.city, postcode: address.postcode, country: address.country },
      phone: order.phone,
      email: order.email,
      pickupPoint: checks.usesPickupPoint && point ? { id: point.id, country: point.country } : null,
      weightGrams: weight.weightGrams,
      cod:
        toHundredths(toCarrierCod.amount) > 0
          ? { amount: fromHundredths(toHundredths(toCarrierCod.amount)), currency: toCarrierCod.currency }
          : null,
      declaredValue: declared.value.declaredValue.toCarrier,
      options: options.options,
    },
  };
}

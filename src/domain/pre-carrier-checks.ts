import { CARRIERS, isPickupPointIdOf } from './carrier-catalog';
import type { Money } from './money';
import { toHundredths } from './cod-rounding';
import type { ContextCarrierAccount, ContextOrder, ContextService } from './creation-context';
import type { CreationWarning, ValidationIssue } from './refusal';
import { variableSymbolFromOrderName } from './variable-symbol';

/** What carrier D's API accepts as an e-mail address: one `@`, a dot in the domain, no spaces. */
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export interface PreCarrierInput {
  account: ContextCarrierAccount;
  service: ContextService;
  order: ContextOrder;
  /** COD the carrier would collect (after rounding). */
  codToCarrier: Money;
  /** The declared (packet) value the carrier would get; null where it gets none. */
  declaredValueToCarrier: Money | null;
  weightGrams: number | null;
}

export interface PreCarrierOutcome {
  issues: ValidationIssue[];
  warnings: CreationWarning[];
  /** Whether the order's pickup point goes to the carrier (only with a pickup-point service). */
  usesPickupPoint: boolean;
}

/**
 * Spec `label_validation_failed`: every check made before a carrier call, all at once so one answer lists every
 * problem. `missing_phone` is an issue only for carrier C with a pickup point; elsewhere a warning.
 */
export function preCarrierChecks(input: PreCarrierInput): PreCarrierOutcome {
  const { account, service, order } = input;
  const carrier = account.carrierCode;
  const issues: ValidationIssue[] = [];
  const warnings: CreationWarning[] = [];
  const point = order.deliveryMethod.pickupPoint;
  const usesPickupPoint = point !== null && service.pickupPointRequired;
  const hasCod = toHundredths(input.codToCarrier.amount) > 0;

  if (order.shippingAddress === null)
    issues.push({ code: 'account_config_incomplete', raw: 'shipping_address_missing' });
  if (account.sender.countryCode === null)
    issues.push({ code: 'account_config_incomplete', raw: 'sender_country_missing' });
  if (input.weightGrams === null)
    issues.push({ code: 'account_config_incomplete', field: 'parcels', raw: 'parcel_weight_unknown' });

  if (service.pickupPointRequired && point === null) issues.push({ code: 'pickup_point_required' });
  if (point !== null && !service.pickupPointRequired) {
    warnings.push({
      code: 'pickup_point_not_used',
      message: `Service ${service.code} delivers to the address; the order's pickup point is not sent to the carrier.`,
      details: { pickup_point_id: point.id },
    });
  }
  if (usesPickupPoint) {
    // The format is the carrier's own network's (catalogue `pickupNetwork.idFormat`), which its API insists on.
    if (point.id.trim() === '') issues.push({ code: 'pickup_point_id_missing' });
    else if (!isPickupPointIdOf(carrier, point.id)) issues.push({ code: 'pickup_point_malformed', raw: point.id });
    if (carrier === 'carrier_a' && point.carrierCode !== null && point.carrierCode !== 'carrier_a')
      issues.push({ code: 'carrier_a_foreign_pickup_point', raw: point.carrierCode });
    if (carrier === 'carrier_c' && point.carrierCode !== 'carrier_c')
      issues.push({ code: 'psd_requires_carrier_point', raw: point.carrierCode ?? 'custom' });
    if (carrier === 'carrier_d' && hasCod && point.country !== account.sender.countryCode)
      issues.push({ code: 'cod_foreign_pickup_point', raw: point.country });
  }
  if (order.phone === null || order.phone.trim() === '') {
    if (carrier === 'carrier_c' && usesPickupPoint) issues.push({ code: 'missing_phone', field: 'phone' });
    else
      warnings.push({
        code: 'missing_phone',
        message: 'The order has no phone number; the carrier cannot call the recipient.',
      });
  }
  if (carrier === 'carrier_d' && order.email !== null && !EMAIL.test(order.email))
    issues.push({ code: 'email_invalid', field: 'email', raw: order.email });

  if (hasCod) {
    if (!(CARRIERS[carrier]?.codViaApi ?? false)) issues.push({ code: 'cod_dropped_by_carrier_module' });
    else if (!service.codSupported) issues.push({ code: 'cod_not_supported' });
    if (carrier === 'carrier_b') {
      if (!account.sender.iban) issues.push({ code: 'cod_bank_account_missing' });
      if (variableSymbolFromOrderName(order.name) === null)
        issues.push({ code: 'cod_variable_symbol_missing', raw: order.name });
    }
    if (
      carrier === 'carrier_a' &&
      input.declaredValueToCarrier !== null &&
      input.declaredValueToCarrier.currency !== input.codToCarrier.currency
    ) {
      issues.push({ code: 'cod_packet_currency_mismatch' });
    }
  }
  return { issues, warnings, usesPickupPoint };
}

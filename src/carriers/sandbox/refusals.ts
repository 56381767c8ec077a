import { toHundredths } from '../../domain/cod-rounding';
import { isPickupPointIdOf } from '../../domain/carrier-catalog';
import type { CarrierRejectionReason } from '../port';
import { variableSymbolFromOrderName } from '../../domain/variable-symbol';
import { COD_LIMITS, DEFAULT_COD_LIMIT, DEFAULT_MAX_WEIGHT_GRAMS, MAX_WEIGHT_GRAMS, sandboxService } from './services';
import type { SimulatorShipment } from '../sandbox-api/shipment-body';

export interface Refusal {
  reason: CarrierRejectionReason;
  /** The carrier's own words; the service logs them and never returns them. */
  text: string;
}

const POSTCODE_FORMATS: Readonly<Record<string, RegExp>> = {
  CZ: /^\d{3} ?\d{2}$/,
  SK: /^\d{3} ?\d{2}$/,
  HU: /^\d{4}$/,
  PL: /^\d{2}-\d{3}$/,
  DE: /^\d{5}$/,
  AT: /^\d{4}$/,
};

/** Good enough to catch what carrier D's API refuses: one `@`, a dot in the domain, no spaces. */
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Refusals a simulated carrier makes from the shipment itself, before any scripted fault; `null` accepts it. */
export function naturalRefusal(carrierCode: string, s: SimulatorShipment): Refusal | null {
  const service = sandboxService(carrierCode, s.service_code);
  if (!service)
    return { reason: 'service_not_available', text: `Service ${s.service_code} is not available for this customer` };
  const maxWeight = MAX_WEIGHT_GRAMS[carrierCode] ?? DEFAULT_MAX_WEIGHT_GRAMS;
  if (s.weight_grams < 1 || s.weight_grams > maxWeight)
    return { reason: 'weight_out_of_range', text: `Weight ${s.weight_grams} g outside 1-${maxWeight} g` };
  if (!s.pickup_point) {
    if (service.pickupPointOnly)
      return { reason: 'pickup_point_invalid', text: `Service ${service.code} delivers to pickup points only` };
    if (!s.address.street.trim() || !s.address.city.trim() || !s.recipient.name.trim())
      return { reason: 'address_invalid', text: 'Recipient street, city and name are required' };
    const format = POSTCODE_FORMATS[s.address.country];
    if (format ? !format.test(s.address.postcode) : !s.address.postcode.trim())
      return {
        reason: 'postcode_invalid',
        text: `Postcode ${s.address.postcode} is not valid for ${s.address.country}`,
      };
  } else if (!isPickupPointIdOf(carrierCode, s.pickup_point.id)) {
    // An ID outside the carrier's own format is a point the carrier does not know.
    return { reason: 'pickup_point_invalid', text: `Pickup point ${s.pickup_point.id} not found` };
  }
  if (s.cod) {
    const limit = COD_LIMITS[s.cod.currency] ?? DEFAULT_COD_LIMIT;
    if (toHundredths(s.cod.amount) > limit * 100)
      return { reason: 'cod_limit', text: `COD above ${limit} ${s.cod.currency}` };
  }
  return carrierSpecificRefusal(carrierCode, s);
}

function carrierSpecificRefusal(carrierCode: string, s: SimulatorShipment): Refusal | null {
  switch (carrierCode) {
    case 'carrier_b':
      if (s.cod && !s.iban) return { reason: 'other', text: 'COD requires a bank account' };
      if (s.cod && !variableSymbolFromOrderName(s.order_name))
        return { reason: 'other', text: 'COD requires a numeric variable symbol' };
      return null;
    case 'carrier_c':
      if (s.pickup_point && !s.phone)
        return { reason: 'address_invalid', text: 'Phone number is mandatory for parcelshop delivery' };
      return null;
    case 'carrier_d':
      if (s.email !== null && !EMAIL.test(s.email))
        return { reason: 'address_invalid', text: `E-mail ${s.email} is not valid` };
      if (s.cod && s.pickup_point && s.pickup_point.country !== s.sender_country)
        return { reason: 'pickup_point_invalid', text: 'Cash on delivery is not possible to a pickup point abroad' };
      return null;
    default:
      return null;
  }
}

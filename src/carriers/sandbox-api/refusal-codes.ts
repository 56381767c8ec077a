import type { CarrierRejectionReason } from '../port';

/**
 * Each simulated carrier answers a refusal with its own error code, as real carriers do; the adapters map the code
 * back to the spec's reason. Unknown codes map to `other`.
 */
export const NATIVE_REFUSAL_CODES: Readonly<Record<string, Readonly<Record<CarrierRejectionReason, string>>>> = {
  carrier_a: {
    address_invalid: 'InvalidAddress',
    postcode_invalid: 'InvalidZip',
    service_not_available: 'UnknownAddressId',
    weight_out_of_range: 'WeightOutOfRange',
    cod_limit: 'CodTooHigh',
    pickup_point_invalid: 'UnknownPickupPoint',
    credentials_invalid: 'IncorrectApiPassword',
    account_not_permitted: 'AccessDenied',
    other: 'PacketAttributesFault',
  },
  carrier_b: {
    address_invalid: 'E101',
    postcode_invalid: 'E102',
    service_not_available: 'E201',
    weight_out_of_range: 'E301',
    cod_limit: 'E401',
    pickup_point_invalid: 'E501',
    credentials_invalid: 'E901',
    account_not_permitted: 'E902',
    other: 'E999',
  },
  carrier_c: {
    address_invalid: 'ADDRESS_NOT_VALID',
    postcode_invalid: 'ZIP_NOT_VALID',
    service_not_available: 'PRODUCT_NOT_AVAILABLE',
    weight_out_of_range: 'WEIGHT_NOT_ALLOWED',
    cod_limit: 'COD_AMOUNT_EXCEEDED',
    pickup_point_invalid: 'PARCELSHOP_NOT_FOUND',
    credentials_invalid: 'UNAUTHORIZED',
    account_not_permitted: 'CUSTOMER_NOT_ALLOWED',
    other: 'GENERAL_ERROR',
  },
  carrier_d: {
    address_invalid: 'recipient.invalid',
    postcode_invalid: 'recipient.zip.invalid',
    service_not_available: 'product.unavailable',
    weight_out_of_range: 'parcel.weight.invalid',
    cod_limit: 'cod.limit',
    pickup_point_invalid: 'pickup.invalid',
    credentials_invalid: 'auth.invalid',
    account_not_permitted: 'account.forbidden',
    other: 'error',
  },
};

/** Carriers without their own table (E to H, excluded) answer the reason itself. */
export function nativeRefusalCode(carrierCode: string, reason: CarrierRejectionReason): string {
  return NATIVE_REFUSAL_CODES[carrierCode]?.[reason] ?? reason;
}

export function reasonFromNativeCode(carrierCode: string, code: string): CarrierRejectionReason {
  const table = NATIVE_REFUSAL_CODES[carrierCode];
  if (!table)
    return (
      (Object.keys(NATIVE_REFUSAL_CODES.carrier_a!) as CarrierRejectionReason[]).find((r) => r === code) ?? 'other'
    );
  const entry = Object.entries(table).find(([, native]) => native === code);
  return (entry?.[0] as CarrierRejectionReason | undefined) ?? 'other';
}

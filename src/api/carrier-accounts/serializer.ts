import { CARRIERS } from '../../domain/carrier-catalog';
import type { CarrierAccount } from '../../db/entities/carrier-account';
import { isoSeconds } from '../../domain/wire-format';
import type { CarrierAccountWire } from './schemas';

/** The carrier account object (docs/decisions/0110-carrier-account-object.md). Never shows credentials or the IBAN. */
export function serializeCarrierAccount(account: CarrierAccount): CarrierAccountWire {
  const carrier = CARRIERS[account.carrierCode];
  return {
    id: account.id,
    name: account.name,
    carrier: {
      code: account.carrierCode,
      name: carrier?.name ?? account.carrierCode,
      cod: {
        supported: carrier?.codViaApi ?? false,
        rounding_by_currency: account.codRoundingByCurrency,
      },
    },
    currency: account.currency,
    api_creation: account.apiCreation,
    services: account.services.map((s) => ({
      code: s.code,
      name: s.name,
      cod_supported: s.codSupported,
      pickup_point_required: s.pickupPointRequired,
    })),
    options: Object.fromEntries(
      Object.entries(account.options).map(([key, o]) => [
        key,
        { type: o.type, default: o.default, description: o.description ?? null },
      ]),
    ),
    declared_value: { supported: account.declaredValueSupported },
    default_fulfillment: account.defaultFulfillment,
    sender: { name: account.sender.name, country_code: account.sender.countryCode ?? null },
    print_tag: account.printTag,
    created_at: isoSeconds(account.createdAt),
    updated_at: isoSeconds(account.updatedAt),
  };
}

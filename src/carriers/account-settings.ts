import type { CarrierAccount } from '../db/entities/carrier-account';
import { PAGE_SIZES, type PageSizeName } from '../domain/carrier-catalog';
import type { CarrierAccountSettings } from './port';

const isPageSize = (value: string | null): value is PageSizeName => value !== null && value in PAGE_SIZES;

/**
 * What the carrier port needs of a stored carrier account. The sandbox wants any bearer key; Packeta's adapter opens
 * the account's sealed API password for each call (src/carriers/packeta/adapter.ts).
 */
export function accountSettings(account: CarrierAccount): CarrierAccountSettings {
  return {
    carrierCode: account.carrierCode,
    accountId: account.id,
    currency: account.currency,
    country: account.sender.countryCode ?? 'CZ',
    credentials: { apiKey: account.id },
    iban: account.sender.iban ?? null,
    printerType: account.printerType === 'a6' || account.printerType === 'thermal' ? account.printerType : null,
    portalLabelSize: isPageSize(account.printerType) ? account.printerType : null,
    endpoint: account.endpoint,
    packeta:
      account.endpoint === 'packeta' && account.endpointSettings && account.apiPasswordSealed
        ? { ...account.endpointSettings, sealedApiPassword: account.apiPasswordSealed }
        : null,
  };
}

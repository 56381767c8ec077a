import type { CarrierAccount } from '../db/entities/carrier-account';
import { PAGE_SIZES, type PageSizeName } from '../domain/carrier-catalog';
import type { CarrierAccountSettings } from './port';

const isPageSize = (value: string | null): value is PageSizeName => value !== null && value in PAGE_SIZES;

/**
 * What the carrier port needs of a stored carrier account. The sandbox wants any bearer key; a production adapter
 * resolves the account's real credentials from the secret store by the account ID it is given here.
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
  };
}

import { openValue, sealValue } from '../crypto/sealed-values';
import type { ProviderHeader } from './provider-client';

/**
 * Custom provider headers often carry a credential (contract "Authentication"), so they are stored sealed
 * (`src/crypto/sealed-values.ts`), bound to the provider's ID.
 */
export function sealHeaders(key: Buffer, providerId: string, headers: readonly ProviderHeader[]): string {
  return sealValue(key, `pickup_point_provider:${providerId}`, JSON.stringify(headers));
}

/** Sealed headers that do not open: another `SETTINGS_ENCRYPTION_KEY`, or a value copied from another provider. */
export class SealedHeadersError extends Error {
  override readonly name = 'SealedHeadersError';
  constructor(readonly providerId: string) {
    super(
      `the stored headers of provider ${providerId} cannot be opened with this SETTINGS_ENCRYPTION_KEY; ` +
        'set them again with pickup-points provider update --header',
    );
  }
}

export function openHeaders(key: Buffer, providerId: string, sealed: string): ProviderHeader[] {
  const plain = openValue(key, `pickup_point_provider:${providerId}`, sealed);
  if (plain === null) throw new SealedHeadersError(providerId);
  return JSON.parse(plain) as ProviderHeader[];
}

/** How a header value is shown back: never in full; the last four characters only when it is long enough. */
export function maskHeaderValue(value: string): string {
  return value.length >= 16 ? `••••${value.slice(-4)}` : '••••';
}

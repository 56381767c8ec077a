import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { ProviderHeader } from './provider-client';

/**
 * Custom provider headers often carry a credential (contract "Authentication"), so they are stored encrypted:
 * AES-256-GCM under `SETTINGS_ENCRYPTION_KEY`, bound to the provider's ID as associated data so a sealed value
 * copied onto another provider does not open.
 */
const VERSION = 'v1';

export function sealHeaders(key: Buffer, providerId: string, headers: readonly ProviderHeader[]): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(`pickup_point_provider:${providerId}`));
  const sealed = Buffer.concat([cipher.update(JSON.stringify(headers), 'utf8'), cipher.final()]);
  return [VERSION, iv.toString('base64'), cipher.getAuthTag().toString('base64'), sealed.toString('base64')].join(':');
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
  const [version, iv, tag, data] = sealed.split(':');
  if (version !== VERSION || !iv || !tag || data === undefined) throw new SealedHeadersError(providerId);
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64'));
    decipher.setAAD(Buffer.from(`pickup_point_provider:${providerId}`));
    decipher.setAuthTag(Buffer.from(tag, 'base64'));
    const plain = Buffer.concat([decipher.update(Buffer.from(data, 'base64')), decipher.final()]).toString('utf8');
    return JSON.parse(plain) as ProviderHeader[];
  } catch {
    throw new SealedHeadersError(providerId);
  }
}

/** How a header value is shown back: never in full; the last four characters only when it is long enough. */
export function maskHeaderValue(value: string): string {
  return value.length >= 16 ? `••••${value.slice(-4)}` : '••••';
}

import { randomBytes } from 'node:crypto';

export const ID_PREFIXES = {
  label: 'lbl_',
  labelCreation: 'lcr_',
  carrierAccount: 'ca_',
  apiKey: 'ak_',
  request: 'req_',
  store: 'st_',
  carrierRule: 'cr_',
  pickupPointProvider: 'pp_',
  webhookEndpoint: 'we_',
  webhookEvent: 'evt_',
  webhookDelivery: 'whd_',
} as const;

export type IdKind = keyof typeof ID_PREFIXES;

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** 24 base62 characters (~142 bits): unguessable, so an ID of another store cannot be probed. */
export function randomToken(length = 24): string {
  const bytes = randomBytes(length * 2);
  let out = '';
  for (let i = 0; i < bytes.length && out.length < length; i += 1) {
    const b = bytes[i]!;
    if (b < 248) out += ALPHABET[b % 62];
  }
  return out.length === length ? out : out + randomToken(length - out.length);
}

export function newId(kind: IdKind): string {
  return `${ID_PREFIXES[kind]}${randomToken()}`;
}

/** Whether a value is shaped like an ID of the kind (generated ones are base62; fixtures may add underscores). */
export function hasPrefix(kind: IdKind, value: string): boolean {
  return value.startsWith(ID_PREFIXES[kind]) && /^[A-Za-z0-9_]{1,64}$/.test(value.slice(ID_PREFIXES[kind].length));
}

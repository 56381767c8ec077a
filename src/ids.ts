import { randomFillSync } from 'node:crypto';

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

/**
 * Random bytes drawn from the CSPRNG 4 KiB at a time: one call per ID (a request ID on every request) cost the read
 * path about 3 % of its CPU. Each byte is used once.
 */
const pool = Buffer.alloc(4096);
let poolAt = pool.length;

function randomByte(): number {
  if (poolAt === pool.length) {
    randomFillSync(pool);
    poolAt = 0;
  }
  return pool[poolAt++]!;
}

/** 24 base62 characters (~142 bits): unguessable, so an ID of another store cannot be probed. */
export function randomToken(length = 24): string {
  let out = '';
  while (out.length < length) {
    // 248 = 4 x 62: bytes from 248 up are dropped so that every character is equally likely.
    const b = randomByte();
    if (b < 248) out += ALPHABET[b % 62];
  }
  return out;
}

export function newId(kind: IdKind): string {
  return `${ID_PREFIXES[kind]}${randomToken()}`;
}

/** What follows an ID's prefix: generated IDs are 24 base62 characters; fixtures may add underscores. */
export const ID_BODY = { pattern: '[A-Za-z0-9_]{1,64}', maxLength: 64 } as const;
const ID_BODY_PATTERN = new RegExp(`^${ID_BODY.pattern}$`);

/** Whether a value is shaped like an ID of the kind (generated ones are base62; fixtures may add underscores). */
export function hasPrefix(kind: IdKind, value: string): boolean {
  return value.startsWith(ID_PREFIXES[kind]) && ID_BODY_PATTERN.test(value.slice(ID_PREFIXES[kind].length));
}

/** The longest ID of the kind `hasPrefix` accepts. */
export const idMaxLength = (kind: IdKind) => ID_PREFIXES[kind].length + ID_BODY.maxLength;

import { createHash, timingSafeEqual } from 'node:crypto';
import { randomToken } from '../ids';

/** Fixed live prefix (spec "Authentication" 3): secret scanners and people recognise a leaked key by it. */
export const LIVE_KEY_PREFIX = 'sla_live_';
const SECRET_BODY = /^[A-Za-z0-9]{40}$/;

/** 40 base62 characters: about 238 bits of entropy, so a plain SHA-256 is a safe lookup hash. */
export function newSecret(): string {
  return `${LIVE_KEY_PREFIX}${randomToken(40)}`;
}

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

export function looksLikeSecret(value: string): boolean {
  return value.startsWith(LIVE_KEY_PREFIX) && SECRET_BODY.test(value.slice(LIVE_KEY_PREFIX.length));
}

export function hashesEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}

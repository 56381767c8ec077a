import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The webhook signature (decision 0602): `Shipping-Label-Signature: t=<unix seconds>,v1=<hex>[,v1=<hex>...]` where
 * each `v1` is HMAC-SHA256 of `<t>.<raw body>` under one of the endpoint's active secrets (newest first; two during a
 * rotation's overlap). The timestamp is signed so a captured delivery cannot be replayed later.
 */
export const SIGNATURE_HEADER = 'Shipping-Label-Signature';
export const EVENT_ID_HEADER = 'Shipping-Label-Event-Id';
export const TOPIC_HEADER = 'Shipping-Label-Topic';
export const DELIVERY_ID_HEADER = 'Shipping-Label-Delivery-Id';
/** Receivers reject signatures older than this (the verification example in docs/webhooks.md uses it). */
export const DEFAULT_TOLERANCE_SECONDS = 300;

export function signatureOf(secret: string, timestamp: number, body: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.${body}`, 'utf8').digest('hex');
}

export function signatureHeader(secrets: readonly string[], timestamp: number, body: string): string {
  if (secrets.length === 0) throw new Error('an endpoint without an active secret cannot be signed for');
  return [`t=${timestamp}`, ...secrets.map((secret) => `v1=${signatureOf(secret, timestamp, body)}`)].join(',');
}

export interface ParsedSignature {
  timestamp: number;
  signatures: string[];
}

/** Parses the header; unknown schemes (a future `v2`) are ignored, so receivers keep working when one is added. */
export function parseSignatureHeader(header: string): ParsedSignature | null {
  let timestamp: number | null = null;
  const signatures: string[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't' && /^\d{1,12}$/.test(value)) timestamp = Number(value);
    if (key === 'v1' && /^[0-9a-f]{64}$/.test(value)) signatures.push(value);
  }
  return timestamp === null || signatures.length === 0 ? null : { timestamp, signatures };
}

export type VerifyResult = { ok: true } | { ok: false; reason: 'malformed' | 'too_old' | 'no_match' };

/** What a receiver does: one of the `v1` values matches under its secret, and the timestamp is recent. */
export function verifySignature(
  header: string,
  body: string,
  secret: string,
  options: { nowSeconds: number; toleranceSeconds?: number },
): VerifyResult {
  const parsed = parseSignatureHeader(header);
  if (!parsed) return { ok: false, reason: 'malformed' };
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (Math.abs(options.nowSeconds - parsed.timestamp) > tolerance) return { ok: false, reason: 'too_old' };
  const expected = Buffer.from(signatureOf(secret, parsed.timestamp, body), 'hex');
  const match = parsed.signatures.some((candidate) => timingSafeEqual(Buffer.from(candidate, 'hex'), expected));
  return match ? { ok: true } : { ok: false, reason: 'no_match' };
}

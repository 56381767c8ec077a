import { createHmac, timingSafeEqual } from 'node:crypto';

/** The header a delivery is signed in: `t=<unix seconds>,v1=<hex>[,v1=<hex>]` (docs/webhooks.md). */
export const WEBHOOK_SIGNATURE_HEADER = 'Shipping-Label-Signature';

export interface VerifyWebhookOptions {
  /** The `Shipping-Label-Signature` header as received. */
  header: string | null | undefined;
  /** The raw body, exactly as received: parse it only after it verified. */
  body: string | Uint8Array;
  /** The endpoint's `whsec_...` secret. */
  secret: string;
  /** Older (or newer) signatures are refused (default 300 s): a captured delivery cannot be replayed later. */
  toleranceSeconds?: number;
  /** The time to check against, in Unix seconds (default: now). */
  nowSeconds?: number;
}

export type WebhookVerification = { ok: true } | { ok: false; reason: 'malformed' | 'too_old' | 'no_match' };

/**
 * Verifies a webhook delivery: one `v1` of the header is HMAC-SHA256 of `<t>.<raw body>` under the secret (two `v1`
 * values arrive during a secret rotation's overlap), and `t` is within the tolerance. Compared in constant time.
 */
export function verifyWebhookSignature(options: VerifyWebhookOptions): WebhookVerification {
  let timestamp: number | null = null;
  const signatures: Buffer[] = [];
  for (const part of (options.header ?? '').split(',')) {
    const eq = part.indexOf('=');
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't' && /^\d{1,12}$/.test(value)) timestamp = Number(value);
    // Other schemes (a future `v2`) are skipped, so this keeps working when one is added.
    if (key === 'v1' && /^[0-9a-f]{64}$/.test(value)) signatures.push(Buffer.from(value, 'hex'));
  }
  if (timestamp === null || signatures.length === 0) return { ok: false, reason: 'malformed' };
  const now = options.nowSeconds ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - timestamp) > (options.toleranceSeconds ?? 300)) return { ok: false, reason: 'too_old' };
  const expected = createHmac('sha256', options.secret)
    .update(`${timestamp}.`, 'utf8')
    .update(typeof options.body === 'string' ? Buffer.from(options.body, 'utf8') : options.body)
    .digest();
  return signatures.some((candidate) => timingSafeEqual(candidate, expected))
    ? { ok: true }
    : { ok: false, reason: 'no_match' };
}

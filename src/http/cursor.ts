import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { KeysetPosition } from '../db/labels-query';

interface CursorPayload {
  v: 1;
  /** [created_at in epoch seconds, label id] or null. */
  p: [number, string] | null;
  /** Hash of the store and filters the cursor was issued for. */
  f: string;
}

/** Hash binding a cursor to its store, filters and sort: reuse with other filters is refused. */
export function filterHash(storeId: string, filters: Record<string, unknown>): string {
  const canonical = JSON.stringify([
    storeId,
    Object.entries(filters)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => a.localeCompare(b)),
  ]);
  return createHash('sha256').update(canonical).digest('base64url').slice(0, 22);
}

function sign(secret: string, body: string): string {
  return createHmac('sha256', secret).update(body).digest('base64url');
}

/** Opaque to callers: base64url JSON and its HMAC. */
export function encodeCursor(secret: string, position: KeysetPosition, hash: string): string {
  const payload: CursorPayload = {
    v: 1,
    p: position ? [Math.floor(position.createdAt.getTime() / 1000), position.id] : null,
    f: hash,
  };
  const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
  return `${body}.${sign(secret, body)}`;
}

export type CursorCheck = { ok: true; position: KeysetPosition } | { ok: false; reason: 'malformed' | 'other_filters' };

export function decodeCursor(secret: string, cursor: string, expectedHash: string): CursorCheck {
  const [body, signature, extra] = cursor.split('.');
  if (!body || !signature || extra !== undefined) return { ok: false, reason: 'malformed' };
  const expected = Buffer.from(sign(secret, body));
  const given = Buffer.from(signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return { ok: false, reason: 'malformed' };
  let payload: CursorPayload;
  try {
    payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as CursorPayload;
  } catch {
    return { ok: false, reason: 'malformed' };
  }
  if (payload.v !== 1) return { ok: false, reason: 'malformed' };
  if (payload.f !== expectedHash) return { ok: false, reason: 'other_filters' };
  return { ok: true, position: payload.p ? { createdAt: new Date(payload.p[0] * 1000), id: payload.p[1] } : null };
}

import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { KeysetPosition } from '../db/labels-query';

/**
 * The position a page ended at (docs/decisions/0102, 0103): the last row's time in epoch milliseconds and its `seq`,
 * the insertion order that breaks ties within one time.
 */
interface CursorPayload {
  v: 2;
  p: [number, number] | null;
  /** Hash of the store and filters the cursor was issued for. */
  f: string;
}

/** A cursor of the first format: the row's time in epoch seconds and its ID, the tie-breaker then. */
interface CursorPayloadV1 {
  v: 1;
  p: [number, string] | null;
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
    v: 2,
    p: position ? [position.createdAt.getTime(), position.seq] : null,
    f: hash,
  };
  const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
  return `${body}.${sign(secret, body)}`;
}

export type CursorCheck = { ok: true; position: KeysetPosition } | { ok: false; reason: 'malformed' | 'other_filters' };

const isWhole = (n: unknown): n is number => typeof n === 'number' && Number.isSafeInteger(n) && n >= 0;

/**
 * A first-format cursor names a row by an ID, not by its place in insertion order: it resumes at the edge of its
 * second that no row of the page it ended can lie beyond, so nothing is skipped and rows of that one second may come
 * again (the sync feed is at-least-once anyway). `seq` starts at 1, so 0 sorts before every row of a time.
 */
function legacyPosition(p: [number, string], order: 'asc' | 'desc'): KeysetPosition {
  const second = p[0] * 1000;
  return { createdAt: new Date(order === 'asc' ? second : second + 1000), seq: 0 };
}

export function decodeCursor(secret: string, cursor: string, expectedHash: string, order: 'asc' | 'desc'): CursorCheck {
  const [body, signature, extra] = cursor.split('.');
  if (!body || !signature || extra !== undefined) return { ok: false, reason: 'malformed' };
  const expected = Buffer.from(sign(secret, body));
  const given = Buffer.from(signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return { ok: false, reason: 'malformed' };
  let payload: CursorPayload | CursorPayloadV1;
  try {
    payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as CursorPayload | CursorPayloadV1;
  } catch {
    return { ok: false, reason: 'malformed' };
  }
  if (payload.v !== 1 && payload.v !== 2) return { ok: false, reason: 'malformed' };
  if (payload.f !== expectedHash) return { ok: false, reason: 'other_filters' };
  if (payload.p === null) return { ok: true, position: null };
  if (payload.v === 1) {
    if (!isWhole(payload.p[0]) || typeof payload.p[1] !== 'string') return { ok: false, reason: 'malformed' };
    return { ok: true, position: legacyPosition(payload.p, order) };
  }
  if (!isWhole(payload.p[0]) || !isWhole(payload.p[1])) return { ok: false, reason: 'malformed' };
  return { ok: true, position: { createdAt: new Date(payload.p[0]), seq: payload.p[1] } };
}

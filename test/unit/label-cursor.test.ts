import { createHmac } from 'node:crypto';
import { decodeCursor, encodeCursor, filterHash } from '../../src/http/cursor';

const SECRET = 'unit-test-cursor-secret';
const position = { createdAt: new Date('2026-10-01T12:00:00.250Z'), seq: 4711 };

describe('list cursor', () => {
  const hash = filterHash('st_1', { sort: '-created_at', status: 'ready' });

  it('round-trips a position (time to the millisecond and insertion order) for the same store and filters', () => {
    expect(decodeCursor(SECRET, encodeCursor(SECRET, position, hash), hash, 'desc')).toEqual({ ok: true, position });
    expect(decodeCursor(SECRET, encodeCursor(SECRET, null, hash), hash, 'asc')).toEqual({ ok: true, position: null });
  });

  it('binds the cursor to store and filters, whatever their key order; undefined filters do not count', () => {
    expect(filterHash('st_1', { status: 'ready', sort: '-created_at', direction: undefined })).toBe(hash);
    expect(filterHash('st_2', { sort: '-created_at', status: 'ready' })).not.toBe(hash);
    expect(filterHash('st_1', { sort: '-created_at', status: 'failed' })).not.toBe(hash);
    const cursor = encodeCursor(SECRET, position, hash);
    expect(decodeCursor(SECRET, cursor, filterHash('st_1', { sort: 'created_at', status: 'ready' }), 'asc')).toEqual({
      ok: false,
      reason: 'other_filters',
    });
  });

  it.each([
    ['another secret', (c: string) => c, 'another-secret-value'],
    ['a changed signature', (c: string) => `${c.slice(0, -2)}xx`, SECRET],
    ['a changed body', (c: string) => `x${c}`, SECRET],
    ['no signature', (c: string) => c.split('.')[0]!, SECRET],
    ['an extra part', (c: string) => `${c}.x`, SECRET],
    ['garbage', () => 'garbage', SECRET],
  ])('refuses %s', (_name, alter, secret) => {
    const cursor = alter(encodeCursor(SECRET, position, hash));
    expect(decodeCursor(secret, cursor, hash, 'desc')).toEqual({ ok: false, reason: 'malformed' });
  });

  /** A cursor signed with the secret, whatever it holds (as an older release wrote them, or malformed ones). */
  const signed = (payload: unknown) => {
    const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
    return `${body}.${createHmac('sha256', SECRET).update(body).digest('base64url')}`;
  };

  it('refuses a signed cursor whose position is not a time and a sequence number', () => {
    for (const p of [['x', 1], [1, 'lbl_1'], [-1, 1], [1.5, 1], [1]]) {
      expect(decodeCursor(SECRET, signed({ v: 2, p, f: hash }), hash, 'desc')).toEqual({
        ok: false,
        reason: 'malformed',
      });
    }
    expect(decodeCursor(SECRET, signed({ v: 3, p: null, f: hash }), hash, 'desc')).toEqual({
      ok: false,
      reason: 'malformed',
    });
  });

  it('resumes a first-format cursor ([seconds, id]) at the edge of its second: nothing skipped', () => {
    const v1 = signed({ v: 1, p: [Date.parse('2026-10-01T12:00:00Z') / 1000, 'lbl_abc'], f: hash });
    // Newest first: everything of that second and older; oldest first: everything of that second and newer.
    expect(decodeCursor(SECRET, v1, hash, 'desc')).toEqual({
      ok: true,
      position: { createdAt: new Date('2026-10-01T12:00:01Z'), seq: 0 },
    });
    expect(decodeCursor(SECRET, v1, hash, 'asc')).toEqual({
      ok: true,
      position: { createdAt: new Date('2026-10-01T12:00:00Z'), seq: 0 },
    });
    expect(decodeCursor(SECRET, signed({ v: 1, p: null, f: hash }), hash, 'asc')).toEqual({ ok: true, position: null });
  });
});

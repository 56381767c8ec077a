import { decodeCursor, encodeCursor, filterHash } from '../../src/http/cursor';

const SECRET = 'unit-test-cursor-secret';
const position = { createdAt: new Date('2026-10-01T12:00:00Z'), id: 'lbl_abc' };

describe('label list cursor', () => {
  const hash = filterHash('st_1', { sort: '-created_at', status: 'ready' });

  it('round-trips a position for the same store and filters', () => {
    expect(decodeCursor(SECRET, encodeCursor(SECRET, position, hash), hash)).toEqual({ ok: true, position });
    expect(decodeCursor(SECRET, encodeCursor(SECRET, null, hash), hash)).toEqual({ ok: true, position: null });
  });

  it('binds the cursor to store and filters, whatever their key order; undefined filters do not count', () => {
    expect(filterHash('st_1', { status: 'ready', sort: '-created_at', direction: undefined })).toBe(hash);
    expect(filterHash('st_2', { sort: '-created_at', status: 'ready' })).not.toBe(hash);
    expect(filterHash('st_1', { sort: '-created_at', status: 'failed' })).not.toBe(hash);
    const cursor = encodeCursor(SECRET, position, hash);
    expect(decodeCursor(SECRET, cursor, filterHash('st_1', { sort: 'created_at', status: 'ready' }))).toEqual({
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
    expect(decodeCursor(secret, cursor, hash)).toEqual({ ok: false, reason: 'malformed' });
  });
});

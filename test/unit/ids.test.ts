import { randomToken } from '../../src/ids';

describe('randomToken', () => {
  it('gives the asked length in base62, across refills of its pool of random bytes', () => {
    // 2,000 tokens of 40 draw over 80,000 bytes: the 4 KiB pool is refilled many times.
    const tokens = Array.from({ length: 2_000 }, () => randomToken(40));
    for (const token of tokens) expect(token).toMatch(/^[0-9A-Za-z]{40}$/);
    expect(new Set(tokens).size).toBe(tokens.length);
    expect(randomToken()).toHaveLength(24);
    expect(randomToken(1)).toMatch(/^[0-9A-Za-z]$/);
  });

  it('uses every character about equally often (no modulo bias)', () => {
    const counts = new Map<string, number>();
    const text = Array.from({ length: 5_000 }, () => randomToken(62)).join('');
    for (const char of text) counts.set(char, (counts.get(char) ?? 0) + 1);
    expect(counts.size).toBe(62);
    // 310,000 characters: 5,000 expected each; a biased character (the first 8 with `% 62` over 0..255) would be at
    // about 6,200.
    for (const count of counts.values()) expect(Math.abs(count - 5_000)).toBeLessThan(500);
  });
});

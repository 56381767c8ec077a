import { execFileSync } from 'node:child_process';
import { YEAR_AHEAD_MS } from '../helpers/year-ahead-environment';

// The unit project's environment (test/helpers/year-ahead-environment.ts, decision 1151) moves Date, and only Date, a
// year ahead. The real time comes from what it does not move: performance's origin and a Node of its own.
const DAY_MS = 86_400_000;
const realNow = (): number => performance.timeOrigin + performance.now();
const childNow = (): number =>
  Number(execFileSync(process.execPath, ['-e', 'process.stdout.write(String(Date.now()))'], { encoding: 'utf8' }));

describe('the unit project runs with Date a year ahead', () => {
  it('Date.now(), new Date() and Date() read the clock 365 days ahead of the real one', () => {
    const real = realNow();
    for (const now of [Date.now(), new Date().getTime(), Date.parse(Date())]) {
      expect((now - real) / DAY_MS).toBeCloseTo(365, 2);
    }
    expect(Math.abs((Date.now() - childNow()) / DAY_MS - 365)).toBeLessThan(0.01);
  });

  it("fails a test that pins today's real date", () => {
    const today = new Date(realNow()).toISOString().slice(0, 10);
    // What a test taking "now" from a fixed date asserts: true on the day it was written, under the real clock only.
    const pinnedToday = (): void => expect(new Date().toISOString().slice(0, 10)).toBe(today);
    expect(pinnedToday).toThrow();
    expect(new Date(realNow() + YEAR_AHEAD_MS).toISOString().slice(0, 10)).toBe(new Date().toISOString().slice(0, 10));
  });

  it('keeps ticking: Date moves on with the real clock', () => {
    const before = Date.now();
    const spinUntil = performance.now() + 20;
    while (performance.now() < spinUntil);
    expect(Date.now() - before).toBeGreaterThanOrEqual(19);
  });

  it('parses and builds dates as the real Date does, and they are its instances', () => {
    const parsed = new Date('2026-11-27T10:20:30Z');
    expect(parsed.getTime()).toBe(1_795_774_830_000);
    expect(new Date(0).toISOString()).toBe('1970-01-01T00:00:00.000Z');
    expect(new Date(2026, 0, 2).getDate()).toBe(2);
    expect(Date.UTC(2026, 10, 27)).toBe(1_795_737_600_000);
    expect(parsed).toBeInstanceOf(Date);
    expect(Object.prototype.toString.call(new Date())).toBe('[object Date]');
    expect(typeof Date()).toBe('string');
  });

  it('moves nothing but Date: timers, performance and process.hrtime keep the real clock', async () => {
    const realBefore = realNow();
    const hrBefore = process.hrtime.bigint();
    await new Promise((resolve) => setTimeout(resolve, 30));
    const hrElapsedMs = Number(process.hrtime.bigint() - hrBefore) / 1e6;
    expect(hrElapsedMs).toBeGreaterThanOrEqual(29);
    expect(Math.abs(realNow() - realBefore - hrElapsedMs)).toBeLessThan(50);
    expect(Math.abs(realNow() - childNow())).toBeLessThan(DAY_MS / 24);
  });

  it('jest.useFakeTimers() starts from the moved clock and useRealTimers() gives the moved Date back', () => {
    // jest's fake timers fake performance too: the real time is read before.
    const real = realNow();
    jest.useFakeTimers();
    try {
      expect((Date.now() - real) / DAY_MS).toBeCloseTo(365, 2);
      const frozen = Date.now();
      jest.advanceTimersByTime(1_000);
      expect(Date.now()).toBe(frozen + 1_000);
    } finally {
      jest.useRealTimers();
    }
    expect((Date.now() - realNow()) / DAY_MS).toBeCloseTo(365, 2);
  });
});

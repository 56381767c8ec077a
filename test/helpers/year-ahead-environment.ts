import type { EnvironmentContext, JestEnvironmentConfig } from '@jest/environment';
import type { Config } from '@jest/types';
import NodeEnvironment from 'jest-environment-node';

/**
 * The unit project's test environment: jest's node environment with `Date` a year ahead, so a test that takes "now"
 * from a fixed date instead of the clock fails today, not on a later day (decisions 0034 and 1151). Only `Date` moves:
 * timers, `performance`, `process.hrtime` and everything outside the test file's context (Node's own modules, worker
 * threads, child processes, PostgreSQL) keep the real clock.
 */
export const YEAR_AHEAD_MS = 365 * 24 * 60 * 60 * 1000;

type DateConstructor = typeof Date;

/**
 * A `Date` that reads the clock `offsetMs` ahead and is otherwise `RealDate`: the same prototype (so `instanceof`,
 * methods and dates made elsewhere in the context agree), the same parsing of strings and numbers, `Date.parse` and
 * `Date.UTC`; only `new Date()`, `Date()` and `Date.now()` move.
 */
export function dateAhead(RealDate: DateConstructor, offsetMs: number): DateConstructor {
  const now = (): number => RealDate.now() + offsetMs;
  function AheadDate(this: unknown, ...args: unknown[]): Date | string {
    // Called without `new`, Date ignores its arguments and returns the current time as a string.
    if (!new.target) return new RealDate(now()).toString();
    const value = args.length === 0 ? [now()] : args;
    return Reflect.construct(RealDate, value, new.target) as Date;
  }
  Object.setPrototypeOf(AheadDate, RealDate);
  Object.defineProperty(AheadDate, 'prototype', { value: RealDate.prototype, writable: false });
  Object.defineProperty(AheadDate, 'name', { value: 'Date' });
  Object.defineProperty(AheadDate, 'length', { value: 7 });
  Object.defineProperty(AheadDate, 'now', { value: now, writable: true, configurable: true });
  return AheadDate as unknown as DateConstructor;
}

export default class YearAheadEnvironment extends NodeEnvironment {
  constructor(config: JestEnvironmentConfig, context: EnvironmentContext) {
    super(config, context);
    const RealDate = this.global.Date;
    this.global.Date = dateAhead(RealDate, YEAR_AHEAD_MS);
    // `jest.useFakeTimers()` starts its fake clock at jest's own (real) `Date.now()` unless told `now`: from the moved
    // clock instead, so a test with fake timers stays a year ahead too; `jest.useRealTimers()` restores this `Date`.
    const modern = this.fakeTimersModern;
    if (modern) {
      const useFakeTimers = modern.useFakeTimers.bind(modern);
      modern.useFakeTimers = (options?: Config.FakeTimersConfig) =>
        useFakeTimers({ ...options, now: options?.now ?? RealDate.now() + YEAR_AHEAD_MS });
      modern.getRealSystemTime = () => RealDate.now() + YEAR_AHEAD_MS;
    }
  }
}

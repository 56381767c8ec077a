import {
  CarrierRejectedError,
  CarrierTimeoutError,
  CarrierUnavailableError,
  DocumentNotSupportedError,
  ImportRejectedError,
  LabelNotReissuableError,
  type CarrierPort,
} from '../carriers/port';
import {
  PlatformAccessError,
  PlatformRequestError,
  PlatformAccessLostError,
  PlatformUnavailableError,
  type StorePlatformPort,
} from '../platform/port';
import type { CallMeter } from './call-meter';

/**
 * Decorators that time every call of a port and count it by outcome (docs/decisions/0900-port-and-state-metrics.md).
 * They wrap whatever adapter `composeAdapters` picked, so a new adapter is measured without code of its own; the
 * operation label is the port method's name (a closed set).
 */

/** A closed set: `ok`, or what the port's documented errors mean; anything else is `error`. */
export function carrierOutcome(error: unknown): string {
  if (error instanceof CarrierRejectedError) return 'rejected';
  if (error instanceof CarrierTimeoutError) return 'timeout';
  if (error instanceof CarrierUnavailableError) return error.reason === 'timeout' ? 'timeout' : 'unavailable';
  if (
    error instanceof ImportRejectedError ||
    error instanceof LabelNotReissuableError ||
    error instanceof DocumentNotSupportedError
  )
    return 'refused';
  return 'error';
}

export function platformOutcome(error: unknown): string {
  if (error instanceof PlatformAccessError) return 'access_denied';
  if (error instanceof PlatformAccessLostError) return 'access_lost';
  if (error instanceof PlatformUnavailableError) return 'unavailable';
  if (error instanceof PlatformRequestError) return 'refused';
  return 'error';
}

/**
 * The port with each method timed: `record(operation, outcome, seconds)` once per call, when it settles. Properties
 * that are not functions, and the port's identity checks (`hasPickupNetwork`), pass through untouched.
 */
export function timedPort<T extends object>(
  port: T,
  classify: (error: unknown) => string,
  record: (operation: string, outcome: string, seconds: number) => void,
): T {
  const wrapped = new Map<PropertyKey, unknown>();
  return new Proxy(port, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function' || typeof property !== 'string') return value;
      let timed = wrapped.get(property);
      if (!timed) {
        const method = value as (...args: unknown[]) => unknown;
        timed = (...args: unknown[]) => {
          const started = process.hrtime.bigint();
          const settle = (outcome: string) =>
            record(property, outcome, Number(process.hrtime.bigint() - started) / 1e9);
          let result: unknown;
          try {
            result = method.apply(target, args);
          } catch (error) {
            settle(classify(error));
            throw error;
          }
          // Port methods answer promises; a plain value (a helper the adapter exposes) is passed back as it is.
          if (!(result instanceof Promise)) return result;
          return result.then(
            (value: unknown) => {
              settle('ok');
              return value;
            },
            (error: unknown) => {
              settle(classify(error));
              throw error;
            },
          );
        };
        wrapped.set(property, timed);
      }
      return timed;
    },
  });
}

export function measuredCarrier<T extends CarrierPort>(carrier: string, port: T, meter: CallMeter): T {
  return timedPort(port, carrierOutcome, (operation, outcome, seconds) =>
    meter.carrierCall({ carrier, operation, outcome }, seconds),
  );
}

export function measuredPlatform<T extends StorePlatformPort>(port: T, meter: CallMeter): T {
  return timedPort(port, platformOutcome, (operation, outcome, seconds) =>
    meter.platformCall({ operation, outcome }, seconds),
  );
}

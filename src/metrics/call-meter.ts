import type { MetricMeter } from '@temporalio/common';
import { Counter, Histogram, type Registry } from 'prom-client';

/**
 * Where the timings of outbound port calls go: the API's prom-client registry or, in the worker, the Temporal SDK's
 * meter (its Prometheus endpoint). One interface, so the port decorators (`port-metrics.ts`) need not know which.
 */
export interface CallMeter {
  carrierCall(call: { carrier: string; operation: string; outcome: string }, seconds: number): void;
  platformCall(call: { operation: string; outcome: string }, seconds: number): void;
  /** An answer Shopify served in another API version than the pinned one (decision 0706). */
  shopifyVersionServed(served: string): void;
  /** A field the platform refused for a scope the installation lacks or protected customer data (`access`). */
  platformAccessDenied(access: string): void;
  /**
   * What a custom pickup point provider's answer held that is not shown: `item` (a point without a valid required
   * field, or a repeated ID) or the optional field left out of a kept point (`place`, `pin`, `openingHours`).
   */
  pickupProviderDropped(part: string, count: number): void;
}

export const SHOPIFY_VERSION_METRIC = 'shipping_label_shopify_version_mismatch_total';
export const ACCESS_DENIED_METRIC = 'shipping_label_platform_access_denied_total';
const VERSION_HELP =
  'Answers Shopify served in another Admin API version than SHOPIFY_API_VERSION, by the version served';
const ACCESS_HELP = 'Platform calls refused for a missing access scope or protected customer data, by what they need';
export const PROVIDER_DROPPED_METRIC = 'shipping_label_pickup_provider_dropped_total';
const PROVIDER_DROPPED_HELP =
  "What custom pickup point providers' answers held that is not shown: whole items, or an optional field of a kept point";

/** The scopes a refusal names (`read_locations`, ...), or what it needs when it names none: a closed, small set. */
export function accessLabel(access: string): string {
  const scopes = [...access.matchAll(/`(\w+)` access scope/g)].map((m) => m[1]!);
  return scopes.length > 0 ? scopes.join(' or ') : access;
}

export const CARRIER_CALL_METRIC = 'shipping_label_carrier_call_duration_seconds';
export const PLATFORM_CALL_METRIC = 'shipping_label_platform_call_duration_seconds';

/** Seconds; a carrier call is given up on after CARRIER_TIMEOUT (30 s by default), the platform after 10 s. */
export const CALL_BUCKETS = [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** The worker's Runtime option: the SDK's default buckets are in milliseconds, ours in seconds. */
export const CALL_BUCKET_OVERRIDES: Record<string, number[]> = {
  [CARRIER_CALL_METRIC]: CALL_BUCKETS,
  [PLATFORM_CALL_METRIC]: CALL_BUCKETS,
};

const CARRIER_HELP = 'Carrier calls by carrier, port operation and outcome, timed';
const PLATFORM_HELP = 'Store platform calls by port operation and outcome, timed';

export function promCallMeter(registry: Registry): CallMeter {
  const carrier = new Histogram({
    name: CARRIER_CALL_METRIC,
    help: CARRIER_HELP,
    labelNames: ['carrier', 'operation', 'outcome'] as const,
    buckets: CALL_BUCKETS,
    registers: [registry],
  });
  const platform = new Histogram({
    name: PLATFORM_CALL_METRIC,
    help: PLATFORM_HELP,
    labelNames: ['operation', 'outcome'] as const,
    buckets: CALL_BUCKETS,
    registers: [registry],
  });
  const version = new Counter({
    name: SHOPIFY_VERSION_METRIC,
    help: VERSION_HELP,
    labelNames: ['served'] as const,
    registers: [registry],
  });
  const denied = new Counter({
    name: ACCESS_DENIED_METRIC,
    help: ACCESS_HELP,
    labelNames: ['access'] as const,
    registers: [registry],
  });
  const providerDropped = new Counter({
    name: PROVIDER_DROPPED_METRIC,
    help: PROVIDER_DROPPED_HELP,
    labelNames: ['part'] as const,
    registers: [registry],
  });
  return {
    carrierCall: (labels, seconds) => carrier.observe(labels, seconds),
    platformCall: (labels, seconds) => platform.observe(labels, seconds),
    shopifyVersionServed: (served) => version.inc({ served }),
    platformAccessDenied: (access) => denied.inc({ access: accessLabel(access) }),
    pickupProviderDropped: (part, count) => providerDropped.inc({ part }, count),
  };
}

export function temporalCallMeter(meter: MetricMeter): CallMeter {
  const carrier = meter.createHistogram(CARRIER_CALL_METRIC, 'float', '', CARRIER_HELP);
  const platform = meter.createHistogram(PLATFORM_CALL_METRIC, 'float', '', PLATFORM_HELP);
  const version = meter.createCounter(SHOPIFY_VERSION_METRIC, '', VERSION_HELP);
  const denied = meter.createCounter(ACCESS_DENIED_METRIC, '', ACCESS_HELP);
  const providerDropped = meter.createCounter(PROVIDER_DROPPED_METRIC, '', PROVIDER_DROPPED_HELP);
  return {
    carrierCall: (labels, seconds) => carrier.record(seconds, labels),
    platformCall: (labels, seconds) => platform.record(seconds, labels),
    shopifyVersionServed: (served) => version.add(1, { served }),
    platformAccessDenied: (access) => denied.add(1, { access: accessLabel(access) }),
    pickupProviderDropped: (part, count) => providerDropped.add(count, { part }),
  };
}

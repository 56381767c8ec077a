import { z } from 'zod';
import type { CarrierProtectionSettings } from '../domain/carrier-protection';
import { duration } from './core';

/**
 * A label creation's durations and limits, and carrier protection: the API admits and answers creations by them and
 * the worker runs them by them, so both processes read this part.
 */
export const creationShape = {
  /** One HTTP call to a carrier; past it the outcome of a create is unclear. */
  CARRIER_TIMEOUT: duration('10s'),
  // Label creation (spec "Label creation `status`" and "Limits"); tests shorten them.
  CREATION_NOT_STARTED_AFTER: duration('5m'),
  CREATION_KEY_TTL: duration('30d'),
  /**
   * Creations in flight (accepted, not yet out of `processing`) across every store, counted exactly in PostgreSQL;
   * beyond it `POST /labels` answers 503 `temporarily_unavailable` with `Retry-After: 30` (decision 0407).
   */
  CREATION_QUEUE_PLATFORM_MAX: z.coerce.number().int().positive().default(1000),
  CREATION_LOCK_RETRY: duration('3s'),
  CREATION_LOCK_STALE_AFTER: duration('15m'),
  CREATION_ADOPTION_POLL: duration('2s'),
  CARRIER_PENDING_MAX: duration('10m'),
  CARRIER_POLL: duration('1s'),
  RESOLVE_ALLOWED_AFTER: duration('15m'),
  /** While a creation needs attention: first and longest wait between looks at the carrier (doubling). */
  ATTENTION_RETRY_INITIAL: duration('1m'),
  ATTENTION_RETRY_MAX: duration('30m'),
  /** `needs_attention` without resolve this long: abandoned (spec: 24 hours). */
  CREATION_ABANDON_AFTER: duration('24h'),
  /** An abandoned creation's record is deleted this long after it was created (spec: 90 days). */
  ABANDONED_CREATION_DELETE_AFTER: duration('90d'),
  // Carrier protection (spec "Errors": `carrier_unavailable`, `repeated_rejection`; docs/decisions/0500-0502).
  /** Unclear results in a row on one carrier account that open its circuit. */
  CARRIER_CIRCUIT_THRESHOLD: z.coerce.number().int().positive().default(5),
  /** How long an open circuit fails new creations without calling the carrier. */
  CARRIER_CIRCUIT_OPEN: duration('5m'),
  /** Refusals on one account within the window that stop its creations (`account_rejecting`). */
  CARRIER_ACCOUNT_REJECTING_LIMIT: z.coerce.number().int().positive().default(5),
  CARRIER_ACCOUNT_REJECTING_WINDOW: duration('10m'),
  /** Refusals of the same shipment within the window that stop it (`repeated_rejection`, scope `fingerprint`). */
  REPEATED_REJECTION_LIMIT: z.coerce.number().int().positive().default(3),
  REPEATED_REJECTION_WINDOW: duration('60m'),
  /** Refusals per fulfillment order within the window (`repeated_rejection`, scope `fulfillment_order_daily`). */
  FULFILLMENT_ORDER_REFUSAL_LIMIT: z.coerce.number().int().positive().default(30),
  FULFILLMENT_ORDER_REFUSAL_WINDOW: duration('24h'),
};

type CreationEnv = z.infer<z.ZodObject<typeof creationShape>>;

export type CreationConfig = Readonly<{
  carrierTimeoutMs: number;
  creation: Readonly<{
    notStartedMs: number;
    keyTtlMs: number;
    /** CREATION_QUEUE_PLATFORM_MAX: the platform-wide creation queue's cap. */
    platformQueueMax: number;
    lockRetryMs: number;
    lockStaleMs: number;
    adoptionPollMs: number;
    carrierPendingMaxMs: number;
    carrierPollMs: number;
    resolveAllowedAfterMs: number;
    attentionRetryInitialMs: number;
    attentionRetryMaxMs: number;
    abandonAfterMs: number;
    abandonedDeleteAfterMs: number;
  }>;
  carrierProtection: Readonly<CarrierProtectionSettings>;
}>;

export function creationSettings(e: CreationEnv): CreationConfig {
  return {
    carrierTimeoutMs: e.CARRIER_TIMEOUT,
    creation: Object.freeze({
      notStartedMs: e.CREATION_NOT_STARTED_AFTER,
      keyTtlMs: e.CREATION_KEY_TTL,
      platformQueueMax: e.CREATION_QUEUE_PLATFORM_MAX,
      lockRetryMs: e.CREATION_LOCK_RETRY,
      lockStaleMs: e.CREATION_LOCK_STALE_AFTER,
      adoptionPollMs: e.CREATION_ADOPTION_POLL,
      carrierPendingMaxMs: e.CARRIER_PENDING_MAX,
      carrierPollMs: e.CARRIER_POLL,
      resolveAllowedAfterMs: e.RESOLVE_ALLOWED_AFTER,
      attentionRetryInitialMs: e.ATTENTION_RETRY_INITIAL,
      attentionRetryMaxMs: e.ATTENTION_RETRY_MAX,
      abandonAfterMs: e.CREATION_ABANDON_AFTER,
      abandonedDeleteAfterMs: e.ABANDONED_CREATION_DELETE_AFTER,
    }),
    carrierProtection: Object.freeze({
      circuitThreshold: e.CARRIER_CIRCUIT_THRESHOLD,
      circuitOpenMs: e.CARRIER_CIRCUIT_OPEN,
      accountRejectingLimit: e.CARRIER_ACCOUNT_REJECTING_LIMIT,
      accountRejectingWindowMs: e.CARRIER_ACCOUNT_REJECTING_WINDOW,
      fingerprintLimit: e.REPEATED_REJECTION_LIMIT,
      fingerprintWindowMs: e.REPEATED_REJECTION_WINDOW,
      fulfillmentOrderDailyLimit: e.FULFILLMENT_ORDER_REFUSAL_LIMIT,
      fulfillmentOrderWindowMs: e.FULFILLMENT_ORDER_REFUSAL_WINDOW,
    }),
  };
}

import { proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { Activities } from '../../activities';
import type { CreationDurations } from './contract';

/**
 * The creation's activities, grouped by their timeouts and retries. Short idempotent writes of the record are local
 * activities (no task-queue round trip, decision 0018); calls to the carrier and the platform are regular ones:
 * `bounded` for the carrier's status and PDF and the platform's side effects (a few tries), the carrier call itself apart.
 */
export const local = proxyLocalActivities<Activities>({
  startToCloseTimeout: '15 seconds',
  retry: { initialInterval: '200 milliseconds', backoffCoefficient: 2, maximumInterval: '5 seconds' },
});

const BOUNDED = {
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '10 seconds', maximumAttempts: 6 },
} as const;

export const bounded = proxyActivities<Activities>(BOUNDED);

/**
 * The same, with the one-line summary the Web UI shows on the activity (`summary`: user metadata, not part of the
 * command sequence a replay compares).
 */
export function boundedWith(summary: string) {
  return proxyActivities<Activities>({ ...BOUNDED, summary });
}

/** The carrier call's options; `extraMs` for work the same activity does before it (the first step's prepare). */
function carrierCallOptions(d: CreationDurations, summary: string | undefined, extraMs = 0) {
  return {
    ...(summary ? { summary } : {}),
    // A create, a lookup after an unclear answer, and a print for carrier D: three carrier calls at most.
    startToCloseTimeout: 3 * d.carrierTimeoutMs + 10_000 + extraMs,
    // A lost worker is noticed within seconds; the retry only looks the shipment up (never creates again).
    heartbeatTimeout: '5 seconds',
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '10 seconds', maximumAttempts: 10 },
  };
}

export function carrierActivities(d: CreationDurations, summary?: string) {
  return proxyActivities<Activities>(carrierCallOptions(d, summary));
}

/**
 * The creation's first step, prepare and the carrier call in one (decision 1010): the carrier call's options, with
 * time for the prepare step's platform reads. A retry looks the shipment up when the call was marked sent, and prepares
 * afresh when it was not.
 */
export function prepareAndSendActivity(d: CreationDurations, summary?: string) {
  return proxyActivities<Activities>(carrierCallOptions(d, summary, 30_000)).prepareAndSendToCarrier;
}

/** One look at the carrier while the creation needs attention: a failed look is simply retried at the next one. */
export function recoverActivity(d: CreationDurations, summary?: string) {
  return proxyActivities<Activities>({
    ...(summary ? { summary } : {}),
    // A lookup, a status call and a label download at most.
    startToCloseTimeout: 3 * d.carrierTimeoutMs + 10_000,
    retry: { maximumAttempts: 1 },
  }).recoverShipment;
}

/**
 * `preparing`, the decision and, to create, the locks (all or none, recorded with the decision): one local activity
 * (docs/decisions/0023-decide-and-lock-in-one-step.md), so the carrier call's scheduling follows in the same workflow
 * task (a regular activity's task round trip is the largest share of a creation's time, decision 0018).
 */
export function prepareActivity(remainingMs: number, summary?: string) {
  return proxyLocalActivities<Activities>({
    ...(summary ? { summary } : {}),
    startToCloseTimeout: '30 seconds',
    // Retried until the creation's deadline, then the creation did not start; a store platform that stays down fails
    // it sooner, with `shopify_unavailable` (the activity counts its reads, docs/decisions/0027).
    scheduleToCloseTimeout: Math.max(1000, remainingMs),
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '15 seconds' },
  }).prepareAndLockCreation;
}

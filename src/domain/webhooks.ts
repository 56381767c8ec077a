/**
 * Webhooks (spec "Events"; decisions 0600-0609): the topics a store can subscribe to, and the retry schedule of a
 * delivery. Pure: the delivery workflow computes its timers with these.
 */

export const WEBHOOK_TOPICS = ['label_creation.updated'] as const;
export type WebhookTopic = (typeof WEBHOOK_TOPICS)[number];

export function isWebhookTopic(value: string): value is WebhookTopic {
  return (WEBHOOK_TOPICS as readonly string[]).includes(value);
}

export interface WebhookRetrySchedule {
  /** Wait after the first failed attempt; doubles after each further one. */
  initialIntervalMs: number;
  /** The cap of one wait. */
  maximumIntervalMs: number;
  /** No attempt starts later than this after the first one (24 hours). */
  windowMs: number;
}

/**
 * How long to wait after failed attempt number `attempt` (1-based) that ended `elapsedMs` after the first attempt
 * started: `initial * 2^(attempt-1)`, capped at `maximum`, and null when the next attempt would start past the window
 * (the delivery has failed for good). An attempt scheduled inside the window still runs, however long it then takes.
 */
export function webhookRetryDelayMs(schedule: WebhookRetrySchedule, attempt: number, elapsedMs: number): number | null {
  if (!Number.isInteger(attempt) || attempt < 1) throw new RangeError('attempt counts from 1');
  // 2^30 already exceeds any cap; the exponent is bounded so the product stays finite.
  const exponential = schedule.initialIntervalMs * 2 ** Math.min(attempt - 1, 30);
  const delay = Math.min(exponential, schedule.maximumIntervalMs);
  return elapsedMs + delay > schedule.windowMs ? null : delay;
}

/** Whether an answer's status counts as delivered: any 2xx; redirects are not followed and count as failures. */
export function isDelivered(statusCode: number | null): boolean {
  return statusCode !== null && statusCode >= 200 && statusCode < 300;
}

/** The part of a receiver's answer kept in the delivery log: printable, one line, at most `max` characters. */
export function responseExcerpt(text: string, max = 200): string | null {
  const clean = text
    .replace(/\p{Cc}+/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (clean === '') return null;
  return clean.length > max ? `${clean.slice(0, max - 1)}…` : clean;
}

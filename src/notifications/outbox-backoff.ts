/** First retry after a failed send; doubles with each attempt. */
const FIRST_RETRY_MS = 60_000;
/** An outage longer than this is retried every 6 hours until SMTP is back; nothing is dropped. */
const MAX_RETRY_MS = 6 * 3_600_000;

/** How long an outbox mail waits after its `attempts`-th failed send (1 min, 2, 4, ... capped at 6 h). */
export function outboxRetryDelayMs(attempts: number): number {
  return Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** Math.max(0, attempts - 1));
}

import { retryAfterSeconds } from './errors.js';

export interface RetryOptions {
  /** Retries after the first attempt (default 3); 0 turns retrying off. */
  maxRetries?: number;
  /** A `Retry-After` longer than this (default 60 s) is not waited for: the answer is returned as it is. */
  maxDelaySeconds?: number;
}

/** Statuses the API asks to send again after `Retry-After`: rate limited, temporarily unavailable. */
const RETRIED = new Set([429, 503]);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A fetch that sends a request again when it is answered 429 or 503, after the answer's `Retry-After` (1 s without
 * one). Safe for writes too: the API refused them before doing anything, and `POST /labels` carries its
 * Idempotency-Key on every attempt.
 */
export function retryingFetch(
  inner: (request: Request) => Promise<Response>,
  options: RetryOptions = {},
): (request: Request) => Promise<Response> {
  const maxRetries = options.maxRetries ?? 3;
  const maxDelaySeconds = options.maxDelaySeconds ?? 60;
  return async (request) => {
    for (let attempt = 0; ; attempt += 1) {
      const response = await inner(attempt < maxRetries ? request.clone() : request);
      if (!RETRIED.has(response.status) || attempt >= maxRetries) return response;
      const delay = retryAfterSeconds(response.headers) ?? 1;
      if (delay > maxDelaySeconds) return response;
      await response.body?.cancel();
      await sleep(delay * 1000);
    }
  };
}

import createClient, { type Client } from 'openapi-fetch';
import type { paths } from '../generated/schema.js';
import { retryingFetch, type RetryOptions } from './retry.js';

export interface ShippingLabelClientOptions {
  /** The API base URL, ending in the version prefix: `https://api.example.com/v1`. */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <apiKey>`; the machine-readable description needs none. */
  apiKey?: string;
  /** A `Service-Version` to render answers in; without it the version pinned on the key applies. */
  serviceVersion?: string;
  /** A fetch of your own (proxies, logging, tests). */
  fetch?: (request: Request) => Promise<Response>;
  /** Requests answered 429 or 503 are sent again after their `Retry-After` (default: 3 retries, at most 60 s each). */
  retry?: RetryOptions;
}

export type ShippingLabelClient = Client<paths>;

/**
 * A typed client of the Shipping Label API: paths, parameters, bodies and answers come from the OpenAPI document
 * (`client/generated/schema.d.ts`), so a call the API does not document does not compile. Answers are
 * `{ data, error, response }`: `error` holds the error body (`error.error.code`) when the status is not 2xx. Answers
 * 429 and 503 are retried after their `Retry-After` before they reach you (`retry`).
 */
export function createShippingLabelClient(options: ShippingLabelClientOptions): ShippingLabelClient {
  return createClient<paths>({
    baseUrl: options.baseUrl,
    headers: {
      ...(options.apiKey ? { Authorization: `Bearer ${options.apiKey}` } : {}),
      ...(options.serviceVersion ? { 'Service-Version': options.serviceVersion } : {}),
    },
    fetch: retryingFetch(options.fetch ?? ((request) => globalThis.fetch(request)), options.retry),
  });
}

import type { ErrorBody, ErrorCode } from './types.js';

/** A refusal of the API, thrown by the helpers (`createLabel`, the page iterators): decide on `code`, not the status. */
export class ShippingLabelApiError extends Error {
  override name = 'ShippingLabelApiError';
  readonly code: ErrorCode;
  readonly requestId: string;
  /** `Retry-After` in seconds, when the answer had one. */
  readonly retryAfterSeconds: number | null;

  constructor(
    readonly status: number,
    readonly body: ErrorBody,
    headers: Headers,
  ) {
    super(`${body.error.code}: ${body.error.message}`);
    this.code = body.error.code;
    this.requestId = body.error.request_id;
    this.retryAfterSeconds = retryAfterSeconds(headers);
  }
}

/** `Retry-After` as seconds (a number of seconds or an HTTP date), or null. */
export function retryAfterSeconds(headers: Headers, now = Date.now()): number | null {
  const value = headers.get('Retry-After');
  if (value === null) return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - now) / 1000));
}

import type { DomainError } from '../domain/errors';
import { refusedBucketHeaders } from '../limits/headers';
import { ERROR_CATALOG, withRetryPair, type ErrorCode } from '../domain/error-catalog';

export type ErrorDetails = Record<string, unknown>;

/** The one error type every layer throws for an answer the spec defines; the error middleware renders it. */
export class ApiError extends Error {
  readonly status: number;
  readonly details: ErrorDetails;
  readonly headers: Record<string, string>;

  constructor(
    readonly code: ErrorCode,
    options: { message?: string; details?: ErrorDetails; headers?: Record<string, string>; status?: number } = {},
  ) {
    const entry = ERROR_CATALOG[code];
    super(options.message ?? entry.message);
    this.name = 'ApiError';
    this.status = options.status ?? entry.status;
    this.headers = options.headers ?? {};
    this.details = code === 'internal_error' ? {} : withRetryPair(code, options.details);
  }
}

/**
 * The HTTP answer of a domain refusal: the catalog's status, `Retry-After` when the refusal names one, and on a 429
 * the refusing bucket's `X-RateLimit-*` headers (spec "Errors": `rate_limited`).
 */
export function apiErrorFromDomain(error: DomainError): ApiError {
  const headers: Record<string, string> = error.code === 'rate_limited' ? refusedBucketHeaders(error.details) : {};
  if (error.retryAfterSeconds !== undefined) headers['Retry-After'] = String(error.retryAfterSeconds);
  return new ApiError(error.code, {
    ...(error.hasMessage ? { message: error.message } : {}),
    details: error.details,
    headers,
  });
}

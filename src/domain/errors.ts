import type { ErrorCode } from '../http/error-catalog';

/**
 * A refusal the spec defines (its `error.code` and `details`), raised by domain decisions and by services that API
 * handlers and activities share. It knows nothing of HTTP: the API's error middleware maps it to the status of the
 * error catalog (src/http/api-error.ts), and activities turn it into a non-retryable Temporal failure of that type.
 */
export class DomainError extends Error {
  override readonly name = 'DomainError';
  readonly details: Record<string, unknown>;
  /** When the same request may succeed again (the HTTP edge sends it as `Retry-After`). */
  readonly retryAfterSeconds: number | undefined;
  /** False when the message is only the code: the edge then uses the catalog's message. */
  readonly hasMessage: boolean;

  constructor(
    readonly code: ErrorCode,
    options: { message?: string; details?: Record<string, unknown>; retryAfterSeconds?: number } = {},
  ) {
    super(options.message ?? code);
    this.details = options.details ?? {};
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.hasMessage = options.message !== undefined;
  }
}

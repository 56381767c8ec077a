import type { ErrorCode } from './error-catalog';
import type { Refusal } from './refusal';

/**
 * A refusal the spec defines, thrown: raised by services that API handlers and activities share. It knows nothing of
 * HTTP: the API's error middleware maps it to the status of the error catalog (src/http/api-error.ts), and activities
 * fail with its refusal as a non-retryable Temporal failure (`toFailure` in the label-creation workflow's contract).
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

  /** A decision's refusal, thrown. */
  static from(r: Refusal): DomainError {
    return new DomainError(r.code, {
      message: r.message,
      details: r.details,
      ...(r.retryAfterSeconds !== undefined ? { retryAfterSeconds: r.retryAfterSeconds } : {}),
    });
  }

  /** The refusal it carries, as data (what a workflow failure, a stored error and the error body are made of). */
  get refusal(): Refusal {
    const { code, message, details, retryAfterSeconds } = this;
    return retryAfterSeconds === undefined ? { code, message, details } : { code, message, details, retryAfterSeconds };
  }
}

import type { CreationRequest } from '../../domain/creation-request';
import { ApiError } from '../../http/api-error';
import type { AppContext } from '../../http/state';

/** A live `POST /labels` after every request check passed: what the creation needs from the HTTP edge. */
export interface LiveCreationInput {
  storeId: string;
  apiKeyId: string;
  /** `Idempotency-Key`, validated (8 to 255 characters, not `auto`). */
  idempotencyKey: string;
  /** `Prefer: wait=N`, 0 to 60 seconds (default 20). */
  waitSeconds: number;
  /** The normalized request: what idempotency compares and the decisions read. */
  request: CreationRequest;
  /** Base of absolute URLs (`Location`, `url`), without `/v1`. */
  baseUrl: string;
}

/**
 * Carries out a live creation and writes the answer (status, headers, body) on `ctx`, or throws the error answer.
 * Implemented by the label-creation workflow's API side; `createApp` takes it as a dependency.
 */
export interface LiveCreation {
  create(ctx: AppContext, input: LiveCreationInput): Promise<void>;
  /**
   * Whether `Idempotency-Key` is bound to a creation of the store: a repeat of a bound key counts as a read, not a
   * creation (spec "Limits"). Absent while nothing binds keys.
   */
  isBound?(input: { storeId: string; idempotencyKey: string }): Promise<boolean>;
}

/** Seconds the temporary answer asks clients to wait (spec `temporarily_unavailable`: creation queue full, 30). */
const UNAVAILABLE_RETRY_AFTER_SECONDS = 30;

/**
 * The live creation until the workflow lands: every live request, after all request checks, answers 503
 * `temporarily_unavailable` with `Retry-After: 30`, so nothing is created and no key is bound.
 */
export const unavailableLiveCreation: LiveCreation = {
  async create() {
    throw new ApiError('temporarily_unavailable', {
      message: 'Live label creation is not available yet; dry runs (dry_run: true) work. Retry later.',
      headers: { 'Retry-After': String(UNAVAILABLE_RETRY_AFTER_SECONDS) },
    });
  },
};

import type { CreationRequest } from '../../domain/creation-request';
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
  /** Whether the key was bound when the request's limit class was decided (`isBound`); looked up when absent. */
  keyBound?: boolean | undefined;
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

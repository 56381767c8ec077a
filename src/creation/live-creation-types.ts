import type { CreationRequest } from '../domain/creation-request';
import type { BucketState } from '../domain/rate-limits';
import type { CreationRow } from './records';

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
  /** `order_name` as the request gave it: the creation's order name until the creation has found the order. */
  orderName?: string | null | undefined;
  /** Whether the key was bound when the request's limit class was decided (`isBound`); looked up when absent. */
  keyBound?: boolean | undefined;
  /** The request's `X-Request-Id`: the workflow's start memo, which its log lines and spans name. */
  requestId?: string | undefined;
  /** Told the state of every limit the creation takes (the daily units, the write queue), for the answer's headers. */
  noteLimits?: (states: readonly BucketState[]) => void;
}

/** What a live creation ends with: its record as it is when the answer is due. The route renders it. */
export interface CreationOutcome {
  row: CreationRow;
  /** `Prefer: wait=N` as applied (`Preference-Applied`): 0 when the request could not hold its answer open. */
  waitSeconds: number;
  /** A repeat of a bound key answered with the original outcome (`Idempotency-Replayed: true`). */
  replayed: boolean;
}

/** The label-creation service the API calls; `createApp` takes it as a dependency. */
export interface LiveCreation {
  /** Carries out a live creation (or joins the running one) and returns its outcome, or throws its refusal. */
  create(input: LiveCreationInput): Promise<CreationOutcome>;
  /**
   * Whether `Idempotency-Key` is bound to a creation of the store: a repeat of a bound key counts as a read, not a
   * creation (spec "Limits"). Absent while nothing binds keys.
   */
  isBound?(input: { storeId: string; idempotencyKey: string }): Promise<boolean>;
}

import { DomainError } from '../domain/errors';
import type { CreationOutcome } from './live-creation-types';
import type { ClaimResult, CreationRow } from './records';

/** Spec `temporarily_unavailable`: write path unavailable, `Retry-After: 5`. */
export const UNAVAILABLE_RETRY_AFTER = 5;

/**
 * The answer of a request whose key was bound already, when it needs no run: a different request under the key is
 * refused (`idempotency_conflict`); a creation no longer `processing` answers at once (spec "Idempotency of POST
 * /labels"), replayed when it succeeded. Null when the request joins the run: its own claim, or a running creation.
 */
export function boundKeyAnswer(
  claim: ClaimResult,
  request: { requestHash: string; idempotencyKey: string },
  waitSeconds: number,
): CreationOutcome | null {
  if (claim.claimed) return null;
  const { row } = claim;
  if (row.request_hash !== request.requestHash) {
    throw new DomainError('idempotency_conflict', {
      message: 'This Idempotency-Key is bound to a different request; a new request needs a new key.',
      details: { idempotency_key: request.idempotencyKey, label_creation_id: row.id },
    });
  }
  if (row.status !== 'processing') return { row, waitSeconds, replayed: row.status === 'succeeded' };
  return null;
}

/** A creation whose run never started (its record is gone or still `queued`): nothing happened, nothing stays bound. */
export function neverMoved(row: CreationRow | null): boolean {
  return !row || (row.status === 'processing' && row.phase === 'queued');
}

/** The refusal of a creation whose run could not be started: nothing was created, the same request may come again. */
export function creationUnavailable(): DomainError {
  return new DomainError('temporarily_unavailable', {
    message: 'Label creation is unavailable right now; nothing was created. Send the same request again.',
    retryAfterSeconds: UNAVAILABLE_RETRY_AFTER,
  });
}

/** The answer after the run: the record as it is now (`moved`, or the claim's row when it cannot be read), never a replay. */
export function runAnswer(claimed: CreationRow, moved: CreationRow | null, waitSeconds: number): CreationOutcome {
  return { row: moved ?? claimed, waitSeconds, replayed: false };
}

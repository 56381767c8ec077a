import { type Client, ServiceError, WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import type { Orm } from '../db/orm';
import type { Logger } from '../logger';
import { DomainError } from '../domain/errors';
import { decideResolve, type ResolveOutcome } from '../domain/resolve';
import type { Refusal } from '../domain/refusal';
import { fromFailure, resolveUpdate, type ResolveInput } from '../../workflows/label-creation/contract';
import { readCreation, type CreationRow } from './records';

export interface ResolveRequest {
  storeId: string;
  creationId: string;
  apiKeyId: string;
  outcome: ResolveOutcome;
  trackingNumber: string | null;
  note: string | null;
}

/** Spec `temporarily_unavailable`: the workflow could not be asked; nothing changed. */
const UNAVAILABLE_RETRY_AFTER = 5;

const withCreation = (r: Refusal, creationId: string): DomainError =>
  DomainError.from({ ...r, details: { label_creation_id: creationId, ...r.details } });

/**
 * `POST /label-creations/{id}/resolve` (docs/decisions/0016-resolve-as-update.md): decided first over the record (a
 * refusal or a repeat answers at once, also after the workflow ended), then sent to the running creation as the
 * `resolve` update, whose validator decides again over the workflow's own state: its refusal is the answer. An
 * accepted resolve answers once the creation has moved (failed or abandoned). Returns the record as it is then.
 */
export async function resolveCreation(
  deps: { orm: Orm; temporal: Client; now: () => Date; logger: Logger },
  request: ResolveRequest,
): Promise<CreationRow | null> {
  const row = await readCreation(deps.orm.em.fork(), request.storeId, request.creationId);
  if (!row) return null;
  const decision = decideResolve(
    {
      status: row.status,
      attention: row.status === 'needs_attention' ? row.attention : null,
      resolution: row.resolution,
    },
    request.outcome,
    deps.now().getTime(),
  );
  if (decision.kind === 'refuse') throw withCreation(decision.refusal, row.id);
  if (decision.kind === 'repeat' || !row.workflow_id) return row;
  const input: ResolveInput = {
    outcome: request.outcome,
    trackingNumber: request.trackingNumber,
    note: request.note,
    resolvedBy: request.apiKeyId,
  };
  try {
    await deps.temporal.workflow.getHandle(row.workflow_id).executeUpdate(resolveUpdate, { args: [input] });
  } catch (error) {
    const refusal = refusalOf(error);
    if (refusal) throw withCreation(refusal, row.id);
    if (!(error instanceof WorkflowNotFoundError || isGone(error))) {
      deps.logger.error({ err: error, label_creation_id: row.id }, 'resolve could not reach the creation workflow');
      throw unavailable();
    }
    // The run ended between the read and the update (it obtained the label, or was resolved): the record answers.
    const moved = await readCreation(deps.orm.em.fork(), request.storeId, request.creationId);
    if (!moved || moved.status === 'needs_attention') throw unavailable();
    return resolveCreation(deps, request);
  }
  return readCreation(deps.orm.em.fork(), request.storeId, request.creationId);
}

/** The validator's (or handler's) refusal, carried as the update's failure (`toFailure`). */
function refusalOf(error: unknown): Refusal | null {
  return error instanceof WorkflowUpdateFailedError ? fromFailure(error.cause) : null;
}

/** A completed workflow takes no update: the server answers NOT_FOUND ("workflow execution already completed"). */
function isGone(error: unknown): boolean {
  return error instanceof ServiceError && (error.cause as { code?: number } | undefined)?.code === GRPC_NOT_FOUND;
}
const GRPC_NOT_FOUND = 5;

function unavailable(): DomainError {
  return new DomainError('temporarily_unavailable', {
    message: 'The creation could not be resolved right now; nothing changed. Send the same request again.',
    retryAfterSeconds: UNAVAILABLE_RETRY_AFTER,
  });
}

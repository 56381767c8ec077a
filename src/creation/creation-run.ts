import { WithStartWorkflowOperation, type Client } from '@temporalio/client';
import {
  awaitOutcomeUpdate,
  creationWorkflowId,
  LABEL_CREATION_WORKFLOW,
  type CreationDurations,
  type LabelCreationInput,
  type LabelCreationWorkflow,
} from '../../workflows/label-creation/contract';
import { requestedOrder, startMetadata } from '../../workflows/label-creation/details';
import { REQUEST_ID_MEMO } from '../../workflows/request-id-contract';
import { CREATION_STATUS, IDEMPOTENCY_KEY, LABEL_CREATION_ID, STORE_ID } from '../../workflows/search-attributes';
import type { LiveCreationInput } from './live-creation-types';
import type { CreationRow } from './records';

/** What the creation's run is started with, or joined for. */
export interface CreationRun {
  row: CreationRow;
  input: LiveCreationInput;
  /** How long the request waits in the run (`awaitOutcome`). */
  waitSeconds: number;
  /** The queue place the run frees when the creation leaves `processing`; null for a repeat. */
  queueTicketId: string | null;
}

/** The creation settings the run's durations come from (the process's configuration). */
export interface CreationRunConfig {
  temporal: { taskQueue: string };
  creation: Omit<CreationDurations, 'carrierTimeoutMs'>;
  carrierTimeoutMs: number;
}

export function creationDurations(config: CreationRunConfig): CreationDurations {
  const c = config.creation;
  return {
    notStartedMs: c.notStartedMs,
    lockRetryMs: c.lockRetryMs,
    lockStaleMs: c.lockStaleMs,
    adoptionPollMs: c.adoptionPollMs,
    carrierPendingMaxMs: c.carrierPendingMaxMs,
    carrierPollMs: c.carrierPollMs,
    resolveAllowedAfterMs: c.resolveAllowedAfterMs,
    attentionRetryInitialMs: c.attentionRetryInitialMs,
    attentionRetryMaxMs: c.attentionRetryMaxMs,
    abandonAfterMs: c.abandonAfterMs,
    abandonedDeleteAfterMs: c.abandonedDeleteAfterMs,
    carrierTimeoutMs: config.carrierTimeoutMs,
  };
}

/**
 * One start-or-join of a creation's run by update-with-start (`USE_EXISTING`): the request waits in the workflow (not
 * in a loop over PostgreSQL) until the creation leaves `processing` or the wait is over. Busy refusals are thrown
 * as Temporal gives them; `joinBusyWorkflow` decides whether to try again.
 */
export function startOrJoinRun(deps: { temporal: Client; config: CreationRunConfig }) {
  const durations = creationDurations(deps.config);
  return async ({ row, input, waitSeconds, queueTicketId }: CreationRun): Promise<void> => {
    const workflowInput: LabelCreationInput = {
      creationId: row.id,
      storeId: input.storeId,
      idempotencyKey: input.idempotencyKey,
      request: input.request,
      createdAtMs: new Date(row.created_at).getTime(),
      queueTicketId,
      durations,
    };
    const start = new WithStartWorkflowOperation<LabelCreationWorkflow>(LABEL_CREATION_WORKFLOW, {
      workflowId: row.workflow_id ?? creationWorkflowId(input.storeId, input.idempotencyKey),
      taskQueue: deps.config.temporal.taskQueue,
      args: [workflowInput],
      workflowIdConflictPolicy: 'USE_EXISTING',
      workflowIdReusePolicy: 'ALLOW_DUPLICATE',
      typedSearchAttributes: [
        { key: STORE_ID, value: input.storeId },
        { key: LABEL_CREATION_ID, value: row.id },
        { key: CREATION_STATUS, value: 'processing' },
        { key: IDEMPOTENCY_KEY, value: input.idempotencyKey },
      ],
      // The request that started the creation (workflows/request-id-interceptor.ts); a join keeps the first one's.
      ...(input.requestId ? { memo: { [REQUEST_ID_MEMO]: input.requestId } } : {}),
      // What the Web UI shows at the top of the creation's page (its phases are the workflow's current details).
      ...startMetadata({
        creationId: row.id,
        storeId: input.storeId,
        idempotencyKey: input.idempotencyKey,
        order: requestedOrder(input.request.order),
        carrierAccountId: input.request.carrierAccountId,
      }),
    });
    await deps.temporal.workflow.executeUpdateWithStart(awaitOutcomeUpdate, {
      args: [{ creationId: row.id, waitMs: waitSeconds * 1000 }],
      startWorkflowOperation: start,
    });
  };
}

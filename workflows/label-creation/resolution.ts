import { ParentClosePolicy, patched, startChild } from '@temporalio/workflow';
import type { CreationError } from '../../src/domain/refusal';
import type { Resolution } from '../../src/domain/resolve';
import { local } from './activities';
import type { Unresolved } from './unresolved';
import { platformHold } from './platform-hold';
import { retentionWorkflowId } from './contract';
import { abandonedCreationRetentionWorkflow } from './retention';
import { KIND, LABEL_CREATION_ID, STORE_ID, type WorkflowKind } from '../search-attributes';
import type { CreationRun } from './run';

const RETENTION_SEARCH_ATTRIBUTES_PATCH = 'retention-search-attributes';
/** The resolve answers once the platform hold is released (runs recorded before answered when the status moved). */
const RESOLVE_AFTER_RELEASE_PATCH = 'resolve-after-release';

/** Releases the platform hold of a resolved or abandoned creation; a resolve waiting on it is told when it is done. */
async function releaseHold(run: CreationRun, u: Unresolved): Promise<void> {
  await platformHold(run, 'release', u.sendInput.fulfillmentOrderGids);
  run.holdReleasing = false;
}

/** Marks the hold as about to be released, before the status moves, so a waiting resolve does not answer first. */
function holdReleaseAhead(run: CreationRun): void {
  if (patched(RESOLVE_AFTER_RELEASE_PATCH)) run.holdReleasing = true;
}

/** The merchant's resolve: `not_created` fails the creation; `shipment_exists` abandons it. */
export async function applyResolution(run: CreationRun, u: Unresolved, resolution: Resolution): Promise<void> {
  if (resolution.outcome === 'shipment_exists') return abandon(run, u, resolution);
  holdReleaseAhead(run);
  const error: CreationError = {
    code: 'resolved_not_created',
    message: 'Resolved as not created: no shipment exists. The same request can be sent again.',
    details: { label_creation_id: run.creationId },
  };
  await local.resolveCreationNotCreated({ creationId: run.creationId, error, resolution });
  run.settle({ kind: 'resolve_not_created', error });
  await run.releasedLocks();
  await releaseHold(run, u);
}

/**
 * `abandoned`: the locks are released and the key stays bound; the pending label is failed `not_finalized`. The
 * record is deleted 90 days after creation by a small workflow of its own, so this one ends now (its ID, the
 * idempotency key, is free for a new attempt once the key's binding expires).
 */
export async function abandon(run: CreationRun, u: Unresolved, resolution: Resolution | null): Promise<void> {
  const { creationId, storeId } = run;
  holdReleaseAhead(run);
  if (u.labelId) await local.failCreationLabel({ storeId, labelId: u.labelId, reason: 'not_finalized' });
  await local.abandonUnresolvedCreation({ creationId, resolution });
  run.settle({ kind: 'abandon' });
  await run.releasedLocks();
  await releaseHold(run, u);
  await startChild(abandonedCreationRetentionWorkflow, {
    workflowId: retentionWorkflowId(creationId),
    args: [{ creationId, deleteAtMs: run.input.createdAtMs + run.durations.abandonedDeleteAfterMs }],
    parentClosePolicy: ParentClosePolicy.ABANDON,
    // Histories recorded before the retention workflow had search attributes replay without them (decision 0801).
    ...(patched(RETENTION_SEARCH_ATTRIBUTES_PATCH)
      ? {
          typedSearchAttributes: [
            { key: STORE_ID, value: storeId },
            { key: LABEL_CREATION_ID, value: creationId },
            { key: KIND, value: 'abandoned_creation_retention' satisfies WorkflowKind },
          ],
        }
      : {}),
  });
}

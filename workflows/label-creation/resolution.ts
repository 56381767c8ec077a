import { ParentClosePolicy, patched, startChild } from '@temporalio/workflow';
import type { Resolution } from '../../src/domain/resolve';
import { local } from './activities';
import type { Unresolved } from './unresolved';
import { platformHold } from './platform-hold';
import { retentionWorkflowId } from './contract';
import { abandonedCreationRetentionWorkflow } from './retention';
import { KIND, LABEL_CREATION_ID, STORE_ID, type WorkflowKind } from '../search-attributes';
import type { CreationRun } from './run';

const RETENTION_SEARCH_ATTRIBUTES_PATCH = 'retention-search-attributes';

/** The merchant's resolve: `not_created` fails the creation; `shipment_exists` abandons it. */
export async function applyResolution(run: CreationRun, u: Unresolved, resolution: Resolution): Promise<void> {
  if (resolution.outcome === 'shipment_exists') return abandon(run, u, resolution);
  run.state.error = {
    code: 'resolved_not_created',
    message: 'Resolved as not created: no shipment exists. The same request can be sent again.',
    details: { label_creation_id: run.creationId },
  };
  await local.resolveCreationNotCreated({ creationId: run.creationId, error: run.state.error, resolution });
  run.setStatus('failed');
  await run.releasedLocks();
  await platformHold(run, 'release', u.sendInput.fulfillmentOrderGids);
}

/**
 * `abandoned`: the locks are released and the key stays bound; the pending label is failed `not_finalized`. The
 * record is deleted 90 days after creation by a small workflow of its own, so this one ends now (its ID, the
 * idempotency key, is free for a new attempt once the key's binding expires).
 */
export async function abandon(run: CreationRun, u: Unresolved, resolution: Resolution | null): Promise<void> {
  const { creationId, storeId } = run;
  if (u.labelId) await local.failCreationLabel({ storeId, labelId: u.labelId, reason: 'not_finalized' });
  await local.abandonUnresolvedCreation({ creationId, resolution });
  run.setStatus('abandoned');
  await run.releasedLocks();
  await platformHold(run, 'release', u.sendInput.fulfillmentOrderGids);
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

import type { Client } from '@temporalio/client';
import type { Orm } from '../db/orm';
import type { WaitHolds } from '../limits/wait-holds';
import type { Logger } from '../logger';
import { awaitOutcomeUpdate } from '../../workflows/label-creation/contract';
import { readCreation, type CreationRow } from './records';

/**
 * `Prefer: wait=N` on a creation (spec "Limits"): at most 8 requests per API key hold their answer open at once, across
 * every API process; the others answer at once, as with `wait=0`. A hold is asked for as soon as it is made, so it can
 * go alongside other work, and is always given back.
 */
export interface PreferWait {
  /** The wait applied: as asked, or 0 when the key holds 8 already. Rejects when the hold could not be asked for. */
  granted(): Promise<number>;
  /** Gives the hold back; once, and never rejects: a hold that is not given back stops counting when it expires. */
  release(): Promise<void>;
}

export function takeWaitHold(
  deps: { waitHolds: WaitHolds; logger: Logger },
  apiKeyId: string,
  waitSeconds: number,
): PreferWait {
  const taken = (waitSeconds > 0 ? deps.waitHolds.hold(apiKeyId, waitSeconds) : Promise.resolve(null)).catch(
    (error: unknown) => ({ error }),
  );
  let released: Promise<void> | null = null;
  return {
    async granted() {
      const hold = await taken;
      if (hold && 'error' in hold) throw hold.error;
      return hold ? waitSeconds : 0;
    },
    release: () =>
      (released ??= taken
        .then(async (hold) => {
          if (hold && !('error' in hold)) await hold.release();
        })
        .catch((error: unknown) => deps.logger.warn({ err: error }, 'Prefer: wait hold not given back'))),
  };
}

/**
 * Waits in the creation's workflow (its `awaitOutcome` update, the one `POST /labels` uses) until the creation leaves
 * `processing` or the wait is over, never in a loop over the database. A workflow that cannot be asked (it just ended,
 * or was replaced) leaves the answer to the record.
 */
export async function awaitOutcomeInWorkflow(
  temporal: Client,
  input: { workflowId: string; creationId: string; waitSeconds: number },
): Promise<void> {
  try {
    await temporal.workflow.getHandle(input.workflowId).executeUpdate(awaitOutcomeUpdate, {
      args: [{ creationId: input.creationId, waitMs: input.waitSeconds * 1000 }],
    });
  } catch {
    // Ended or replaced meanwhile: the record has the answer.
  }
}

/**
 * `GET /label-creations/{id}` with `Prefer: wait`: a creation still `processing` is held up to the wait granted, and
 * answered as the record is once it moved. Returns the record and the wait applied (`Preference-Applied`).
 */
export async function waitWhileProcessing(
  deps: { orm: Orm; temporal: Client; waitHolds: WaitHolds; logger: Logger },
  input: { row: CreationRow; apiKeyId: string; waitSeconds: number },
): Promise<{ row: CreationRow; waitSeconds: number }> {
  const { row } = input;
  if (row.status !== 'processing' || input.waitSeconds === 0 || !row.workflow_id) {
    return { row, waitSeconds: input.waitSeconds };
  }
  const hold = takeWaitHold(deps, input.apiKeyId, input.waitSeconds);
  try {
    const waitSeconds = await hold.granted();
    if (waitSeconds === 0) return { row, waitSeconds };
    await awaitOutcomeInWorkflow(deps.temporal, { workflowId: row.workflow_id, creationId: row.id, waitSeconds });
  } finally {
    await hold.release();
  }
  const moved = await readCreation(deps.orm.em.fork(), row.store_id, row.id);
  return { row: moved ?? row, waitSeconds: input.waitSeconds };
}

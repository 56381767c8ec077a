import { Context, type Info } from '@temporalio/activity';
import { loadCreationSnapshot } from '../../src/creation/load-context';
import { beginPreparing, recordDecision, setPhase, takeLocks } from '../../src/creation/transitions';
import {
  decideCreation,
  decisionRecord,
  type CreationDecision,
  type OrderRef,
  type ResolvedBlock,
} from '../../src/domain/creation-decision';
import { eventInto } from '../../src/domain/creation-phases';
import { DomainError } from '../../src/domain/errors';
import type { WaitFor } from '../../src/domain/existing-labels';
import type { LabelCreationPhase } from '../../src/domain/labels';
import type { CreationWarning } from '../../src/domain/refusal';
import { isRefusedAccess } from '../../src/platform/unavailable';
import { nonRetryable, type CreationKit } from './kit';
import type { PrepareInput, PreparedAndLocked, PreparedCreation } from './types';

/**
 * Reads of an order the store platform throttles or refuses before the creation fails `shopify_unavailable`: at the
 * prepare step's backoff (1, 2, 4 s) the last one is about 7 seconds in, well within `Prefer: wait`'s default 20.
 */
const PLATFORM_READ_ATTEMPTS = 4;

/**
 * Spec: a creation that has not reached the carrier 5 minutes after it was created fails `not_started`. The prepare
 * step's schedule-to-close timeout is that deadline, but Temporal's worker keeps retrying a failing local activity past
 * it (seen with SDK 1.24: attempts went on for minutes), so an attempt that starts past it ends the creation itself.
 */
export function endAtScheduleToClose(
  info: Pick<Info, 'scheduledTimestampMs' | 'scheduleToCloseTimeoutMs'>,
  nowMs: number,
): void {
  if (info.scheduleToCloseTimeoutMs <= 0 || nowMs < info.scheduledTimestampMs + info.scheduleToCloseTimeoutMs) return;
  throw nonRetryable(
    new DomainError('not_started', {
      message: 'The creation did not reach the carrier within 5 minutes; nothing was created. Send the request again.',
    }),
  );
}

/** The prepare step: the phase, the snapshot and the decision on it, and for a decision to create its locks. */
export function prepareStep({ deps, em }: CreationKit) {
  async function prepare(input: PrepareInput): Promise<PreparedCreation> {
    // The phase and the snapshot side by side (two connections): the snapshot is dropped when the record has moved on.
    const [begun, snapshot] = await Promise.allSettled([
      beginPreparing(em(), { id: input.creationId, now: deps.now() }),
      // The order's label state comes from the same statement (snapshot) as the labels and creations decided on.
      loadCreationSnapshot(
        { em: em(), platform: deps.platform },
        {
          storeId: input.storeId,
          request: input.request,
          selfCreationId: input.creationId,
          lockStaleAfterMs: input.lockStaleAfterMs,
        },
      ),
    ]);
    if (begun.status === 'rejected') throw begun.reason;
    if (begun.value !== 'processing') return { kind: 'stopped', status: begun.value };
    if (snapshot.status === 'fulfilled') return { kind: 'prepared', ...snapshot.value };
    const error: unknown = snapshot.reason;
    if (!(error instanceof DomainError)) throw error;
    // The platform throttled or failed: read again, a few times within the request's wait, then the creation fails
    // `shopify_unavailable` (docs/decisions/0027-platform-unavailable-live.md). A refused access fails at once: reading
    // again does not help until the merchant grants it (decision 0706).
    const platformDown = error.code === 'shopify_unavailable' && !isRefusedAccess(error);
    const reads = Context.current().info.attempt + (input.failedPlatformReads ?? 0);
    if (!platformDown || reads >= PLATFORM_READ_ATTEMPTS) throw nonRetryable(error);
    throw error;
  }

  /**
   * `preparing`: everything the decision reads, from the store platform and the database, as one JSON snapshot; the
   * decision on it (the same pure function the dry run uses); and for a decision to create, its locks (all or none)
   * with the decision recorded, in one transaction. A platform that cannot answer is retried (transient); the
   * creation's 5-minute deadline bounds the retries. Only a record still `processing` is prepared (`stopped`
   * otherwise: this run has nothing to do). `decided` sees a decision to create before its locks are taken (the
   * carrier call's first step reads the carrier account meanwhile).
   */
  async function prepareAndLock(
    input: PrepareInput & { workflowId: string },
    decided?: (decision: Extract<CreationDecision, { kind: 'create' }>) => void,
  ): Promise<PreparedAndLocked> {
    endAtScheduleToClose(Context.current().info, deps.now().getTime());
    const prepared = await prepare(input);
    if (prepared.kind !== 'prepared') return prepared;
    const decision = decideCreation(prepared.context, input.request, deps.now().getTime());
    if (decision.kind !== 'create') return { ...prepared, decision, locked: null };
    decided?.(decision);
    const locked = await takeLocks(deps.orm, {
      id: input.creationId,
      storeId: input.storeId,
      workflowId: input.workflowId,
      decision: decisionRecord(decision),
      staleAfterMs: input.lockStaleAfterMs,
      expectedState: prepared.orderState,
      now: deps.now(),
    });
    return { ...prepared, decision, locked };
  }

  return prepareAndLock;
}

/** `queued` and `preparing`: the phase, the prepare step as a local activity, and the decision's record. */
export function prepareActivities(kit: CreationKit) {
  const { deps, em } = kit;
  const prepareAndLock = prepareStep(kit);
  return {
    async setCreationPhase(input: {
      creationId: string;
      phase: LabelCreationPhase;
      waitingFor?: WaitFor | null;
    }): Promise<void> {
      // The workflow names the phase it moves to (its histories carry that input): the table names the move.
      const event = eventInto(input.phase);
      if (event !== 'wait_for_lock' && event !== 'await_carrier') throw new Error(`no move into ${input.phase}`);
      await setPhase(em(), { id: input.creationId, event, waitingFor: input.waitingFor, now: deps.now() });
    },

    /** `preparing` as a local activity of its own (decision 0023): the workflow's prepare step. */
    prepareAndLockCreation: (input: PrepareInput & { workflowId: string }): Promise<PreparedAndLocked> =>
      prepareAndLock(input),

    async recordCreationDecision(input: {
      creationId: string;
      order: OrderRef;
      fulfillmentOrderGids: string[];
      resolved: ResolvedBlock | null;
      warnings: CreationWarning[];
    }): Promise<void> {
      const { creationId, ...decided } = input;
      await recordDecision(em(), { id: creationId, ...decided, now: deps.now() });
    },
  };
}

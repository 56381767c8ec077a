import { ActivityFailure, condition, upsertSearchAttributes } from '@temporalio/workflow';
import type { PreparedAndLocked } from '../../activities/label-creation';
import { decisionRecord, type CreationDecision } from '../../src/domain/creation-decision';
import type { EndStatus } from '../../src/domain/creation-phases';
import { CARRIERS } from '../../src/domain/carrier-catalog';
import { CARRIER_ACCOUNT_ID, ORDER_ID } from '../search-attributes';
import { workflowNow } from '../workflow-time';
import { local, prepareActivity } from './activities';
import { fromFailure } from './contract';
import { activitySummary, timerSummary } from './details';
import type { CreationRun } from './run';

export type Created = Extract<CreationDecision, { kind: 'create' }>;
export type Prepared = Extract<PreparedAndLocked, { kind: 'prepared' }>;

/** What preparing ends with: a decision to create with its fulfillment orders locked, or the creation's end. */
export type PrepareOutcome = { kind: 'send'; decision: Created; prepared: Prepared } | { kind: 'done' };

/**
 * `preparing` to `waiting_for_lock`: prepare, decide and lock, until the creation holds its fulfillment orders or has
 * its answer (refused, existing labels returned, not started by its deadline).
 */
export async function prepareAndLock(run: CreationRun, first?: PreparedAndLocked): Promise<PrepareOutcome> {
  const { creationId, input } = run;
  // What the carrier call's own prepare step found (decision 1010): decided on before preparing again.
  let given = first;
  for (;;) {
    if (workflowNow() >= run.deadline) return ended(run.notStarted());
    const outcome = given ?? (await prepareOnce(run));
    given = undefined;
    if (outcome.kind === 'done') return outcome;
    if (outcome.kind === 'stopped') {
      // A duplicate run of an attempt that already moved on: nothing to do.
      run.apply({ kind: 'stop', status: (outcome.status as EndStatus | null) ?? 'failed' });
      return { kind: 'done' };
    }
    // Decided by the activity with the same pure function the dry run uses; the workflow does not decide again.
    const decision = outcome.decision;
    const record = decisionRecord(decision);
    noteDecision(run, decision);
    // A decision to create is recorded with its locks, in one step below.
    if (decision.kind !== 'create') await local.recordCreationDecision({ creationId, ...record });
    if (decision.kind === 'refuse') return ended(run.fail(decision.refusal));
    if (decision.kind === 'return_existing') return ended(returnExisting(run, decision.labelIds, decision.warnings));
    if (decision.kind === 'wait_for_existing') {
      await waitForExisting(run, decision, outcome);
      continue;
    }
    // Past the deadline nothing goes to the carrier: failing releases the locks the activity took.
    if (workflowNow() >= run.deadline) return ended(run.notStarted());
    // A decision to create always comes with the activity's attempt at its locks.
    const locked = outcome.locked!;
    if (locked.acquired) return { kind: 'send', decision, prepared: outcome };
    if ('stale' in locked) continue;
    const holder = locked.holders[0]!;
    await run.move({
      kind: 'wait_for_lock',
      waitingFor: {
        reason: 'fulfillment_order_held',
        heldBy: 'creation',
        labelCreationId: holder.labelCreationId,
        fulfillmentOrderIds: locked.holders.map((h) => h.fulfillmentOrderGid),
      },
    });
    // `reject` and `create_new` do not wait: decide again, which answers `creation_in_progress` for them.
    if (input.request.onExisting === 'return') {
      await run.waitForHolder([...new Set(locked.holders.map((h) => h.workflowId))]);
    }
  }
}

/** One prepare step (a local activity), or the creation's end when it fails or runs past the deadline. */
async function prepareOnce(run: CreationRun): Promise<PreparedAndLocked | { kind: 'done' }> {
  try {
    return await prepareActivity(
      run.deadline - workflowNow(),
      activitySummary.prepare(run.order),
    )({
      ...run.prepareInput(),
      ...(run.failedPlatformReads ? { failedPlatformReads: run.failedPlatformReads } : {}),
    });
  } catch (error) {
    if (isTimeout(error)) return ended(run.notStarted());
    const refusal = businessFailure(error);
    if (!refusal) throw error;
    return ended(run.fail(refusal));
  }
}

/**
 * What the Web UI names from now on (the order's name, the carrier account and service the creation calls and the rule
 * that chose them), and the search attributes an operator finds the creation by.
 */
export function noteDecision(run: CreationRun, decision: CreationDecision): void {
  if (decision.order) run.order = decision.order.name;
  if (decision.kind === 'create') {
    const { carrierAccountId, carrierCode, serviceCode } = decision.carrierCall;
    run.carrier = {
      name: CARRIERS[carrierCode]?.name ?? carrierCode,
      accountId: carrierAccountId,
      serviceCode,
      rulePriority: decision.resolved.matchedRule?.priority ?? null,
    };
  }
  run.describe();
  if (decision.order) {
    upsertSearchAttributes([
      { key: ORDER_ID, value: decision.order.id },
      ...(decision.kind === 'create'
        ? [{ key: CARRIER_ACCOUNT_ID, value: decision.carrierCall.carrierAccountId }]
        : []),
    ]);
  }
}

async function ended(done: Promise<void>): Promise<{ kind: 'done' }> {
  await done;
  return { kind: 'done' };
}

/** Existing labels are returned as they are: nothing is fulfilled or tagged for them. */
async function returnExisting(
  run: CreationRun,
  labelIds: string[],
  warnings: Extract<CreationDecision, { kind: 'return_existing' }>['warnings'],
): Promise<void> {
  await local.succeedCreation({
    creationId: run.creationId,
    storeId: run.storeId,
    queueTicketId: run.input.queueTicketId,
    labelIds,
    created: false,
    sideEffects: { fulfillment: null, orderTags: null },
    warnings,
  });
  run.settle({ kind: 'succeed', labelIds });
  await run.releasedLocks();
}

/** `waiting_for_lock` on an existing label's owner: a pending label, a creation, or an export holding the orders. */
async function waitForExisting(
  run: CreationRun,
  decision: Extract<CreationDecision, { kind: 'wait_for_existing' }>,
  prepared: Prepared,
): Promise<void> {
  await run.move({ kind: 'wait_for_lock', waitingFor: decision.waitFor });
  if (decision.waitFor.reason === 'label_pending') {
    await waitForPendingLabel(run, decision.waitFor.labelId);
  } else if (decision.waitFor.heldBy === 'creation') {
    const holders = prepared.context.holders.flatMap((h) =>
      h.heldBy === 'creation' && h.workflowId ? [h.workflowId] : [],
    );
    await run.waitForHolder([...new Set(holders)]);
  } else {
    await condition(() => false, run.untilDeadline(run.durations.lockRetryMs), {
      summary: timerSummary.platformHold(run.order),
    });
  }
}

async function waitForPendingLabel(run: CreationRun, labelId: string): Promise<void> {
  // Another process's label: nothing signals its completion, so its status is polled until the deadline.
  while (workflowNow() < run.deadline) {
    const label = await local.labelState({ storeId: run.storeId, labelId });
    if (!label || label.status !== 'pending') return;
    await condition(() => false, run.untilDeadline(run.durations.adoptionPollMs), {
      summary: timerSummary.pendingLabel(labelId),
    });
  }
}

/**
 * The prepare step's failure. A local activity's failure reaches the workflow as the activity's own failure (its
 * `ApplicationFailure`, or a `TimeoutFailure` at its schedule-to-close timeout), not wrapped in an `ActivityFailure`
 * as a regular activity's is: both shapes are read.
 */
function activityCause(error: unknown): { name?: string; details?: unknown[] } | undefined {
  const failure = error instanceof ActivityFailure ? error.cause : error;
  return failure instanceof Error ? failure : undefined;
}

function isTimeout(error: unknown): boolean {
  return activityCause(error)?.name === 'TimeoutFailure';
}

/** A non-retryable activity failure that carries a spec refusal (its type is the error code). */
function businessFailure(error: unknown) {
  return fromFailure(activityCause(error));
}

import type { PreparedAndLocked, PreparedAndSent } from '../../activities/label-creation';
import { local, prepareAndSendActivity } from './activities';
import { activitySummary } from './details';
import { noteDecision, prepareAndLock } from './prepare';
import type { CreationRun } from './run';
import { afterSend, sendToCarrier, workerLost } from './send';

/**
 * The creation's first task schedules one activity that prepares and, on a decision to create with every lock taken,
 * calls the carrier (docs/decisions/1010-prepare-in-the-carrier-call.md). Anything else it found (a refusal, labels to
 * return, a lock to wait for, a platform down) is decided on as after the workflow's own prepare step, which then
 * takes over.
 */
export async function prepareAndSend(run: CreationRun): Promise<void> {
  const first = await firstStep(run);
  if (first.kind === 'sent') {
    noteDecision(run, first.decision);
    sending(run);
    if ((await afterSend(run, first.decision, first.sendInput, first.sent)) === 'settled') return;
    run.apply({ kind: 'prepare' });
    return prepareThenSend(run);
  }
  if (first.kind === 'lost') return;
  if (first.kind === 'not_prepared' && first.platformReadFailed) run.failedPlatformReads = 1;
  await prepareThenSend(run, first.kind === 'prepared' ? first.outcome : undefined);
}

/**
 * The workflow's own prepare step and the carrier call on its decision; again while the call sent nothing and asks to
 * decide again (locks lost, or a call never marked sent: decisions 0137 and 0138), until the creation's deadline.
 */
export async function prepareThenSend(run: CreationRun, first?: PreparedAndLocked): Promise<void> {
  for (let given = first; ; given = undefined) {
    const prepared = await prepareAndLock(run, given);
    if (prepared.kind !== 'send') return;
    sending(run);
    if ((await sendToCarrier(run, prepared.decision, prepared.prepared)) === 'settled') return;
    run.apply({ kind: 'prepare' });
  }
}

/** `sending_to_carrier` in the workflow's own state, as the Web UI and the state query show it. */
export function sending(run: CreationRun): void {
  run.apply({ kind: 'send' });
}

/**
 * The first step's answer. Its retries exhausted without one, the record says whether the call was made: on its plan
 * the creation needs attention (`worker_lost`), as after the carrier call's own activity; otherwise nothing was sent.
 */
async function firstStep(run: CreationRun): Promise<PreparedAndSent | { kind: 'lost' }> {
  try {
    return await prepareAndSendActivity(
      run.durations,
      activitySummary.prepareAndSend(run.order),
    )({
      ...run.prepareInput(),
      queueTicketId: run.input.queueTicketId,
      deadlineMs: run.deadline,
    });
  } catch {
    const plan = await local.sentCreationPlan({ creationId: run.creationId });
    if (!plan) return { kind: 'not_prepared', platformReadFailed: false };
    noteDecision(run, plan.decision);
    sending(run);
    if ((await workerLost(run, plan.decision, plan.sendInput)) === 'settled') return { kind: 'lost' };
    run.apply({ kind: 'prepare' });
    return { kind: 'not_prepared', platformReadFailed: false };
  }
}

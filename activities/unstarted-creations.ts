import { failUnstarted, unstartedCreations } from '../src/creation/transitions';
import { inTransaction } from '../src/db/transaction';
import { returnUnitWith } from '../src/limits/creation-units';
import { forgetTicket } from '../src/limits/write-queue';
import { deliverEvent, deliverUndelivered, recordCreationUpdated, type RecordedEvent } from '../src/webhooks/publish';
import type { ActivityDeps } from './deps';
import { countCreation } from './label-creation/kit';

/** Creations failed in one run at most; the next hour takes the rest. */
const SWEEP_LIMIT = 500;
/** How far back the outbox's relay looks for events left without deliveries. */
const RELAY_WINDOW_MS = 2 * 86_400_000;

const publishDeps = (deps: ActivityDeps) => ({
  orm: deps.orm,
  temporal: deps.temporal,
  now: deps.now,
  taskQueue: deps.webhooks.taskQueue,
  retry: deps.webhooks.retry,
});

/**
 * The hourly sweep of creations nothing carries on any more (docs/decisions/0407-platform-creation-queue.md): each
 * fails `not_started` as every failure before the carrier does, in one transaction with what goes with it: its locks
 * and key released, its write-queue place and daily unit handed back, and its `label_creation.updated` written to the
 * outbox. Its deliveries start after the commit; events a stopped run wrote without starting them are picked up first.
 * A creation another sweep (a second worker) failed first is skipped. Returns how many this run failed.
 */
export async function sweepUnstartedCreations(deps: ActivityDeps, input: { createdBefore: Date }): Promise<number> {
  const now = deps.now();
  await deliverUndelivered(publishDeps(deps), new Date(now.getTime() - RELAY_WINDOW_MS));
  const ids = await unstartedCreations(deps.orm.em.fork(), { createdBefore: input.createdBefore, limit: SWEEP_LIMIT });
  let failed = 0;
  for (const id of ids) {
    const recorded = await inTransaction(deps.orm, async (tx): Promise<RecordedEvent | null | 'moved'> => {
      const swept = await failUnstarted(tx, { id, now });
      if (!swept) return 'moved';
      if (swept.queueTicketId) await forgetTicket(tx, swept.queueTicketId);
      await returnUnitWith(tx, id);
      return recordCreationUpdated(
        tx,
        { now: deps.now, renderCreation: deps.webhooks.renderCreation },
        swept.row,
        'failed',
      );
    });
    if (recorded === 'moved') continue;
    failed += 1;
    countCreation('failed');
    if (recorded) await deliverEvent(publishDeps(deps), recorded);
  }
  return failed;
}

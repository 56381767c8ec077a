import { finishFailed } from '../src/creation/transitions';
import type { ActivityDeps } from './deps';

/** Fails the creations nothing carries on any more (see `staleCreationAfterMs`); the workflow's own deadline did not. */
async function failStaleClaims(deps: ActivityDeps, createdBefore: Date): Promise<number> {
  const stale = await deps.orm.em
    .fork()
    .execute<Array<{ id: string }>>(
      `select id from label_creations where status = 'processing' and sent_at is null and created_at < ? limit 500`,
      [createdBefore],
    );
  for (const { id } of stale) {
    await finishFailed(deps.orm, {
      id,
      now: deps.now(),
      error: {
        code: 'not_started',
        message:
          'The creation did not reach the carrier within 5 minutes; nothing was created. Send the request again.',
        details: { label_creation_id: id },
      },
    });
  }
  return stale.length;
}

export interface PurgeRequestLogInput {
  retentionMs: number;
  /**
   * A creation still `processing` this long after it was created that never reached the carrier has no workflow
   * carrying it any more (never started, or terminated by hand): it fails `not_started` and releases its key and locks.
   */
  staleCreationAfterMs?: number;
}

export interface PurgeRequestLogResult {
  deleted: number;
  cutoff: string;
  /** Creations failed as `not_started` by the sweep. */
  abandonedClaims?: number;
}

export function createRequestLogActivities(deps: ActivityDeps) {
  return {
    /** Deletes request-log rows older than the retention (spec: kept 90 days). The clock lives here, not in the workflow. */
    async purgeRequestLog(input: PurgeRequestLogInput): Promise<PurgeRequestLogResult> {
      const cutoff = new Date(deps.now().getTime() - input.retentionMs);
      const em = deps.orm.em.fork();
      const deleted = await em.execute<{ affectedRows?: number }>(
        'delete from request_log where created_at < ?',
        [cutoff],
        'run',
      );
      // The same hourly housekeeping drops idempotency keys of mark-printed long past their 24-hour replay window.
      await em.execute(
        'delete from idempotency_keys where created_at < ?',
        [new Date(deps.now().getTime() - 2 * 86_400_000)],
        'run',
      );
      const abandonedClaims =
        input.staleCreationAfterMs === undefined
          ? 0
          : await failStaleClaims(deps, new Date(deps.now().getTime() - input.staleCreationAfterMs));
      return { deleted: Number(deleted.affectedRows ?? 0), cutoff: cutoff.toISOString(), abandonedClaims };
    },
  };
}

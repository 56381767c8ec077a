import type { ActivityDeps } from './deps';

export interface PurgeRequestLogInput {
  retentionMs: number;
}

export interface PurgeRequestLogResult {
  deleted: number;
  cutoff: string;
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
      return { deleted: Number(deleted.affectedRows ?? 0), cutoff: cutoff.toISOString() };
    },
  };
}

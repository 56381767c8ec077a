import { createRequestLogPartitionsAhead, dropRequestLogBefore } from '../src/db/request-log-partitions';
import type { ActivityDeps } from './deps';
import { migrateShopifyTokens } from './shopify-tokens';
import { sweepUnstartedCreations } from './unstarted-creations';
import { startUnstartedWebhooks } from '../src/shopify-app/webhook-intake';

/**
 * Deletes webhook events created before `createdBefore`, their deliveries and attempts going with them (foreign keys
 * cascade), except an event with a delivery still pending (an operator's redelivery of an old event): it goes on a
 * later run. At most 5,000 a run, so one run never holds the tables long; the next hour takes the rest.
 */
async function deleteOldWebhookEvents(deps: ActivityDeps, createdBefore: Date): Promise<number> {
  const deleted = await deps.orm.em.fork().execute<{ affectedRows?: number }>(
    `delete from webhook_events where id in (
       select e.id from webhook_events e
        where e.created_at < ?
          and not exists (select 1 from webhook_deliveries d where d.event_id = e.id and d.status = 'pending')
        limit 5000)`,
    [createdBefore],
    'run',
  );
  return Number(deleted.affectedRows ?? 0);
}

export interface PurgeRequestLogInput {
  retentionMs: number;
  /**
   * A creation still `processing` this long after it was created that never reached the carrier has no workflow
   * carrying it any more (never started, or terminated by hand): it fails `not_started` like any failure before the
   * carrier (`./unstarted-creations.ts`).
   */
  staleCreationAfterMs?: number;
  /** Webhook events older than this go, with their deliveries and attempts (none while a delivery is pending). */
  webhookRetentionMs?: number;
  /**
   * SHOPIFY_REDACT_RETRY: with it, Shopify webhooks stored a minute or more ago whose workflow never started are
   * started (decision 0718).
   */
  shopifyRedactRetryMs?: number;
}

export interface PurgeRequestLogResult {
  /** Rows deleted one by one: those of days without a partition (the default partition's), in bounded batches. */
  deleted: number;
  cutoff: string;
  /** Day partitions dropped whole, past the retention (their rows go with them, uncounted). */
  droppedPartitions?: string[];
  /** Day partitions created (today and the days ahead that were missing). */
  createdPartitions?: string[];
  /** Creations failed as `not_started` by the sweep. */
  abandonedClaims?: number;
  /** Webhook events deleted past their retention. */
  webhookEvents?: number;
  /** Shopify sessions moved to expiring tokens this run, and those left (absent without the public app). */
  shopifyTokens?: { migrated: number; left: number };
  /** Stored Shopify webhooks whose workflow this run started. */
  shopifyWebhooksStarted?: number;
}

export function createRequestLogActivities(deps: ActivityDeps) {
  return {
    /**
     * Keeps the request log 90 days (spec "Authentication" 5) at a cost that does not grow with it: creates the day
     * partitions ahead and drops those past the retention (docs/decisions/0105-request-log-partitions.md). The clock
     * lives here, not in the workflow.
     */
    async purgeRequestLog(input: PurgeRequestLogInput): Promise<PurgeRequestLogResult> {
      const cutoff = new Date(deps.now().getTime() - input.retentionMs);
      const em = deps.orm.em.fork();
      const createdPartitions = await createRequestLogPartitionsAhead(em, deps.now());
      const { dropped, deleted } = await dropRequestLogBefore(em, cutoff);
      // The same hourly housekeeping drops idempotency keys of mark-printed long past their 24-hour replay window.
      await em.execute(
        'delete from idempotency_keys where created_at < ?',
        [new Date(deps.now().getTime() - 2 * 86_400_000)],
        'run',
      );
      const abandonedClaims =
        input.staleCreationAfterMs === undefined
          ? 0
          : await sweepUnstartedCreations(deps, {
              createdBefore: new Date(deps.now().getTime() - input.staleCreationAfterMs),
            });
      const webhookEvents =
        input.webhookRetentionMs === undefined
          ? 0
          : await deleteOldWebhookEvents(deps, new Date(deps.now().getTime() - input.webhookRetentionMs));
      const shopifyTokens = await migrateShopifyTokens(deps);
      const shopifyWebhooksStarted =
        input.shopifyRedactRetryMs === undefined
          ? 0
          : await startUnstartedWebhooks(
              {
                orm: deps.orm,
                temporal: deps.temporal,
                taskQueue: deps.webhooks.taskQueue,
                now: deps.now,
                redactRetryMs: input.shopifyRedactRetryMs,
              },
              new Date(deps.now().getTime() - 60_000),
            );
      return {
        ...(shopifyTokens ? { shopifyTokens } : {}),
        deleted,
        cutoff: cutoff.toISOString(),
        droppedPartitions: dropped,
        createdPartitions,
        abandonedClaims,
        webhookEvents,
        shopifyWebhooksStarted,
      };
    },
  };
}

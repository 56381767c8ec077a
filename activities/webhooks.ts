import { Context } from '@temporalio/activity';
import type { EntityManager } from '@mikro-orm/postgresql';
import { isDelivered, responseExcerpt } from '../src/domain/webhooks';
import { activeSecrets } from '../src/webhooks/endpoints';
import { postWebhook } from '../src/webhooks/post';
import { publishCreationUpdated } from '../src/webhooks/publish';
import {
  DELIVERY_ID_HEADER,
  EVENT_ID_HEADER,
  SIGNATURE_HEADER,
  signatureHeader,
  TOPIC_HEADER,
} from '../src/webhooks/signature';
import type { ActivityDeps } from './deps';

/** What a delivery attempt reports to its workflow; the details are in the delivery log. */
export interface WebhookAttemptResult {
  outcome: 'delivered' | 'retry' | 'failed' | 'cancelled';
}

interface DeliveryRow {
  id: string;
  status: string;
  event_id: string;
  endpoint_id: string;
  url: string;
  removed_at: Date | null;
  topic: string;
  payload: string;
}

const USER_AGENT = 'ShippingLabelAPI-Webhooks/1.0';

/**
 * `label_creation.updated` for a creation whose transition just committed; the one call the creation activities make
 * (`transitionKey` names the transition, so a retried activity does not emit twice).
 */
export function creationUpdatedPublisher(
  deps: Pick<ActivityDeps, 'orm' | 'temporal' | 'now' | 'webhooks'>,
): (creationId: string, transitionKey: string, storeId?: string) => Promise<void> {
  return (creationId, transitionKey, storeId) =>
    publishCreationUpdated(
      {
        orm: deps.orm,
        temporal: deps.temporal,
        now: deps.now,
        taskQueue: deps.webhooks.taskQueue,
        retry: deps.webhooks.retry,
        renderCreation: deps.webhooks.renderCreation,
      },
      creationId,
      transitionKey,
      storeId,
    );
}

async function record(
  em: EntityManager,
  input: {
    deliveryId: string;
    attempt: number;
    startedAt: Date;
    statusCode: number | null;
    durationMs: number;
    error: string | null;
    excerpt: string | null;
    nextAttemptAt: Date | null;
    status: 'pending' | 'delivered' | 'failed';
    now: Date;
  },
): Promise<void> {
  await em.execute(
    `insert into webhook_delivery_attempts
       (delivery_id, attempt, started_at, status_code, duration_ms, error, response_excerpt, next_attempt_at)
     values (?, ?, ?, ?, ?, ?, ?, ?)
     on conflict (delivery_id, attempt) do update set started_at = excluded.started_at,
       status_code = excluded.status_code, duration_ms = excluded.duration_ms, error = excluded.error,
       response_excerpt = excluded.response_excerpt, next_attempt_at = excluded.next_attempt_at`,
    [
      input.deliveryId,
      input.attempt,
      input.startedAt,
      input.statusCode,
      input.durationMs,
      input.error,
      input.excerpt,
      input.nextAttemptAt,
    ],
  );
  await em.execute(
    `update webhook_deliveries set attempts = greatest(attempts, ?), last_status_code = ?, next_attempt_at = ?,
            status = ?, finished_at = ? where id = ?`,
    [
      input.attempt,
      input.statusCode,
      input.nextAttemptAt,
      input.status,
      input.status === 'pending' ? null : input.now,
      input.deliveryId,
    ],
  );
}

/**
 * Worker metric `shipping_label_webhook_attempts{outcome}`: each attempt's result as its workflow sees it (`retry`: it
 * failed and another follows; `failed`: the last one failed), on the worker's Prometheus endpoint.
 */
function countAttempt(outcome: WebhookAttemptResult['outcome']): void {
  Context.current()
    .metricMeter.createCounter('shipping_label_webhook_attempts', '', 'Webhook delivery attempts by outcome')
    .withTags({ outcome })
    .add(1);
}

export function createWebhookActivities(deps: ActivityDeps) {
  const activities = {
    /**
     * One POST of the event to the endpoint, signed with each of its active secrets at this moment (a rotation
     * between attempts applies to the next one), recorded in the delivery log with the time of the next attempt.
     */
    async attemptWebhookDelivery(input: {
      deliveryId: string;
      attempt: number;
      /** The wait before the next attempt if this one fails; null when it is the last. */
      retryInMs: number | null;
    }): Promise<WebhookAttemptResult> {
      const em = deps.orm.em.fork();
      const [delivery] = await em.execute<DeliveryRow[]>(
        `select d.id, d.status, d.event_id, d.endpoint_id, e.url, e.removed_at, v.topic, v.payload
           from webhook_deliveries d
           join webhook_endpoints e on e.id = d.endpoint_id
           join webhook_events v on v.id = d.event_id
          where d.id = ?`,
        [input.deliveryId],
      );
      if (!delivery) return { outcome: 'cancelled' };
      // Already answered 2xx (a delivery run again after its workflow's history was gone): never sent twice.
      if (delivery.status === 'delivered') return { outcome: 'delivered' };
      if (delivery.removed_at !== null) {
        await em.execute(
          `update webhook_deliveries set status = 'cancelled', next_attempt_at = null, finished_at = ? where id = ?`,
          [deps.now(), input.deliveryId],
        );
        return { outcome: 'cancelled' };
      }
      const startedAt = deps.now();
      const secrets = await activeSecrets(em, deps.webhooks.settingsKey, delivery.endpoint_id, startedAt);
      const result =
        secrets.length === 0
          ? ({
              kind: 'failed',
              error: 'no active secret opens with this SETTINGS_ENCRYPTION_KEY',
              durationMs: 0,
            } as const)
          : await postWebhook(
              delivery.url,
              {
                'Content-Type': 'application/json',
                'User-Agent': USER_AGENT,
                [EVENT_ID_HEADER]: delivery.event_id,
                [TOPIC_HEADER]: delivery.topic,
                [DELIVERY_ID_HEADER]: delivery.id,
                [SIGNATURE_HEADER]: signatureHeader(secrets, Math.floor(startedAt.getTime() / 1000), delivery.payload),
              },
              delivery.payload,
              { timeoutMs: deps.webhooks.timeoutMs, resolve: deps.webhooks.resolve, policy: deps.webhooks.policy },
            );
      const statusCode = result.kind === 'answered' ? result.statusCode : null;
      const delivered = isDelivered(statusCode);
      const now = deps.now();
      const nextAttemptAt = delivered || input.retryInMs === null ? null : new Date(now.getTime() + input.retryInMs);
      const status = delivered ? 'delivered' : nextAttemptAt ? 'pending' : 'failed';
      await record(em, {
        deliveryId: input.deliveryId,
        attempt: input.attempt,
        startedAt,
        statusCode,
        durationMs: result.durationMs,
        error:
          result.kind === 'failed' ? result.error.slice(0, 500) : delivered ? null : `answered ${result.statusCode}`,
        excerpt: result.kind === 'answered' ? responseExcerpt(result.bodyStart) : null,
        nextAttemptAt,
        status,
        now,
      });
      deps.logger[delivered ? 'info' : 'warn'](
        {
          webhook_delivery_id: input.deliveryId,
          event_id: delivery.event_id,
          endpoint_id: delivery.endpoint_id,
          attempt: input.attempt,
          status_code: statusCode,
          ...(result.kind === 'failed' ? { error: result.error } : {}),
        },
        delivered ? 'webhook delivered' : 'webhook attempt failed',
      );
      return { outcome: status === 'pending' ? 'retry' : status };
    },
  };
  return {
    async attemptWebhookDelivery(
      input: Parameters<typeof activities.attemptWebhookDelivery>[0],
    ): Promise<WebhookAttemptResult> {
      const result = await activities.attemptWebhookDelivery(input);
      countAttempt(result.outcome);
      return result;
    },
  };
}

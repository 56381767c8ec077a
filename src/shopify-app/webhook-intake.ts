import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  SHOPIFY_WEBHOOK_WORKFLOW,
  shopifyWebhookWorkflowId,
  type ShopifyWebhookWorkflow,
} from '../../workflows/shopify-webhook-contract';
import type { Orm } from '../db/orm';
import { inTransaction } from '../db/transaction';

/** The topics the app subscribes to (shopify.app.toml); anything else is acknowledged and left alone. */
export const SHOPIFY_WEBHOOK_TOPICS = [
  'app/uninstalled',
  'app/scopes_update',
  'customers/data_request',
  'customers/redact',
  'shop/redact',
] as const;

/**
 * A topic as Shopify names it in `X-Shopify-Topic` and shopify.app.toml (`customers/redact`), from the library's form
 * (`CUSTOMERS_REDACT`); a topic the app does not subscribe to keeps the library's.
 */
export function subscribedTopic(topic: string): string {
  return SHOPIFY_WEBHOOK_TOPICS.find((t) => t.toUpperCase().replace(/\//g, '_') === topic) ?? topic;
}

export interface ReceivedWebhook {
  webhookId: string;
  /** `X-Shopify-Event-Id`; null when Shopify sent none (the webhook ID deduplicates then). */
  eventId: string | null;
  shop: string;
  topic: string;
  apiVersion: string;
  triggeredAt: Date | null;
  payload: unknown;
}

export type ReceiveOutcome =
  | { kind: 'accepted'; storeId: string }
  | { kind: 'replayed'; storeId: string; webhookId: string }
  | { kind: 'unknown_shop'; repeated: boolean }
  | { kind: 'ignored_topic' };

export interface WebhookStartDeps {
  orm: Orm;
  temporal: Client;
  taskQueue: string;
  now: () => Date;
  /** How long a redaction waits before looking again at creations in flight (SHOPIFY_REDACT_RETRY). */
  redactRetryMs: number;
}

/**
 * `app/uninstalled` turns the store's `app_installed` gate off in the transaction that records the webhook, so every
 * key answers 403 `access_required` from the moment Shopify is answered. An uninstall Shopify triggered before the
 * store's latest install (a late delivery after a reinstall) changes nothing.
 */
async function closeGateOnUninstall(em: EntityManager, storeId: string, webhook: ReceivedWebhook, now: Date) {
  await em.execute(
    `update stores st set app_installed = false, updated_at = ?
      where st.id = ? and not exists (
        select 1 from store_platform_sessions s
         where s.store_id = st.id and s.access_token_sealed is not null and ?::timestamptz is not null
           and s.connected_at > ?::timestamptz)`,
    [now, storeId, webhook.triggeredAt, webhook.triggeredAt],
  );
}

/**
 * Starts the workflow of a stored webhook and notes it on the row. Its ID is the row's webhook ID, so a second start
 * (Shopify's retry racing the hourly restart) starts nothing.
 */
export async function startWebhookWorkflow(deps: WebhookStartDeps, webhookId: string): Promise<void> {
  try {
    await deps.temporal.workflow.start<ShopifyWebhookWorkflow>(SHOPIFY_WEBHOOK_WORKFLOW, {
      workflowId: shopifyWebhookWorkflowId(webhookId),
      taskQueue: deps.taskQueue,
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      args: [{ webhookId, retryMs: deps.redactRetryMs }],
    });
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
  await deps.orm.em
    .fork()
    .execute(
      'update shopify_webhooks set workflow_started_at = ? where webhook_id = ? and workflow_started_at is null',
      [deps.now(), webhookId],
    );
}

/**
 * A well-signed webhook of a shop with no store (uninstalled and forgotten, or never installed): Shopify's compliance
 * rules want a 200-series answer for it, so it is acknowledged; only its event ID is kept (decision 0718).
 */
async function recordUnknownShop(deps: WebhookStartDeps, dedupeId: string): Promise<boolean> {
  const inserted = await deps.orm.em.fork().execute<Array<{ event_id: string }>>(
    `insert into shopify_webhook_unknown_shop_events (event_id, received_at) values (?, ?)
       on conflict (event_id) do nothing returning event_id`,
    [dedupeId, deps.now()],
  );
  return inserted.length === 0;
}

/**
 * Records a webhook the library verified and starts its workflow (decisions 0709 and 0718): the row's `event_id`
 * (`X-Shopify-Event-Id`, else the webhook ID) is the deduplication, so one event delivered under two webhook IDs is
 * processed once; a repeat whose workflow started is `replayed`. A row whose workflow did not start (the process
 * stopped in between) starts on Shopify's retry or at the hourly housekeeping, whichever comes first.
 */
export async function receiveWebhook(deps: WebhookStartDeps, webhook: ReceivedWebhook): Promise<ReceiveOutcome> {
  const dedupeId = webhook.eventId ?? webhook.webhookId;
  const em = deps.orm.em.fork();
  const [store] = await em.execute<Array<{ id: string }>>('select id from stores where domain = ?', [webhook.shop]);
  if (!store) return { kind: 'unknown_shop', repeated: await recordUnknownShop(deps, dedupeId) };
  if (!(SHOPIFY_WEBHOOK_TOPICS as readonly string[]).includes(webhook.topic)) return { kind: 'ignored_topic' };
  const now = deps.now();
  const earlier = await inTransaction(deps.orm, async (tx) => {
    const inserted = await tx.execute<Array<{ webhook_id: string }>>(
      `insert into shopify_webhooks (webhook_id, event_id, shop_domain, store_id, topic, api_version, triggered_at,
                                     payload, received_at)
       values (?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?) on conflict do nothing returning webhook_id`,
      [
        webhook.webhookId,
        dedupeId,
        webhook.shop,
        store.id,
        webhook.topic,
        webhook.apiVersion,
        webhook.triggeredAt,
        JSON.stringify(webhook.payload ?? null),
        now,
      ],
    );
    if (inserted.length > 0) {
      if (webhook.topic === 'app/uninstalled') await closeGateOnUninstall(tx, store.id, webhook, now);
      return null;
    }
    const [row] = await tx.execute<Array<{ webhook_id: string; workflow_started_at: Date | null }>>(
      `select webhook_id, workflow_started_at from shopify_webhooks where event_id = ? or webhook_id = ?
        order by received_at limit 1`,
      [dedupeId, webhook.webhookId],
    );
    return row ?? null;
  });
  if (earlier?.workflow_started_at) return { kind: 'replayed', storeId: store.id, webhookId: earlier.webhook_id };
  await startWebhookWorkflow(deps, earlier?.webhook_id ?? webhook.webhookId);
  return { kind: 'accepted', storeId: store.id };
}

/** Webhooks restarted in one housekeeping run at most; the next hour takes the rest. */
const RESTART_LIMIT = 500;

/**
 * The hourly housekeeping's restart (decision 0718): every stored webhook whose workflow never started (the process
 * stopped between the row's commit and the start, and Shopify's retries, 8 over about 4 hours, are spent or were
 * answered) is started. Rows younger than `receivedBefore` are left to the intake that is starting them. Returns how
 * many were started.
 */
export async function startUnstartedWebhooks(deps: WebhookStartDeps, receivedBefore: Date): Promise<number> {
  const rows = await deps.orm.em.fork().execute<Array<{ webhook_id: string }>>(
    `select webhook_id from shopify_webhooks
        where processed_at is null and workflow_started_at is null and received_at < ?
        order by received_at limit ${RESTART_LIMIT}`,
    [receivedBefore],
  );
  for (const row of rows) await startWebhookWorkflow(deps, row.webhook_id);
  return rows.length;
}

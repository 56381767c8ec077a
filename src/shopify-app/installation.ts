import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  SHOPIFY_WEBHOOK_WORKFLOW,
  shopifyWebhookWorkflowId,
  type ShopifyWebhookWorkflow,
} from '../../workflows/shopify-webhook-contract';
import { createStore } from '../access/stores';
import { connectShopify, type ExpiringTokens } from '../db/platform-sessions-repository';
import type { Orm } from '../db/orm';
import { inTransaction } from '../db/transaction';
import { missingScopes } from '../platform/shopify/scopes';

/**
 * A store connecting itself (docs/shopify.md, "Installing the app"; decision 0707): what an install and Shopify's
 * webhooks change in the service's records. The grant and the signatures are checked by the Shopify library at the
 * edge before anything here runs.
 */

export type InstallOutcome =
  | { kind: 'installed'; storeId: string; created: boolean; apiEnabled: boolean; scopes: string[] }
  | { kind: 'missing_scopes'; missing: string[] };

/**
 * The offline token Shopify just issued: refused, storing nothing, when the merchant granted less than the service
 * needs (as `labelctl store connect` refuses such a token); else the store is created (all gates closed but
 * `app_installed`) or found again by its domain, the session stored sealed with the granted scopes, and the store's
 * `app_installed` gate opened. `api_enabled`, the plan and write access stay the operator's: a reinstalled store finds
 * its keys and gates as they were.
 */
export async function recordInstall(
  orm: Orm,
  deps: {
    settingsKey: Buffer;
    now: () => Date;
    /** The shop's name and owner's e-mail, read with the new token (a store the install creates). */
    shopContact: (shop: string, accessToken: string) => Promise<{ name: string; email: string }>;
  },
  session: { shop: string; accessToken: string; scopes: string[]; expiring?: ExpiringTokens | null },
): Promise<InstallOutcome> {
  const missing = missingScopes(session.scopes);
  if (missing.length > 0) return { kind: 'missing_scopes', missing };
  const em = orm.em.fork();
  const [existing] = await em.execute<Array<{ id: string }>>('select id from stores where domain = ?', [session.shop]);
  let storeId = existing?.id;
  const created = !storeId;
  if (!storeId) {
    const contact = await deps.shopContact(session.shop, session.accessToken);
    storeId = (
      await createStore(
        em,
        { name: contact.name, domain: session.shop, email: contact.email, appInstalled: false },
        deps.now(),
      )
    ).id;
  }
  const now = deps.now();
  return inTransaction(orm, async (tx) => {
    await connectShopify(tx, deps.settingsKey, {
      storeId,
      accessToken: session.accessToken,
      grantedScopes: session.scopes,
      now,
      origin: 'app',
      expiring: session.expiring ?? null,
    });
    const [store] = await tx.execute<Array<{ api_enabled: boolean }>>(
      'update stores set app_installed = true, updated_at = ? where id = ? returning api_enabled',
      [now, storeId],
    );
    return { kind: 'installed', storeId, created, apiEnabled: store!.api_enabled, scopes: session.scopes };
  });
}

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
  shop: string;
  topic: string;
  apiVersion: string;
  triggeredAt: Date | null;
  payload: unknown;
}

export type ReceiveOutcome =
  | { kind: 'accepted'; storeId: string }
  | { kind: 'replayed'; storeId: string }
  | { kind: 'unknown_shop' }
  | { kind: 'ignored_topic' };

export interface WebhookIntakeDeps {
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
 * Records a webhook the library verified and starts its workflow (decision 0709): the row keyed by
 * `X-Shopify-Webhook-Id` is the deduplication (a repeat whose workflow started is `replayed`, processed once); the
 * workflow, one per webhook ID, does the work after Shopify is answered. A row whose workflow did not start (the
 * process stopped in between) starts it on Shopify's retry.
 */
export async function receiveWebhook(deps: WebhookIntakeDeps, webhook: ReceivedWebhook): Promise<ReceiveOutcome> {
  const em = deps.orm.em.fork();
  const [store] = await em.execute<Array<{ id: string }>>('select id from stores where domain = ?', [webhook.shop]);
  if (!store) return { kind: 'unknown_shop' };
  if (!(SHOPIFY_WEBHOOK_TOPICS as readonly string[]).includes(webhook.topic)) return { kind: 'ignored_topic' };
  const now = deps.now();
  const started = await inTransaction(deps.orm, async (tx) => {
    const inserted = await tx.execute<Array<{ webhook_id: string }>>(
      `insert into shopify_webhooks (webhook_id, shop_domain, store_id, topic, api_version, triggered_at, payload,
                                     received_at)
       values (?, ?, ?, ?, ?, ?, ?::jsonb, ?) on conflict (webhook_id) do nothing returning webhook_id`,
      [
        webhook.webhookId,
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
      return false;
    }
    const [row] = await tx.execute<Array<{ workflow_started_at: Date | null }>>(
      'select workflow_started_at from shopify_webhooks where webhook_id = ?',
      [webhook.webhookId],
    );
    return row?.workflow_started_at !== null;
  });
  if (started) return { kind: 'replayed', storeId: store.id };
  try {
    await deps.temporal.workflow.start<ShopifyWebhookWorkflow>(SHOPIFY_WEBHOOK_WORKFLOW, {
      workflowId: shopifyWebhookWorkflowId(webhook.webhookId),
      taskQueue: deps.taskQueue,
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      args: [{ webhookId: webhook.webhookId, retryMs: deps.redactRetryMs }],
    });
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
  await em.execute('update shopify_webhooks set workflow_started_at = ? where webhook_id = ?', [
    deps.now(),
    webhook.webhookId,
  ]);
  return { kind: 'accepted', storeId: store.id };
}

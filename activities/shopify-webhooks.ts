import { inTransaction } from '../src/db/transaction';
import { recordGrantedScopes, removeShopifySession } from '../src/db/platform-sessions-repository';
import { missingScopes } from '../src/platform/shopify/scopes';
import { customerExport, redactCustomer, redactShop } from '../src/privacy/personal-data';
import { isoSeconds } from '../src/domain/wire-format';
import type { ShopifyWebhookStep } from '../workflows/shopify-webhook-contract';
import type { ActivityDeps } from './deps';

interface StoredWebhook {
  webhook_id: string;
  store_id: string;
  shop_domain: string;
  topic: string;
  payload: Record<string, unknown> | null;
  processed_at: Date | string | null;
}

/** Shopify's numeric IDs (orders, customers) as the service stores them. */
const ids = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((v) => typeof v === 'number' || typeof v === 'string').map(String) : [];

const customerOf = (payload: Record<string, unknown>): { id: string; email: string | null; phone: string | null } => {
  const customer = (payload.customer ?? {}) as Record<string, unknown>;
  return {
    id: typeof customer.id === 'number' || typeof customer.id === 'string' ? String(customer.id) : '',
    email: typeof customer.email === 'string' ? customer.email : null,
    phone: typeof customer.phone === 'string' ? customer.phone : null,
  };
};

/**
 * What each webhook Shopify sent does (docs/shopify.md, "Uninstalling and privacy"; decisions 0708 and 0709), in one
 * transaction with marking it processed and clearing its payload (compliance payloads name the customer). Idempotent:
 * a processed webhook is done; a retried step does the same again.
 */
export function createShopifyWebhookActivities(deps: ActivityDeps) {
  const log = deps.logger.child({ component: 'shopify-webhooks' });
  return {
    async processShopifyWebhook(input: { webhookId: string }): Promise<ShopifyWebhookStep> {
      return inTransaction(deps.orm, async (em): Promise<ShopifyWebhookStep> => {
        const [row] = await em.execute<StoredWebhook[]>(
          `select webhook_id, store_id, shop_domain, topic, payload, processed_at from shopify_webhooks
            where webhook_id = ? for update`,
          [input.webhookId],
        );
        if (!row) return { kind: 'done', outcome: 'unknown_webhook' };
        if (row.processed_at) return { kind: 'done', outcome: 'already_processed' };
        const payload = row.payload ?? {};
        const now = deps.now();
        let outcome: Record<string, unknown>;
        switch (row.topic) {
          case 'app/uninstalled': {
            // The gate went off when the webhook was received, unless the store was installed again after Shopify
            // triggered it (or since): then the session is the new installation's and stays.
            const [store] = await em.execute<Array<{ app_installed: boolean }>>(
              'select app_installed from stores where id = ?',
              [row.store_id],
            );
            if (store?.app_installed) {
              outcome = { session: 'kept', reason: 'installed again' };
              break;
            }
            await removeShopifySession(em, row.store_id, now);
            outcome = { session: 'deleted' };
            break;
          }
          case 'app/scopes_update': {
            const current = Array.isArray(payload.current) ? payload.current.map(String) : [];
            await recordGrantedScopes(em, { storeId: row.store_id, grantedScopes: current, now });
            const missing = missingScopes(current);
            if (missing.length > 0)
              log.warn({ store_id: row.store_id, missing_scopes: missing }, 'Shopify app installation lacks scopes');
            outcome = { granted_scopes: current, missing_scopes: missing };
            break;
          }
          case 'customers/data_request': {
            const customer = customerOf(payload);
            const orders = ids(payload.orders_requested);
            const data = await customerExport(em, { storeId: row.store_id, orderLegacyIds: orders });
            const request = (payload.data_request ?? {}) as Record<string, unknown>;
            const body = JSON.stringify(
              {
                shop: row.shop_domain,
                store_id: row.store_id,
                data_request_id: request.id ?? null,
                customer,
                orders_requested: orders,
                exported_at: isoSeconds(now),
                ...data,
              },
              null,
              2,
            );
            await em.execute(
              `insert into notifications (store_id, kind, to_address, subject, body, created_at, next_attempt_at,
                                          customer_ref)
               values (?, 'privacy.customer_data_export', ?, ?, ?, ?, ?, ?)`,
              [
                row.store_id,
                deps.privacy.exportEmail,
                `Customer data request from ${row.shop_domain} (customer ${customer.id})`,
                `Shopify asked for the personal data this service holds of a customer of ${row.shop_domain}.\n` +
                  'Hand it to the store owner within 30 days of the request (docs/operators.md, "Privacy").\n\n' +
                  body,
                now,
                now,
                customer.id,
              ],
            );
            outcome = { creations: data.creations.length, labels: data.labels.length, export: 'queued' };
            break;
          }
          case 'customers/redact': {
            const report = await redactCustomer(em, {
              storeId: row.store_id,
              orderLegacyIds: ids(payload.orders_to_redact),
              customerRef: customerOf(payload).id,
            });
            if (report.inFlight.length > 0) return { kind: 'wait', inFlight: report.inFlight.length };
            outcome = { ...report };
            break;
          }
          case 'shop/redact': {
            const report = await redactShop(em, { storeId: row.store_id });
            if (report.inFlight.length > 0) return { kind: 'wait', inFlight: report.inFlight.length };
            outcome = { ...report };
            break;
          }
          default:
            outcome = { ignored: true };
        }
        await em.execute(
          `update shopify_webhooks set processed_at = ?, payload = null, outcome = ?::jsonb where webhook_id = ?`,
          [now, JSON.stringify(outcome), row.webhook_id],
        );
        log.info(
          { store_id: row.store_id, topic: row.topic, webhook_id: row.webhook_id, outcome },
          'Shopify webhook processed',
        );
        return { kind: 'done', outcome: row.topic };
      });
    },
  };
}

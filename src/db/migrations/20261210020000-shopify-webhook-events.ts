import { Migration } from '@mikro-orm/migrations';

/**
 * Shopify's webhooks deduplicated by the event, not the delivery (decision 0718): `event_id` is
 * `X-Shopify-Event-Id` (one event can reach the app under two webhook IDs), or the webhook ID when Shopify sent none;
 * rows received before hold their webhook ID. A well-signed webhook of a shop with no store leaves only its event ID,
 * in a table of its own, so a retry of it is recognised and nothing else about the shop is kept.
 */
export class Migration20261210020000ShopifyWebhookEvents extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table shopify_webhooks add column event_id text null;');
    this.addSql('update shopify_webhooks set event_id = webhook_id;');
    this.addSql('alter table shopify_webhooks alter column event_id set not null;');
    this.addSql('create unique index shopify_webhooks_event_idx on shopify_webhooks (event_id);');
    // The hourly restart of webhooks whose workflow never started, and the redactions' deadline gauge.
    this.addSql(
      `create index shopify_webhooks_unprocessed_idx on shopify_webhooks (received_at)
        where processed_at is null;`,
    );
    this.addSql(`
      create table shopify_webhook_unknown_shop_events (
        event_id text primary key,
        received_at timestamptz not null
      );`);
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists shopify_webhook_unknown_shop_events;');
    this.addSql('drop index if exists shopify_webhooks_unprocessed_idx;');
    this.addSql('drop index if exists shopify_webhooks_event_idx;');
    this.addSql('alter table shopify_webhooks drop column event_id;');
  }
}

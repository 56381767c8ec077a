import { Migration } from '@mikro-orm/migrations';

/**
 * The public Shopify app (docs/shopify.md, "Installing the app"; decisions 0707 to 0710): every webhook Shopify sent,
 * kept by its `X-Shopify-Webhook-Id` (a repeat is found, never processed twice), its payload only until it is
 * processed; a label whose stored document was removed by a redaction (`document.availability: not_reissuable`); the
 * customer a data export in the e-mail outbox concerns (a later `customers/redact` removes it).
 */
export class Migration20261202000000ShopifyApp extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table shopify_webhooks (
        webhook_id text primary key,
        shop_domain text not null,
        store_id text not null references stores (id) on delete cascade,
        topic text not null,
        api_version text not null,
        triggered_at timestamptz null,
        -- Cleared when processed: compliance payloads carry the customer's e-mail and phone.
        payload jsonb null,
        received_at timestamptz not null,
        workflow_started_at timestamptz null,
        processed_at timestamptz null,
        outcome jsonb null
      );`);
    this.addSql('create index shopify_webhooks_store_idx on shopify_webhooks (store_id, received_at);');
    this.addSql('alter table labels add column document_redacted boolean not null default false;');
    this.addSql('alter table notifications add column customer_ref text null;');
  }

  override async down(): Promise<void> {
    this.addSql('alter table notifications drop column customer_ref;');
    this.addSql('alter table labels drop column document_redacted;');
    this.addSql('drop table if exists shopify_webhooks;');
  }
}

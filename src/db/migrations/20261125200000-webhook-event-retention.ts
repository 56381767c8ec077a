import { Migration } from '@mikro-orm/migrations';

/**
 * Webhook events are kept `WEBHOOK_RETENTION` (30 days) and then deleted with their deliveries and attempts by the
 * hourly housekeeping (docs/decisions/0608-webhook-retention.md): the index lets it find them without a scan.
 */
export class Migration20261125200000WebhookEventRetention extends Migration {
  override async up(): Promise<void> {
    this.addSql('create index webhook_events_created on webhook_events (created_at);');
  }

  override async down(): Promise<void> {
    this.addSql('drop index if exists webhook_events_created;');
  }
}

import { Migration } from '@mikro-orm/migrations';

/**
 * The API's operational gauges read, on every scrape, the creations in `needs_attention` and the pending webhook
 * deliveries (count and oldest; docs/decisions/0900-port-and-state-metrics.md): small partial indexes keep that off
 * a scan of the whole tables.
 */
export class Migration20261127090000OperationalGauges extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create index label_creations_needing_attention on label_creations (created_at) where status = 'needs_attention';`,
    );
    this.addSql(`create index webhook_deliveries_pending on webhook_deliveries (created_at) where status = 'pending';`);
  }

  override async down(): Promise<void> {
    this.addSql('drop index if exists webhook_deliveries_pending;');
    this.addSql('drop index if exists label_creations_needing_attention;');
  }
}

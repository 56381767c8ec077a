import { Migration } from '@mikro-orm/migrations';

/**
 * Lists ordered by a time break its ties by insertion order, never by a random ID (docs/decisions/0103): a `seq` from a
 * sequence on each listed table that lacked one, and the list indexes on `(…, created_at, seq)`. Label creations keep
 * their time to the millisecond, the precision of the clock that writes it, so a cursor holds it exactly.
 */
export class Migration20261126000000InsertionOrder extends Migration {
  override async up(): Promise<void> {
    for (const table of [
      'label_creations',
      'carrier_accounts',
      'stores',
      'api_keys',
      'pickup_point_providers',
      'webhook_endpoints',
      'webhook_delivery_attempts',
    ]) {
      this.addSql(`alter table ${table} add column seq bigserial not null;`);
    }
    this.addSql(
      `update label_creations set created_at = date_trunc('milliseconds', created_at)
        where created_at <> date_trunc('milliseconds', created_at);`,
    );
    this.addSql(`alter table label_creations alter column created_at set default date_trunc('milliseconds', now());`);
    this.addSql(
      `alter table label_creations add constraint label_creations_created_at_ms
         check (created_at = date_trunc('milliseconds', created_at));`,
    );
    this.addSql('drop index if exists label_creations_store_created_idx;');
    this.addSql('create index label_creations_store_created_idx on label_creations (store_id, created_at, seq);');
    this.addSql('drop index if exists labels_store_created_idx;');
    this.addSql('create index labels_store_created_idx on labels (store_id, created_at, seq);');
    this.addSql('drop index if exists carrier_accounts_store_idx;');
    this.addSql('create index carrier_accounts_store_idx on carrier_accounts (store_id, created_at, seq);');
  }

  override async down(): Promise<void> {
    this.addSql('drop index if exists carrier_accounts_store_idx;');
    this.addSql('create index carrier_accounts_store_idx on carrier_accounts (store_id, created_at, id);');
    this.addSql('drop index if exists labels_store_created_idx;');
    this.addSql('create index labels_store_created_idx on labels (store_id, created_at, id);');
    this.addSql('drop index if exists label_creations_store_created_idx;');
    this.addSql('create index label_creations_store_created_idx on label_creations (store_id, created_at, id);');
    this.addSql('alter table label_creations drop constraint if exists label_creations_created_at_ms;');
    this.addSql('alter table label_creations alter column created_at set default now();');
    for (const table of [
      'webhook_delivery_attempts',
      'webhook_endpoints',
      'pickup_point_providers',
      'api_keys',
      'stores',
      'carrier_accounts',
      'label_creations',
    ]) {
      this.addSql(`alter table ${table} drop column if exists seq;`);
    }
  }
}

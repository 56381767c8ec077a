import { Migration } from '@mikro-orm/migrations';

/**
 * Carrier protection (docs/decisions/0500-carrier-protection.md): one row per creation that called a carrier, with
 * what the call came to. Insert-only, so parallel workers count exactly; every decision (circuit, account refusals,
 * repeated refusals of a shipment or a fulfillment order) is a read over these rows. `seq` orders results "in a row";
 * rows older than the longest window are deleted by the insert that follows them on the same account.
 */
export class Migration20261123060000CarrierProtection extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table carrier_outcomes (
        seq bigserial primary key,
        label_creation_id text not null unique,
        store_id text not null references stores (id) on delete cascade,
        carrier_account_id text not null,
        outcome text not null check (outcome in ('accepted', 'rejected', 'unclear')),
        reason text,
        fingerprint text,
        fulfillment_order_gids text[] not null default '{}',
        recorded_at timestamptz not null
      );`);
    this.addSql('create index carrier_outcomes_account_idx on carrier_outcomes (carrier_account_id, seq);');
    this.addSql(
      `create index carrier_outcomes_fingerprint_idx on carrier_outcomes (fingerprint, recorded_at) where outcome = 'rejected';`,
    );
    this.addSql(
      `create index carrier_outcomes_fulfillment_orders_idx on carrier_outcomes using gin (fulfillment_order_gids) where outcome = 'rejected';`,
    );
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists carrier_outcomes;');
  }
}

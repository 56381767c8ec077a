import { Migration } from '@mikro-orm/migrations';

/**
 * Live label creation: a creation record is claimed by the API before its workflow starts, so the idempotency key is
 * bound by a unique index (one bound attempt per store and key; failed attempts and expired bindings release it).
 * The order is known only once the workflow found it, so its columns are nullable. Fulfillment-order locks are rows,
 * taken all-or-nothing by the holding creation (docs/decisions/0010-fulfillment-order-locks.md).
 */
export class Migration20261123000200LiveCreation extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table label_creations alter column order_gid drop not null;');
    this.addSql('alter table label_creations alter column order_legacy_id drop not null;');
    this.addSql('alter table label_creations alter column order_name drop not null;');
    this.addSql('alter table label_creations add column key_bound boolean not null default true;');
    this.addSql('alter table label_creations add column api_key_id text null;');
    this.addSql(`alter table label_creations add column label_ids text[] not null default '{}';`);
    this.addSql('alter table label_creations add column sent_at timestamptz null;');
    this.addSql('alter table label_creations add column carrier_account_id text null;');
    this.addSql('alter table label_creations add column waiting_for jsonb null;');
    this.addSql(
      `alter table label_creations add constraint label_creations_phase_check check (phase is null or phase in
         ('queued', 'preparing', 'waiting_for_lock', 'sending_to_carrier', 'waiting_for_carrier', 'finalizing'));`,
    );
    this.addSql(
      `create unique index label_creations_bound_key_idx on label_creations (store_id, idempotency_key)
         where key_bound;`,
    );
    this.addSql('create index label_creations_store_updated_idx on label_creations (store_id, updated_at, id);');
    this.addSql(
      'create index label_creations_store_client_ref_idx on label_creations (store_id, client_reference) where client_reference is not null;',
    );
    // The order tag a creation adds after a new label (side effect `order_tags`); null: none.
    this.addSql('alter table carrier_accounts add column label_tag text null;');
    this.addSql(`
      create table fulfillment_order_locks (
        store_id text not null references stores (id) on delete cascade,
        fulfillment_order_gid text not null,
        label_creation_id text not null references label_creations (id) on delete cascade,
        workflow_id text not null,
        acquired_at timestamptz not null default now(),
        primary key (store_id, fulfillment_order_gid)
      );`);
    this.addSql('create index fulfillment_order_locks_creation_idx on fulfillment_order_locks (label_creation_id);');
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists fulfillment_order_locks;');
    this.addSql('alter table carrier_accounts drop column label_tag;');
    this.addSql('drop index if exists label_creations_store_client_ref_idx;');
    this.addSql('drop index if exists label_creations_store_updated_idx;');
    this.addSql('drop index if exists label_creations_bound_key_idx;');
    this.addSql('alter table label_creations drop constraint if exists label_creations_phase_check;');
    this.addSql('alter table label_creations drop column waiting_for;');
    this.addSql('alter table label_creations drop column carrier_account_id;');
    this.addSql('alter table label_creations drop column sent_at;');
    this.addSql('alter table label_creations drop column label_ids;');
    this.addSql('alter table label_creations drop column api_key_id;');
    this.addSql('alter table label_creations drop column key_bound;');
  }
}

import { Migration } from '@mikro-orm/migrations';

export class Migration20261122002000Labels extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table store_settings (
        store_id text primary key references stores (id) on delete cascade,
        cod_rule_enabled boolean not null default false,
        cod_rule jsonb null,
        updated_at timestamptz not null default now()
      );`);
    this.addSql(`
      create table carrier_accounts (
        id text primary key,
        store_id text not null references stores (id) on delete cascade,
        carrier_code text not null,
        name text not null,
        currency text not null,
        services jsonb not null default '[]',
        options jsonb not null default '{}',
        declared_value_supported boolean not null default false,
        cod_rounding_by_currency jsonb not null default '{}',
        print_tag text null,
        api_creation text not null default 'enabled' check (api_creation in ('enabled', 'not_enabled')),
        sender jsonb not null default '{}',
        printer_type text null,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      );`);
    this.addSql('create index carrier_accounts_store_idx on carrier_accounts (store_id, created_at, id);');
    this.addSql(`
      create table carrier_rules (
        id text primary key,
        store_id text not null references stores (id) on delete cascade,
        priority integer not null,
        conditions jsonb not null default '{}',
        carrier_account_id text not null references carrier_accounts (id) on delete cascade,
        service_code text not null,
        created_at timestamptz not null default now(),
        unique (store_id, priority)
      );`);
    this.addSql(`
      create table labels (
        id text primary key,
        seq bigserial not null unique,
        store_id text not null references stores (id) on delete cascade,
        order_gid text not null,
        order_legacy_id text not null,
        order_name text not null,
        order_name_key text not null,
        direction text not null check (direction in ('outbound', 'return')),
        kind text not null check (kind in ('shipment', 'claim', 'collection')),
        status text not null check (status in ('pending', 'ready', 'failed')),
        failure_reason text null check (failure_reason in ('carrier_import_rejected', 'not_finalized')),
        carrier_account_id text null references carrier_accounts (id) on delete set null,
        carrier_code text not null,
        carrier_name text not null,
        service_code text null,
        service_name text null,
        source text null check (source in ('admin', 'flow', 'api')),
        cod_amount numeric(12, 2) null,
        cod_currency text null,
        cod_source text null,
        declared_value_amount numeric(12, 2) null,
        declared_value_currency text null,
        tracking_number text null,
        tracking_url text null,
        parcels jsonb not null default '[]',
        batch_id text null,
        extras jsonb not null default '{}',
        label_creation_id text null,
        coverage_known boolean not null default true,
        created_at timestamptz not null check (created_at = date_trunc('second', created_at)),
        updated_at timestamptz null,
        printed_count integer not null default 0,
        last_printed_at timestamptz null,
        current boolean not null default false,
        supersedes text[] not null default '{}',
        superseded_by text[] not null default '{}',
        current_set text not null default 'ok' check (current_set in ('ok', 'ambiguous')),
        check ((status = 'failed') = (failure_reason is not null))
      );`);
    // Keyset pagination in both sort directions (a b-tree is read backwards for the other one).
    this.addSql('create index labels_store_created_idx on labels (store_id, created_at, id);');
    this.addSql('create index labels_store_order_idx on labels (store_id, order_gid, direction);');
    this.addSql('create index labels_store_order_name_idx on labels (store_id, order_name_key);');
    this.addSql('create index labels_store_batch_idx on labels (store_id, batch_id) where batch_id is not null;');
    this.addSql(
      'create index labels_store_tracking_idx on labels (store_id, tracking_number) where tracking_number is not null;',
    );
    this.addSql(
      'create index labels_store_updated_idx on labels (store_id, updated_at, id) where updated_at is not null;',
    );
    this.addSql('create index labels_store_state_idx on labels (store_id, direction, status, current, created_at);');
    this.addSql('create index labels_creation_idx on labels (label_creation_id) where label_creation_id is not null;');
    this.addSql(`
      create table label_fulfillment_orders (
        label_id text not null references labels (id) on delete cascade,
        fulfillment_order_gid text not null,
        fulfillment_order_legacy_id text not null,
        store_id text not null,
        primary key (label_id, fulfillment_order_gid)
      );`);
    this.addSql(
      'create index label_fulfillment_orders_fo_idx on label_fulfillment_orders (store_id, fulfillment_order_gid);',
    );
    this.addSql(`
      create table label_documents (
        label_id text primary key references labels (id) on delete cascade,
        pdf bytea not null,
        page_size text not null,
        page_count integer not null check (page_count > 0),
        byte_size integer not null,
        not_isolated boolean not null default false,
        stored_at timestamptz not null default now()
      );`);
    this.addSql(`
      create table label_creations (
        id text primary key,
        store_id text not null references stores (id) on delete cascade,
        status text not null check (status in ('processing', 'succeeded', 'failed', 'needs_attention', 'abandoned')),
        phase text null,
        idempotency_key text not null,
        request_hash text not null,
        order_gid text not null,
        order_legacy_id text not null,
        order_name text not null,
        fulfillment_order_gids text[] not null default '{}',
        created boolean null,
        requested jsonb not null default '{}',
        resolved jsonb not null default '{}',
        warnings jsonb not null default '[]',
        side_effects jsonb not null default '{}',
        error jsonb null,
        attention jsonb null,
        client_reference text null check (char_length(client_reference) <= 64),
        workflow_id text null,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      );`);
    this.addSql('create index label_creations_store_created_idx on label_creations (store_id, created_at, id);');
    this.addSql(
      'create index label_creations_store_key_idx on label_creations (store_id, idempotency_key, created_at);',
    );
    this.addSql('create index label_creations_store_order_idx on label_creations (store_id, order_gid);');
    this.addSql('create index label_creations_store_status_idx on label_creations (store_id, status);');
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists label_creations;');
    this.addSql('drop table if exists label_documents;');
    this.addSql('drop table if exists label_fulfillment_orders;');
    this.addSql('drop table if exists labels;');
    this.addSql('drop table if exists carrier_rules;');
    this.addSql('drop table if exists carrier_accounts;');
    this.addSql('drop table if exists store_settings;');
  }
}

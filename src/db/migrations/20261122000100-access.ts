import { Migration } from '@mikro-orm/migrations';

export class Migration20261122000100Access extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table stores (
        id text primary key,
        name text not null,
        domain text not null unique,
        email text not null,
        app_installed boolean not null default true,
        api_enabled boolean not null default false,
        paused_by_support boolean not null default false,
        subscription_active boolean not null default false,
        free_access boolean not null default false,
        write_access boolean not null default false,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      );`);
    this.addSql(`
      create table api_keys (
        id text primary key,
        store_id text not null references stores (id) on delete cascade,
        name text not null,
        secret_hash text not null unique,
        secret_last4 text not null,
        scopes text[] not null,
        pinned_version text not null,
        created_at timestamptz not null default now(),
        expires_at timestamptz null,
        revoked_at timestamptz null,
        last_used_at timestamptz null,
        rotated_from_id text null references api_keys (id)
      );`);
    this.addSql('create index api_keys_store_idx on api_keys (store_id, created_at desc);');
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists api_keys;');
    this.addSql('drop table if exists stores;');
  }
}

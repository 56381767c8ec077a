import { Migration } from '@mikro-orm/migrations';

export class Migration20261123020000PickupPointProviders extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table pickup_point_providers (
        id text primary key,
        store_id text not null references stores (id) on delete cascade,
        code text not null,
        name text not null,
        url text not null,
        headers_sealed text not null,
        enabled boolean not null default true,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now(),
        unique (store_id, code)
      );`);
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists pickup_point_providers;');
  }
}

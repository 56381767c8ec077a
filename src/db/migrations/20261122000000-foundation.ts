import { Migration } from '@mikro-orm/migrations';

export class Migration20261122000000Foundation extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table request_log (
        id bigserial primary key,
        request_id text not null,
        store_id text null,
        api_key_id text null,
        method text not null,
        endpoint text null,
        status integer not null,
        error_code text null,
        ip text null,
        label_count integer null,
        byte_size integer null,
        created_at timestamptz not null default now()
      );`);
    this.addSql('create index request_log_store_created_idx on request_log (store_id, created_at desc);');
    this.addSql('create index request_log_created_idx on request_log (created_at);');
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists request_log;');
  }
}

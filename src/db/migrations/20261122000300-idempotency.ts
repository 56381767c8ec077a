import { Migration } from '@mikro-orm/migrations';

export class Migration20261122000300Idempotency extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table idempotency_keys (
        store_id text not null references stores (id) on delete cascade,
        endpoint text not null,
        key text not null,
        request_hash text not null,
        state text not null check (state in ('in_flight', 'completed')),
        response_status integer null,
        response_body jsonb null,
        response_headers jsonb null,
        created_at timestamptz not null,
        completed_at timestamptz null,
        primary key (store_id, endpoint, key)
      );`);
    this.addSql('create index idempotency_keys_created_idx on idempotency_keys (created_at);');
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists idempotency_keys;');
  }
}

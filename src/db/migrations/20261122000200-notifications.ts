import { Migration } from '@mikro-orm/migrations';

export class Migration20261122000200Notifications extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table notifications (
        id bigserial primary key,
        store_id text not null references stores (id) on delete cascade,
        kind text not null,
        to_address text not null,
        subject text not null,
        body text not null,
        created_at timestamptz not null default now(),
        sent_at timestamptz null,
        attempts integer not null default 0,
        last_error text null
      );`);
    this.addSql('create index notifications_pending_idx on notifications (created_at) where sent_at is null;');
    this.addSql('create index notifications_store_idx on notifications (store_id, created_at desc);');
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists notifications;');
  }
}

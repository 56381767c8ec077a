import { Migration } from '@mikro-orm/migrations';

export class Migration20261122000400RenderLeases extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table render_leases (
        label_id text not null,
        format text not null,
        store_id text not null,
        acquired_at timestamptz not null,
        expires_at timestamptz not null,
        primary key (label_id, format)
      );`);
    this.addSql('create index render_leases_store_idx on render_leases (store_id, expires_at);');
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists render_leases;');
  }
}

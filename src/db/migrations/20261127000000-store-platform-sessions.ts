import { Migration } from '@mikro-orm/migrations';

/**
 * The store platform a store is on and its session there (docs/decisions/0702-store-platform-sessions.md): no row is
 * the sandbox platform; a row is Shopify with the offline Admin API access token sealed under
 * `SETTINGS_ENCRYPTION_KEY`, or without one (disconnected: no usable session, `shopify_unavailable`).
 */
export class Migration20261127000000StorePlatformSessions extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table store_platform_sessions (
         store_id text primary key references stores (id) on delete cascade,
         platform text not null check (platform in ('shopify')),
         access_token_sealed text null,
         token_ending text null,
         connected_at timestamptz not null,
         updated_at timestamptz not null
       );`,
    );
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists store_platform_sessions;');
  }
}

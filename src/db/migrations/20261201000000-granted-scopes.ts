import { Migration } from '@mikro-orm/migrations';

/**
 * The access scopes a Shopify installation held when it was last checked (`labelctl store connect`, `labelctl store
 * platform --check`): what `labelctl store platform` shows against the required ones (docs/decisions/0706). Null: not
 * checked yet (a store connected before this).
 */
export class Migration20261201000000GrantedScopes extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table store_platform_sessions add column granted_scopes text[] null;');
    this.addSql('alter table store_platform_sessions add column scopes_checked_at timestamptz null;');
  }

  override async down(): Promise<void> {
    this.addSql('alter table store_platform_sessions drop column scopes_checked_at;');
    this.addSql('alter table store_platform_sessions drop column granted_scopes;');
  }
}

import { Migration } from '@mikro-orm/migrations';

/**
 * Expiring offline access tokens (docs/shopify.md, "Tokens"; decisions 0710 and 0711): a Shopify session keeps when its
 * access token expires, its refresh token (sealed as the access token is) and when that expires; where the token came
 * from (`app`: the public app's install; `custom_app`: `labelctl store connect`; null: stored before this, not known);
 * and, once Shopify refused the app's tokens for good, when and why (the store's `app_installed` gate is closed then).
 */
export class Migration20261210000000ExpiringShopifyTokens extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table store_platform_sessions
        add column token_origin text null check (token_origin in ('app', 'custom_app')),
        add column access_token_expires_at timestamptz null,
        add column refresh_token_sealed text null,
        add column refresh_token_expires_at timestamptz null,
        add column access_lost_at timestamptz null,
        add column access_lost_reason text null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`
      alter table store_platform_sessions
        drop column access_lost_reason, drop column access_lost_at, drop column refresh_token_expires_at,
        drop column refresh_token_sealed, drop column access_token_expires_at, drop column token_origin;`);
  }
}

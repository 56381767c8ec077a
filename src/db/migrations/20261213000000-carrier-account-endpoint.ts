import { Migration } from '@mikro-orm/migrations';

/**
 * A carrier A account names whom its calls go to: the sandbox (every account so far) or Packeta, with Packeta's
 * settings and its API password sealed like every secret (docs/carriers/packeta.md, decision 1204).
 */
export class Migration20261213000000CarrierAccountEndpoint extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `alter table carrier_accounts
         add column endpoint text not null default 'sandbox' check (endpoint in ('sandbox', 'packeta')),
         add column endpoint_settings jsonb null,
         add column api_password_sealed text null,
         add constraint carrier_accounts_packeta_complete check (
           endpoint = 'sandbox'
           or (carrier_code = 'carrier_a' and endpoint_settings is not null and api_password_sealed is not null));`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(
      `alter table carrier_accounts drop constraint carrier_accounts_packeta_complete,
         drop column api_password_sealed, drop column endpoint_settings, drop column endpoint;`,
    );
  }
}

import { Migration } from '@mikro-orm/migrations';

/** What `fulfillment: account_default` on `POST /labels` means for an account (docs/decisions/0112). */
export class Migration20261123010000AccountDefaultFulfillment extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `alter table carrier_accounts add column default_fulfillment text not null default 'none'
         check (default_fulfillment in ('none', 'fulfill', 'fulfill_and_notify'));`,
    );
  }

  override async down(): Promise<void> {
    this.addSql('alter table carrier_accounts drop column default_fulfillment;');
  }
}

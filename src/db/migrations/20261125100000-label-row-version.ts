import { Migration } from '@mikro-orm/migrations';

/**
 * `labels.row_version` (docs/decisions/0020-label-json-cache.md): a number every insert and every update of a label row
 * takes afresh from one sequence, also the updates the coverage and document triggers make. The API keeps each label's
 * wire JSON in memory under its version; the hot reads ask PostgreSQL only for the IDs and versions of the labels they
 * answer with, and read a label's row again only when its version is not the one in memory. From a sequence rather
 * than counting per row, so a label deleted and inserted again under the same ID (a store removed and seeded anew)
 * never meets a version it had before.
 */
export class Migration20261125100000LabelRowVersion extends Migration {
  override async up(): Promise<void> {
    this.addSql('create sequence label_row_versions;');
    this.addSql("alter table labels add column row_version bigint not null default nextval('label_row_versions');");
    this.addSql(`
      create function label_row_version_bump() returns trigger language plpgsql as $fn$
      begin
        new.row_version := nextval('label_row_versions');
        return new;
      end
      $fn$;`);
    this.addSql(`
      create trigger label_row_version before update on labels
        for each row execute function label_row_version_bump();`);
  }

  override async down(): Promise<void> {
    this.addSql('drop trigger if exists label_row_version on labels;');
    this.addSql('drop function if exists label_row_version_bump();');
    this.addSql('alter table labels drop column if exists row_version;');
    this.addSql('drop sequence if exists label_row_versions;');
  }
}

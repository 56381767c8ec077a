import { Migration } from '@mikro-orm/migrations';

/**
 * `labels.row_version` (docs/decisions/0020-label-json-cache.md): a counter every update of a label row moves, also the
 * updates the coverage and document triggers make. The API keeps each label's wire JSON in memory under its version;
 * the hot reads ask PostgreSQL only for the IDs and versions of the labels they answer with, and read a label's row
 * again only when its version is not the one in memory.
 */
export class Migration20261125100000LabelRowVersion extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table labels add column row_version bigint not null default 1;');
    this.addSql(`
      create function label_row_version_bump() returns trigger language plpgsql as $fn$
      begin
        new.row_version := old.row_version + 1;
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
  }
}

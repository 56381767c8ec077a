import { Migration } from '@mikro-orm/migrations';

/**
 * Unclear outcomes (spec `POST /label-creations/{id}/resolve`): the merchant's resolution of a creation, with who
 * resolved it and their note, so a repeat of the same outcome answers 200 and another one `already_resolved` even
 * after the creation's workflow ended.
 */
export class Migration20261123050000UnresolvedCreations extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table label_creations add column resolution jsonb null;');
  }

  override async down(): Promise<void> {
    this.addSql('alter table label_creations drop column resolution;');
  }
}

import { Migration } from '@mikro-orm/migrations';

/**
 * Keys created before 20 October 2026 with `labels:write` or `label_documents:read` hold `labels:print` (spec
 * "Authentication"; docs/decisions/0032-labels-print-for-earlier-keys.md): written into their stored scopes, as key
 * creation now writes it (`scopesForNewKey`), so every check reads the stored scopes alone. Idempotent. The instant and
 * the scopes are `LABELS_PRINT_SINCE` and `PRINTING_BEFORE_LABELS_PRINT` of src/access/scopes.ts.
 */
export class Migration20261130000000LabelsPrintForEarlierKeys extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      update api_keys set scopes = array_append(scopes, 'labels:print')
       where created_at < timestamptz '2026-10-20T00:00:00Z'
         and scopes && array['labels:write', 'label_documents:read']::text[]
         and not (scopes @> array['labels:print']::text[]);`);
  }

  override async down(): Promise<void> {
    // Which keys were given `labels:print` by this step is not recorded; they keep it.
  }
}

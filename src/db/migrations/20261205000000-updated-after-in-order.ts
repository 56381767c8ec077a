import { Migration } from '@mikro-orm/migrations';

/**
 * The labels and creations in flight at an `updated_after` bound read in the page's order (decision 0119). The GiST
 * index on `(store_id, span)` found them unordered, so a page read and sorted all of them, on every read of a
 * post-filter scan; with `created_at` as a third column a nearest-first scan (btree_gist's `<->`) returns them in
 * creation order, stops after the page's rows and starts at a cursor. It replaces the two-column index, which no
 * statement reads any more. `if not exists`: an operator of a large database may build them beforehand with `create
 * index concurrently` (docs/operators.md), since a plain build holds the table's writes.
 */
const SPAN = "tstzrange(created_at, greatest(created_at, updated_at), '(]')";

export class Migration20261205000000UpdatedAfterInOrder extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create index if not exists labels_store_update_span_created_idx on labels
         using gist (store_id, ${SPAN}, created_at) where updated_at is not null;`,
    );
    this.addSql('drop index if exists labels_store_update_span_idx;');
    this.addSql(
      `create index if not exists label_creations_store_update_span_created_idx on label_creations
         using gist (store_id, ${SPAN}, created_at);`,
    );
    this.addSql('drop index if exists label_creations_store_update_span_idx;');
  }

  override async down(): Promise<void> {
    this.addSql(
      `create index if not exists labels_store_update_span_idx on labels
         using gist (store_id, ${SPAN}) where updated_at is not null;`,
    );
    this.addSql('drop index if exists labels_store_update_span_created_idx;');
    this.addSql(
      `create index if not exists label_creations_store_update_span_idx on label_creations
         using gist (store_id, ${SPAN});`,
    );
    this.addSql('drop index if exists label_creations_store_update_span_created_idx;');
  }
}

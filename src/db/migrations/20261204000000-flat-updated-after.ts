import { Migration } from '@mikro-orm/migrations';

/**
 * `updated_after` read at the cost of the page, not of the store (docs/decisions/0104-updated-after-in-two-parts.md).
 * A page of labels or creations updated at or after X, in creation order, is two index reads:
 * - created at or after X: every such row updated at or after X is one updated at all, read in the list's order
 *   (labels: a partial index of the updated labels; creations: their list index, since every creation has an
 *   `updated_at` at or after its `created_at`);
 * - created before X and updated at or after it: the rows whose span `(created_at, updated_at]` contains X, found by a
 *   GiST index on that span beside the store (btree_gist, a contrib extension PostgreSQL trusts its database owners with).
 * `greatest` keeps the span valid on a row whose `updated_at` precedes its `created_at` (fixture data): an empty span
 * that contains nothing, as such a row was never updated after anything it was created before.
 * The label indexes the read path no longer uses go (decision 0106): `(store_id, updated_at, id)`, now served by the
 * two above, and `(store_id, direction, status, current, created_at)`, which no statement reads (post-filters are
 * applied to keyset rows, decision 0102); each cost every label write an index entry. Creations filtered by `status`
 * or `order_name` get their list order in the index (decision 0107).
 */
export class Migration20261204000000FlatUpdatedAfter extends Migration {
  override async up(): Promise<void> {
    // Plans for the largest store (decision 0106): a prepared list statement runs on its generic plan, which PostgreSQL
    // prices for a store of average size (rows / distinct stores), so it reads a tiny store's way (bitmap scan, then
    // sort) and takes hundreds of milliseconds on a store of millions. Told that a store may hold the whole table,
    // it reads the list's index in order with its limit, which is as fast on a small store.
    for (const table of ['labels', 'label_creations']) {
      this.addSql(`alter table ${table} alter column store_id set (n_distinct = 1);`);
      this.addSql(`analyze ${table};`);
    }
    this.addSql('create extension if not exists btree_gist;');
    this.addSql(
      'create index labels_store_updated_created_idx on labels (store_id, created_at, seq) where updated_at is not null;',
    );
    this.addSql(
      `create index labels_store_update_span_idx on labels
         using gist (store_id, tstzrange(created_at, greatest(created_at, updated_at), '(]')) where updated_at is not null;`,
    );
    this.addSql('drop index if exists labels_store_updated_idx;');
    this.addSql('drop index if exists labels_store_state_idx;');
    this.addSql(
      `create index label_creations_store_update_span_idx on label_creations
         using gist (store_id, tstzrange(created_at, greatest(created_at, updated_at), '(]'));`,
    );
    this.addSql('drop index if exists label_creations_store_updated_idx;');
    this.addSql(
      'create index label_creations_store_status_created_idx on label_creations (store_id, status, created_at, seq);',
    );
    this.addSql('drop index if exists label_creations_store_status_idx;');
    this.addSql(
      `create index label_creations_store_order_name_idx
         on label_creations (store_id, (lower(regexp_replace(order_name, '^#', ''))), created_at, seq);`,
    );
  }

  override async down(): Promise<void> {
    for (const table of ['labels', 'label_creations']) {
      this.addSql(`alter table ${table} alter column store_id reset (n_distinct);`);
    }
    this.addSql('drop index if exists label_creations_store_order_name_idx;');
    this.addSql('create index if not exists label_creations_store_status_idx on label_creations (store_id, status);');
    this.addSql('drop index if exists label_creations_store_status_created_idx;');
    this.addSql(
      'create index if not exists label_creations_store_updated_idx on label_creations (store_id, updated_at, id);',
    );
    this.addSql('drop index if exists label_creations_store_update_span_idx;');
    this.addSql(
      'create index if not exists labels_store_state_idx on labels (store_id, direction, status, current, created_at);',
    );
    this.addSql(
      'create index if not exists labels_store_updated_idx on labels (store_id, updated_at, id) where updated_at is not null;',
    );
    this.addSql('drop index if exists labels_store_update_span_idx;');
    this.addSql('drop index if exists labels_store_updated_created_idx;');
  }
}

import { Migration } from '@mikro-orm/migrations';

/**
 * `api_admit` (docs/decisions/0017-admission-in-one-statement.md): a keyed request's authentication and its rate-limit
 * charge in ONE statement, the read path's fixed cost. It reads the key and its store by the secret's hash and, only
 * when the key is usable for the route (not revoked or expired at the caller's clock, every store gate open, the scope
 * held), takes the request's buckets with `rate_limit_take`. The key row always comes back (none for an unknown key),
 * so the API answers every refusal from it exactly as the separate lookup does; the `taken_*` arrays are null when
 * nothing was taken. The predicate mirrors `gateRefusal` and `holdsScope` (src/access/): the API checks the mirror on
 * every answer and corrects a disagreement (charges, or gives the units back), so the mirror decides only speed.
 *
 * A hot route's read rides along in the same statement (src/http/admission.ts): its row count is the argument
 * `p_read_rows`, so the read runs before the function takes any counter row, which stays locked only for the rest of
 * the statement, not for the read. `read_allowed` says whether its rows may be answered: the units were taken for a
 * key of the store they were read for (`p_read_store`).
 *
 * `labels.coverage`: the label's fulfillment orders as JSON pairs (`[[gid, legacy_id], ...]`, by gid),
 * kept by triggers on `label_fulfillment_orders` (still the source, and the index by fulfillment order), so a page of
 * labels reads its coverage without a subquery per label: the list's largest cost in PostgreSQL. Likewise
 * `labels.document_stored` and `labels.document_not_isolated` from `label_documents` (which keeps the bytes), so a page
 * needs no join for them.
 */
export class Migration20261124000000Admission extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table labels add column coverage jsonb not null default '[]';`);
    this.addSql(`
      create function label_coverage_of(p_label text) returns jsonb language sql stable as $fn$
        select coalesce(jsonb_agg(jsonb_build_array(f.fulfillment_order_gid, f.fulfillment_order_legacy_id)
                                  order by f.fulfillment_order_gid), '[]')
          from label_fulfillment_orders f where f.label_id = p_label;
      $fn$;`);
    this.addSql(`
      create function label_coverage_added() returns trigger language plpgsql as $fn$
      begin
        update labels l set coverage = label_coverage_of(l.id) where l.id in (select distinct label_id from added);
        return null;
      end
      $fn$;`);
    // Updates and deletes (`new` is null on a delete): the labels on both sides.
    this.addSql(`
      create function label_coverage_changed() returns trigger language plpgsql as $fn$
      begin
        update labels l set coverage = label_coverage_of(l.id) where l.id in (old.label_id, new.label_id);
        return null;
      end
      $fn$;`);
    this.addSql(`
      create trigger label_coverage_added after insert on label_fulfillment_orders
        referencing new table as added for each statement execute function label_coverage_added();`);
    this.addSql(`
      create trigger label_coverage_changed after update or delete on label_fulfillment_orders
        for each row execute function label_coverage_changed();`);
    this.addSql(`update labels l set coverage = label_coverage_of(l.id)
                  where exists (select 1 from label_fulfillment_orders f where f.label_id = l.id);`);
    this.addSql(`
      alter table labels add column document_stored boolean not null default false,
                         add column document_not_isolated boolean not null default false;`);
    this.addSql(`
      create function label_document_changed() returns trigger language plpgsql as $fn$
      begin
        if tg_op in ('UPDATE', 'DELETE') then
          update labels set document_stored = false, document_not_isolated = false where id = old.label_id;
        end if;
        if tg_op in ('INSERT', 'UPDATE') then
          update labels set document_stored = true, document_not_isolated = new.not_isolated where id = new.label_id;
        end if;
        return null;
      end
      $fn$;`);
    this.addSql(`
      create trigger label_document_changed after insert or update of label_id, not_isolated or delete
        on label_documents for each row execute function label_document_changed();`);
    this.addSql(`update labels l set document_stored = true, document_not_isolated = d.not_isolated
                  from label_documents d where d.label_id = l.id;`);
    this.addSql(`
      create function api_admit(
        p_hash text, p_now_ms bigint, p_write boolean, p_scope_grants text[],
        p_buckets text[], p_key_scoped boolean[], p_windows integer[], p_limits integer[], p_units integer[],
        p_read_store text, p_read_rows integer)
      returns table (
        key_id text, key_store_id text, key_secret_hash text, key_scopes text[], key_pinned_version text,
        key_revoked_at timestamptz, key_expires_at timestamptz, key_last_used_at timestamptz,
        store_app_installed boolean, store_api_enabled boolean, store_paused_by_support boolean,
        store_subscription_active boolean, store_free_access boolean, store_write_access boolean,
        taken_buckets text[], taken_limits integer[], taken_used integer[], taken_window_starts bigint[],
        taken_allowed boolean[], read_allowed boolean)
      -- One row at most: a planner that assumed the default 1,000 would cost a carried read a thousand times over.
      language plpgsql rows 1 as $fn$
      declare
        k record;
      begin
        select a.id, a.store_id, a.secret_hash, a.scopes, a.pinned_version, a.revoked_at, a.expires_at, a.last_used_at,
               s.app_installed, s.api_enabled, s.paused_by_support, s.subscription_active, s.free_access, s.write_access
          into k
          from api_keys a join stores s on s.id = a.store_id
         where a.secret_hash = p_hash;
        if not found then
          return;
        end if;
        key_id := k.id; key_store_id := k.store_id; key_secret_hash := k.secret_hash; key_scopes := k.scopes;
        key_pinned_version := k.pinned_version; key_revoked_at := k.revoked_at; key_expires_at := k.expires_at;
        key_last_used_at := k.last_used_at;
        store_app_installed := k.app_installed; store_api_enabled := k.api_enabled;
        store_paused_by_support := k.paused_by_support; store_subscription_active := k.subscription_active;
        store_free_access := k.free_access; store_write_access := k.write_access;
        if k.revoked_at is null
           and (k.expires_at is null or k.expires_at > to_timestamp(p_now_ms / 1000.0))
           and k.app_installed and k.api_enabled and not k.paused_by_support
           and (k.subscription_active or k.free_access)
           and (not p_write or k.write_access)
           and (p_scope_grants is null or k.scopes && p_scope_grants) then
          select array_agg(t.bucket), array_agg(t.lim), array_agg(t.used), array_agg(t.window_start), array_agg(t.allowed)
            into taken_buckets, taken_limits, taken_used, taken_window_starts, taken_allowed
            from rate_limit_take(k.store_id, k.id, p_now_ms, p_buckets, p_key_scoped, p_windows, p_limits, p_units) t;
          read_allowed := k.store_id = p_read_store and true = all(taken_allowed);
        end if;
        return next;
      end
      $fn$;`);
    // A request refused after its units were taken (the mirror above disagreed with the API) gives them back.
    this.addSql(`
      create function rate_limit_give_back(
        p_store text, p_key text, p_buckets text[], p_key_scoped boolean[], p_window_starts bigint[], p_units integer[])
      returns void language sql as $fn$
        update rate_limit_counters r set used = greatest(0, r.used - x.units)
          from unnest(p_buckets, p_key_scoped, p_window_starts, p_units) as x(bucket, key_scoped, window_start, units)
         where r.bucket = x.bucket and r.subject = case when x.key_scoped then p_key else p_store end
           and r.window_start = x.window_start;
      $fn$;`);
  }

  override async down(): Promise<void> {
    this.addSql('drop trigger if exists label_document_changed on label_documents;');
    this.addSql('drop function if exists label_document_changed();');
    this.addSql(
      'alter table labels drop column if exists document_stored, drop column if exists document_not_isolated;',
    );
    this.addSql('drop trigger if exists label_coverage_changed on label_fulfillment_orders;');
    this.addSql('drop trigger if exists label_coverage_added on label_fulfillment_orders;');
    this.addSql('drop function if exists label_coverage_changed();');
    this.addSql('drop function if exists label_coverage_added();');
    this.addSql('drop function if exists label_coverage_of(text);');
    this.addSql('alter table labels drop column if exists coverage;');
    this.addSql('drop function if exists rate_limit_give_back(text, text, text[], boolean[], bigint[], integer[]);');
    this.addSql(
      'drop function if exists api_admit(text, bigint, boolean, text[], text[], boolean[], integer[], integer[], integer[], text, integer);',
    );
  }
}

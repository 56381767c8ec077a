import { Migration } from '@mikro-orm/migrations';

/**
 * The two rules of the fulfillment-order locks (decision 0010) defined once, in SQL, for every caller: the TypeScript
 * reads (`orderLabelState`, `liveLocks` in src/locks/fulfillment-order-locks.ts) and `fulfillment_order_locks_take`
 * call the same functions, so the state the decision saw and the state checked under the locks cannot drift apart.
 *
 * - `order_label_state`: what a creation's decision depended on, as one comparable string (the order's current
 *   outbound labels with their status, and its blocking creations besides the deciding one).
 * - `fulfillment_order_lock_live`: whether a lock's holder is alive (needs attention, or processing and moved within
 *   the stale time).
 */
export class Migration20261125000300LockRulesOnce extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create or replace function order_label_state(p_store text, p_order text, p_self text)
      returns text language sql stable as $$
        select coalesce(string_agg(s.item, ',' order by s.item), '') from (
          select l.id || ':' || l.status as item from labels l
           where l.store_id = p_store and l.order_gid = p_order and l.direction = 'outbound' and l.current
          union all
          select c.id || ':' || c.status from label_creations c
           where c.store_id = p_store and c.order_gid = p_order and c.id <> p_self
             and c.status in ('needs_attention', 'abandoned')
        ) s
      $$;`);
    this.addSql(`
      create or replace function fulfillment_order_lock_live(p_status text, p_updated_at timestamptz, p_stale_secs float8)
      returns boolean language sql stable as $$
        select p_status = 'needs_attention'
            or (p_status = 'processing' and p_updated_at > now() - make_interval(secs => p_stale_secs))
      $$;`);
    this.addSql(`
      create or replace function fulfillment_order_locks_take(
        p_store text, p_creation text, p_workflow text, p_order text, p_gids text[], p_stale_secs float8,
        p_expected_state text
      ) returns table (r_outcome text, r_gid text, r_creation text, r_workflow text)
      language plpgsql volatile as $$
      declare
        v_gid text;
      begin
        delete from fulfillment_order_locks l
         using label_creations c
         where l.store_id = p_store and l.fulfillment_order_gid = any (p_gids) and c.id = l.label_creation_id
           and not fulfillment_order_lock_live(c.status, c.updated_at, p_stale_secs);
        for v_gid in select distinct u.g collate "C" from unnest(p_gids) u (g) order by 1 loop
          insert into fulfillment_order_locks (store_id, fulfillment_order_gid, label_creation_id, workflow_id)
          values (p_store, v_gid, p_creation, p_workflow) on conflict do nothing;
        end loop;
        return query
          select 'held'::text, l.fulfillment_order_gid, l.label_creation_id, l.workflow_id
            from fulfillment_order_locks l
           where l.store_id = p_store and l.fulfillment_order_gid = any (p_gids) and l.label_creation_id <> p_creation
           order by l.fulfillment_order_gid;
        if found then
          delete from fulfillment_order_locks l where l.label_creation_id = p_creation;
          return;
        end if;
        if order_label_state(p_store, p_order, p_creation) <> p_expected_state then
          delete from fulfillment_order_locks l where l.label_creation_id = p_creation;
          return query select 'stale'::text, null::text, null::text, null::text;
          return;
        end if;
        return query select 'acquired'::text, null::text, null::text, null::text;
      end $$;`);
  }

  override async down(): Promise<void> {
    this.addSql('drop function if exists fulfillment_order_lock_live(text, timestamptz, float8);');
    this.addSql('drop function if exists order_label_state(text, text, text);');
  }
}

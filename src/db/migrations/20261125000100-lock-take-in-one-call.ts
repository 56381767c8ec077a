import { Migration } from '@mikro-orm/migrations';

/**
 * `fulfillment_order_locks_take` (docs/decisions/0019-creation-statements.md): `acquireLocks`
 * (src/locks/fulfillment-order-locks.ts, decision 0010) in one call instead of a round trip per step: stale holders'
 * locks go, the wanted rows go in in sorted order (two creations wanting overlapping sets queue on the lowest shared
 * key, never deadlock), and then either the live holders come back (`held`, its own rows released), or the order's
 * label state differs from the one the decision saw (`stale`, released), or the creation holds them all
 * (`acquired`). Migration 20261125000300 redefines it over the rules it shares with the TypeScript reads.
 */
export class Migration20261125000100LockTakeInOneCall extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create or replace function fulfillment_order_locks_take(
        p_store text, p_creation text, p_workflow text, p_order text, p_gids text[], p_stale_secs float8,
        p_expected_state text
      ) returns table (r_outcome text, r_gid text, r_creation text, r_workflow text)
      language plpgsql volatile as $$
      declare
        v_gid text;
        v_state text;
      begin
        delete from fulfillment_order_locks l
         using label_creations c
         where l.store_id = p_store and l.fulfillment_order_gid = any (p_gids) and c.id = l.label_creation_id
           and not (c.status = 'needs_attention'
                    or (c.status = 'processing' and c.updated_at > now() - make_interval(secs => p_stale_secs)));
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
        select coalesce(string_agg(s.item, ',' order by s.item), '') into v_state from (
          select l.id || ':' || l.status as item from labels l
           where l.store_id = p_store and l.order_gid = p_order and l.direction = 'outbound' and l.current
          union all
          select c.id || ':' || c.status from label_creations c
           where c.store_id = p_store and c.order_gid = p_order and c.id <> p_creation
             and c.status in ('needs_attention', 'abandoned')
        ) s;
        if v_state <> p_expected_state then
          delete from fulfillment_order_locks l where l.label_creation_id = p_creation;
          return query select 'stale'::text, null::text, null::text, null::text;
          return;
        end if;
        return query select 'acquired'::text, null::text, null::text, null::text;
      end $$;`);
  }

  override async down(): Promise<void> {
    this.addSql('drop function if exists fulfillment_order_locks_take(text, text, text, text, text[], float8, text);');
  }
}

import { Migration } from '@mikro-orm/migrations';

/**
 * Two of `POST /labels`'s limits in one call each (docs/decisions/0019-creation-statements.md), instead of a
 * transaction of five to eight round trips under a transaction-scoped advisory lock:
 *
 * - `wait_hold_take`: a `Prefer: wait` hold of an API key, refused (false) when the key already holds `p_max`.
 * - `creation_unit_reserve`: the creation's daily unit (and its `create_new` unit), taken only when every daily bucket
 *   still has room; answers the counts and limits the `X-RateLimit-*` headers and a 429 are built from.
 *
 * Both take the same advisory lock as before, so they stay exact across processes: in a VOLATILE plpgsql function
 * every statement after the lock reads a fresh snapshot (READ COMMITTED), so it sees what the previous holder
 * committed. The lock ends with the caller's statement. The TypeScript callers decide the answer from the numbers
 * returned; the comparison here only decides whether the row goes in, and mirrors theirs.
 */
export class Migration20261125000000CreationLimitsInOneCall extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create or replace function wait_hold_take(
        p_id uuid, p_key text, p_now timestamptz, p_expires_at timestamptz, p_max int
      ) returns boolean language plpgsql volatile as $$
      begin
        perform pg_advisory_xact_lock(hashtext('prefer_wait:' || p_key));
        delete from rate_limit_leases
         where kind = 'prefer_wait' and subject = p_key and (released_at is not null or expires_at <= p_now);
        if (select count(*) from rate_limit_leases where kind = 'prefer_wait' and subject = p_key) >= p_max then
          return false;
        end if;
        insert into rate_limit_leases (id, kind, subject, acquired_at, expires_at)
        values (p_id, 'prefer_wait', p_key, p_now, p_expires_at);
        return true;
      end $$;`);
    this.addSql(`
      create or replace function creation_unit_reserve(
        p_unit text, p_store text, p_day date, p_create_new boolean, p_now timestamptz, p_expires_at timestamptz,
        p_day_limit int, p_create_new_limit int,
        out total int, out create_new int, out mine boolean, out day_limit int, out create_new_limit int
      ) language plpgsql volatile as $$
      declare
        taking int;
      begin
        perform pg_advisory_xact_lock(hashtext('creation_units:' || p_store));
        -- Yesterday's rows stay for support questions; older ones go.
        delete from creation_units where store_id = p_store and day < p_day - 1;
        select count(*)::int, (count(*) filter (where u.create_new))::int, coalesce(bool_or(u.unit_id = p_unit), false)
          into total, create_new, mine
          from creation_units u
         where u.store_id = p_store and u.day = p_day
           and (u.state = 'confirmed' or (u.state = 'reserved' and u.expires_at > p_now));
        day_limit := coalesce(
          (select o."limit" from rate_limit_overrides o where o.store_id = p_store and o.bucket = 'write_shop_per_day'),
          p_day_limit);
        create_new_limit := coalesce(
          (select o."limit" from rate_limit_overrides o where o.store_id = p_store and o.bucket = 'create_new_daily'),
          p_create_new_limit);
        -- A unit already held is answered again, not taken twice.
        taking := case when mine then 0 else 1 end;
        if mine or total + taking > day_limit or (p_create_new and create_new + taking > create_new_limit) then
          return;
        end if;
        insert into creation_units (unit_id, store_id, day, create_new, state, reserved_at, expires_at)
        values (p_unit, p_store, p_day, p_create_new, 'reserved', p_now, p_expires_at)
        on conflict (unit_id) do update set store_id = excluded.store_id, day = excluded.day,
          create_new = excluded.create_new, state = 'reserved', reserved_at = excluded.reserved_at,
          expires_at = excluded.expires_at;
      end $$;`);
  }

  override async down(): Promise<void> {
    this.addSql(
      'drop function if exists creation_unit_reserve(text, text, date, boolean, timestamptz, timestamptz, int, int);',
    );
    this.addSql('drop function if exists wait_hold_take(uuid, text, timestamptz, timestamptz, int);');
  }
}

import { Migration } from '@mikro-orm/migrations';

/**
 * `write_queue_enter` (docs/decisions/0019-creation-statements.md): the write queue's admission (decision 0404,
 * src/limits/write-queue.ts) in one call under the same per-store advisory lock: released tickets older than the
 * recent window go, the waiting tickets are counted, the recent mean duration and support's cap override are read,
 * and the ticket goes in when the queue has room. The depth is `writeQueueDepth` (src/domain/rate-limits.ts) with
 * its constants passed in; the caller decides the answer with that function from the numbers returned and treats a
 * disagreement as a refusal, so this copy only decides whether the row goes in.
 */
export class Migration20261125000200WriteQueueInOneCall extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create or replace function write_queue_enter(
        p_id uuid, p_store text, p_now timestamptz, p_forget_before timestamptz, p_recent_count int,
        p_expires_at timestamptz, p_default_cap int, p_fast_seconds float8, p_min_depth int,
        out waiting int, out mean_seconds float8, out cap int, out entered boolean
      ) language plpgsql volatile as $$
      declare
        v_depth int;
      begin
        perform pg_advisory_xact_lock(hashtext('write_queue:' || p_store));
        delete from rate_limit_leases
         where kind = 'write_queue' and subject = p_store and coalesce(released_at, expires_at) < p_forget_before;
        select count(*)::int into waiting from rate_limit_leases
         where kind = 'write_queue' and subject = p_store and released_at is null and expires_at > p_now;
        select avg(extract(epoch from r.released_at - r.acquired_at))::float8 into mean_seconds from (
          select released_at, acquired_at from rate_limit_leases
           where kind = 'write_queue' and subject = p_store and released_at is not null
           order by released_at desc limit p_recent_count) r;
        cap := coalesce(
          (select o."limit" from rate_limit_overrides o where o.store_id = p_store and o.bucket = 'write_queue_depth'),
          p_default_cap);
        v_depth := case when coalesce(mean_seconds, 0) <= p_fast_seconds then cap
                        else greatest(least(p_min_depth, cap), floor(cap * p_fast_seconds / mean_seconds)::int) end;
        entered := waiting < v_depth;
        if entered then
          insert into rate_limit_leases (id, kind, subject, acquired_at, expires_at)
          values (p_id, 'write_queue', p_store, p_now, p_expires_at);
        end if;
      end $$;`);
  }

  override async down(): Promise<void> {
    this.addSql(
      'drop function if exists write_queue_enter(uuid, text, timestamptz, timestamptz, int, timestamptz, int, float8, int);',
    );
  }
}

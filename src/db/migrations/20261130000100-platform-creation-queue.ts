import { Migration } from '@mikro-orm/migrations';
import { Migration20261125000200WriteQueueInOneCall } from './20261125000200-write-queue-in-one-call';

/**
 * The platform-wide creation queue (docs/decisions/0407-platform-creation-queue.md) and the write-queue place on the
 * creation record:
 * - `write_queue_enter` gains `p_platform_cap`: once the store's queue has room, the write-queue places in use across
 *   every store are counted under one platform-wide advisory lock (taken after the store's, always in that order) and
 *   the place goes in only below the cap; `platform_full` says that the cap refused it. Null: no cap.
 * - A partial index keeps that count to the places in use.
 * - `label_creations.queue_ticket_id`: the place a creation holds, so the housekeeping sweep can hand back the place of
 *   a creation whose workflow is gone (its workflow input carries it too).
 */
export class Migration20261130000100PlatformCreationQueue extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table label_creations add column queue_ticket_id uuid null;');
    this.addSql(`create index rate_limit_leases_in_use_idx on rate_limit_leases (kind, expires_at)
                 where released_at is null;`);
    this.addSql(
      'drop function if exists write_queue_enter(uuid, text, timestamptz, timestamptz, int, timestamptz, int, float8, int);',
    );
    this.addSql(`
      create function write_queue_enter(
        p_id uuid, p_store text, p_now timestamptz, p_forget_before timestamptz, p_recent_count int,
        p_expires_at timestamptz, p_default_cap int, p_fast_seconds float8, p_min_depth int, p_platform_cap int,
        out waiting int, out mean_seconds float8, out cap int, out entered boolean, out platform_full boolean
      ) language plpgsql volatile as $$
      declare
        v_depth int;
      begin
        platform_full := false;
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
        if entered and p_platform_cap is not null then
          perform pg_advisory_xact_lock(hashtext('write_queue:platform'));
          platform_full := (select count(*) from rate_limit_leases
                             where kind = 'write_queue' and released_at is null and expires_at > p_now) >= p_platform_cap;
          entered := not platform_full;
        end if;
        if entered then
          insert into rate_limit_leases (id, kind, subject, acquired_at, expires_at)
          values (p_id, 'write_queue', p_store, p_now, p_expires_at);
        end if;
      end $$;`);
  }

  override async down(): Promise<void> {
    this.addSql(
      'drop function if exists write_queue_enter(uuid, text, timestamptz, timestamptz, int, timestamptz, int, float8, int, int);',
    );
    this.addSql('drop index if exists rate_limit_leases_in_use_idx;');
    this.addSql('alter table label_creations drop column queue_ticket_id;');
    // The function as it was before, from the migration that wrote it.
    const previous = new Migration20261125000200WriteQueueInOneCall(this.driver, this.config);
    await previous.up();
    for (const query of previous.getQueries()) this.addSql(query);
  }
}

import { Migration } from '@mikro-orm/migrations';

/**
 * Rate-limit state shared by every API process (docs/decisions/0400-rate-limit-counters.md):
 * - `rate_limit_counters`: one row per bucket and subject (API key or store) holding the current fixed window. UNLOGGED:
 *   counters are seconds-to-hours state, so a commit need not wait for a WAL flush while requests queue on the row; a
 *   PostgreSQL crash empties it (every window starts afresh).
 * - `rate_limit_take(store, key, now_ms, buckets...)`: the one statement a request runs. It takes every bucket of the
 *   request in bucket-name order (no deadlocks), reads the store's overrides in the same statement, and gives back
 *   everything when one bucket refuses, so a refused request counts in no bucket. A counter row held longer than the
 *   connection's `lock_timeout` fails the statement (the caller answers 503).
 * - `rate_limit_overrides`: support's per-store limits (`labelctl limits`), read by every request, so a change applies
 *   at once in every process.
 * - `rate_limit_leases`: the write queue's tickets and the `Prefer: wait` holds, with expiries so a crashed process frees
 *   its places.
 * - `creation_units`: the daily creation ledger (reserve, confirm, return), durable and idempotent per unit.
 */
export class Migration20261123040000RateLimits extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create unlogged table rate_limit_counters (
        bucket text not null,
        subject text not null,
        window_start bigint not null,
        used integer not null,
        primary key (bucket, subject)
      ) with (fillfactor = 50);`);
    this.addSql(`
      create table rate_limit_overrides (
        store_id text not null references stores (id) on delete cascade,
        bucket text not null,
        "limit" integer not null check ("limit" >= 0),
        updated_at timestamptz not null,
        primary key (store_id, bucket)
      );`);
    this.addSql(`
      create function rate_limit_take(
        p_store text, p_key text, p_now_ms bigint,
        p_buckets text[], p_key_scoped boolean[], p_windows integer[], p_limits integer[], p_units integer[])
      returns table (bucket text, lim integer, used integer, window_start bigint, allowed boolean)
      language plpgsql as $fn$
      declare
        c record;
        v_refused boolean := false;
      begin
        for c in
          select x.bucket, x.units, case when x.key_scoped then p_key else p_store end as subject,
                 coalesce(o."limit", x.lim) as lim,
                 p_now_ms - p_now_ms % (x.window_seconds::bigint * 1000) as window_start
          from unnest(p_buckets, p_key_scoped, p_windows, p_limits, p_units)
            as x(bucket, key_scoped, window_seconds, lim, units)
          left join rate_limit_overrides o on o.store_id = p_store and o.bucket = x.bucket
          order by x.bucket
        loop
          insert into rate_limit_counters as r (bucket, subject, window_start, used)
          values (c.bucket, c.subject, c.window_start, c.units)
          on conflict on constraint rate_limit_counters_pkey do update set
            used = case when r.window_start >= excluded.window_start then r.used + excluded.used else excluded.used end,
            window_start = greatest(r.window_start, excluded.window_start)
          returning r.used, r.window_start into used, window_start;
          bucket := c.bucket;
          lim := c.lim;
          allowed := used <= c.lim;
          v_refused := v_refused or not allowed;
          return next;
        end loop;
        if v_refused then
          -- The rows are still locked by this statement: nobody saw the increments.
          update rate_limit_counters r set used = r.used - x.units
          from unnest(p_buckets, p_key_scoped, p_units) as x(bucket, key_scoped, units)
          where r.bucket = x.bucket and r.subject = case when x.key_scoped then p_key else p_store end;
        end if;
      end
      $fn$;`);
    this.addSql(`
      create table rate_limit_leases (
        id uuid primary key,
        kind text not null check (kind in ('write_queue', 'prefer_wait')),
        subject text not null,
        acquired_at timestamptz not null,
        expires_at timestamptz not null,
        released_at timestamptz null
      );`);
    this.addSql('create index rate_limit_leases_subject_idx on rate_limit_leases (kind, subject, acquired_at);');
    this.addSql(`
      create table creation_units (
        unit_id text primary key,
        store_id text not null references stores (id) on delete cascade,
        day date not null,
        create_new boolean not null,
        state text not null check (state in ('reserved', 'confirmed', 'returned')),
        reserved_at timestamptz not null,
        expires_at timestamptz not null
      );`);
    this.addSql('create index creation_units_store_day_idx on creation_units (store_id, day);');
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists creation_units;');
    this.addSql('drop table if exists rate_limit_leases;');
    this.addSql(
      'drop function if exists rate_limit_take(text, text, bigint, text[], boolean[], integer[], integer[], integer[]);',
    );
    this.addSql('drop table if exists rate_limit_overrides;');
    this.addSql('drop table if exists rate_limit_counters;');
  }
}

import { Migration } from '@mikro-orm/migrations';

/**
 * `rate_limit_read_windows` (docs/decisions/1020-read-windows-in-one-row.md): a key's two read windows in one row,
 * taken by one upsert (`readWindowsTake` in src/limits/counter-store.ts) instead of two `rate_limit_counters` rows.
 * Unlogged like the counters: a crash forgets at most a minute of reads. `second_limit`, `minute_limit` and `units`
 * are the last take's, carried into the row so the conflict arm can decide on the locked row; `taken` is its verdict.
 * The windows now open move over, so no key gains a fresh minute from the deploy.
 */
export class Migration20261129000000ReadWindows extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create unlogged table rate_limit_read_windows (
        subject text primary key,
        second_start bigint not null,
        second_used integer not null,
        minute_start bigint not null,
        minute_used integer not null,
        second_limit integer not null,
        minute_limit integer not null,
        units integer not null,
        taken boolean not null
      ) with (fillfactor = 50);`);
    this.addSql(`
      insert into rate_limit_read_windows
        (subject, second_start, second_used, minute_start, minute_used, second_limit, minute_limit, units, taken)
      select x.subject, coalesce(s.window_start, 0), coalesce(s.used, 0), coalesce(m.window_start, 0),
             coalesce(m.used, 0), 0, 0, 0, true
        from (select distinct subject from rate_limit_counters
               where bucket in ('read_key_per_second', 'read_key_per_minute')) x
        left join rate_limit_counters s on s.bucket = 'read_key_per_second' and s.subject = x.subject
        left join rate_limit_counters m on m.bucket = 'read_key_per_minute' and m.subject = x.subject;`);
    this.addSql(`delete from rate_limit_counters where bucket in ('read_key_per_second', 'read_key_per_minute');`);
  }

  override async down(): Promise<void> {
    this.addSql(`
      insert into rate_limit_counters (bucket, subject, window_start, used)
      select 'read_key_per_second', subject, second_start, second_used from rate_limit_read_windows
      union all
      select 'read_key_per_minute', subject, minute_start, minute_used from rate_limit_read_windows
      on conflict (bucket, subject) do nothing;`);
    this.addSql('drop table if exists rate_limit_read_windows;');
  }
}

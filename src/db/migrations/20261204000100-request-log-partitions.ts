import { Migration } from '@mikro-orm/migrations';

const COLUMNS = `request_id, store_id, api_key_id, method, endpoint, status, error_code, ip, label_count, byte_size,
  created_at`;

/**
 * The request log as daily partitions (docs/decisions/0105-request-log-partitions.md): the hourly housekeeping drops a
 * day once it is past the retention, a catalogue change instead of a delete of a day's rows, and creates the days
 * ahead (src/db/request-log-partitions.ts). This migration creates the partitions of every day the log holds and of
 * the week ahead, and moves the rows over: for a log already large it runs as long as copying it once.
 * Rows of a day without a partition land in `request_log_default` (the housekeeping moves them into their day's
 * partition when it creates it, and deletes them in bounded batches once past the retention), so a write never fails
 * for want of a partition. The primary key includes `created_at`, as PostgreSQL requires of a partitioned table's
 * unique keys; `id` still comes from one sequence. `(store_id, id)` serves the store's log newest first (`labelctl
 * log`) and the redaction of its IPs.
 */
export class Migration20261204000100RequestLogPartitions extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table request_log rename to request_log_unpartitioned;');
    this.addSql(
      'alter table request_log_unpartitioned rename constraint request_log_pkey to request_log_unpartitioned_pkey;',
    );
    this.addSql(`
      create table request_log (
        id bigint not null default nextval('request_log_id_seq'),
        request_id text not null,
        store_id text null,
        api_key_id text null,
        method text not null,
        endpoint text null,
        status integer not null,
        error_code text null,
        ip text null,
        label_count integer null,
        byte_size integer null,
        created_at timestamptz not null default now(),
        primary key (id, created_at)
      ) partition by range (created_at);`);
    this.addSql('alter sequence request_log_id_seq owned by request_log.id;');
    this.addSql('create index request_log_store_id_idx on request_log (store_id, id);');
    this.addSql('create table request_log_default partition of request_log default;');
    this.addSql(`
      do $$
      declare
        first date := least((select min(created_at at time zone 'UTC')::date from request_log_unpartitioned),
                            (now() at time zone 'UTC')::date);
        day date;
      begin
        for day in select generate_series(first, (now() at time zone 'UTC')::date + 7, interval '1 day')::date loop
          execute format('create table %I partition of request_log for values from (%L) to (%L)',
            'request_log_p' || to_char(day, 'YYYYMMDD'), day::text || ' 00:00:00+00', (day + 1)::text || ' 00:00:00+00');
        end loop;
      end $$;`);
    this.addSql(`insert into request_log (id, ${COLUMNS}) select id, ${COLUMNS} from request_log_unpartitioned;`);
    this.addSql('drop table request_log_unpartitioned;');
  }

  override async down(): Promise<void> {
    this.addSql('alter table request_log rename to request_log_partitioned;');
    this.addSql(`
      create table request_log (
        id bigint primary key default nextval('request_log_id_seq'),
        request_id text not null,
        store_id text null,
        api_key_id text null,
        method text not null,
        endpoint text null,
        status integer not null,
        error_code text null,
        ip text null,
        label_count integer null,
        byte_size integer null,
        created_at timestamptz not null default now()
      );`);
    this.addSql('alter sequence request_log_id_seq owned by request_log.id;');
    this.addSql(`insert into request_log (id, ${COLUMNS}) select id, ${COLUMNS} from request_log_partitioned;`);
    this.addSql('drop table request_log_partitioned;');
    this.addSql('create index request_log_store_created_idx on request_log (store_id, created_at desc);');
    this.addSql('create index request_log_created_idx on request_log (created_at);');
  }
}

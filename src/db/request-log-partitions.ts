import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * The request log's daily partitions (migration 20261204000100, docs/decisions/0105-request-log-partitions.md): one
 * table per UTC day, `request_log_pYYYYMMDD`, created ahead and dropped whole once past the retention by the hourly
 * housekeeping; rows of a day without one wait in `request_log_default`.
 */

const DAY_MS = 86_400_000;
/** Days created ahead of today: a housekeeping stopped for up to this long still finds every write its partition. */
export const REQUEST_LOG_DAYS_AHEAD = 7;
/** Rows deleted from the default partition per statement, and statements per run: a run holds no lock for long. */
const DEFAULT_BATCH = 5_000;
const DEFAULT_BATCHES_PER_RUN = 20;
/** A partition is created or dropped only with the parent's lock within this; otherwise the next run does it. */
const LOCK_TIMEOUT = '5s';

const PARTITION_NAME = /^request_log_p(\d{4})(\d{2})(\d{2})$/;

/** The UTC day holding `at`, at midnight. */
export const dayOf = (at: Date): Date => new Date(Math.floor(at.getTime() / DAY_MS) * DAY_MS);

export const partitionName = (day: Date): string => `request_log_p${day.toISOString().slice(0, 10).replace(/-/g, '')}`;

/** The day partitions there are, with the first instant after each. */
export async function listRequestLogPartitions(em: EntityManager): Promise<Array<{ name: string; end: Date }>> {
  const rows = await em.execute<Array<{ name: string }>>(
    `select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid
      where i.inhparent = 'request_log'::regclass order by c.relname`,
  );
  return rows.flatMap(({ name }) => {
    const m = PARTITION_NAME.exec(name);
    return m ? [{ name, end: new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])) + DAY_MS) }] : [];
  });
}

/**
 * Creates the partition of `day` unless it exists. Rows of that day already in the default partition (written while
 * it was missing) move into it first, in the same transaction: attaching checks that the default holds none.
 * Creating it apart and attaching it takes only a SHARE UPDATE EXCLUSIVE lock on the log, so writers go on.
 */
export async function createRequestLogPartition(em: EntityManager, day: Date): Promise<boolean> {
  const name = partitionName(day);
  const [from, to] = [day.toISOString(), new Date(day.getTime() + DAY_MS).toISOString()];
  return em.transactional(async (tx) => {
    await tx.execute(`set local lock_timeout = '${LOCK_TIMEOUT}'`);
    const [exists] = await tx.execute<Array<{ found: string | null }>>('select to_regclass(?)::text as found', [name]);
    if (exists?.found) return false;
    await tx.execute(`create table ${name} (like request_log including defaults including constraints)`);
    await tx.execute(
      `with moved as (delete from request_log_default where created_at >= ? and created_at < ? returning *)
       insert into ${name} select * from moved`,
      [from, to],
    );
    await tx.execute(`alter table request_log attach partition ${name} for values from ('${from}') to ('${to}')`);
    return true;
  });
}

/** Creates the partitions of today and of the days ahead that are missing; returns those it created. */
export async function createRequestLogPartitionsAhead(em: EntityManager, now: Date): Promise<string[]> {
  const created: string[] = [];
  for (let i = 0; i <= REQUEST_LOG_DAYS_AHEAD; i += 1) {
    const day = new Date(dayOf(now).getTime() + i * DAY_MS);
    if (await createRequestLogPartition(em, day)) created.push(partitionName(day));
  }
  return created;
}

/**
 * Drops every day partition wholly before `cutoff` (a day goes once its last instant is past the retention: rows are
 * kept at least the retention and less than a day longer), then deletes the default partition's rows before `cutoff`
 * in bounded batches. Returns the partitions dropped and the rows deleted.
 */
export async function dropRequestLogBefore(
  em: EntityManager,
  cutoff: Date,
): Promise<{ dropped: string[]; deleted: number }> {
  const dropped: string[] = [];
  for (const { name, end } of await listRequestLogPartitions(em)) {
    if (end.getTime() > cutoff.getTime()) continue;
    await em.transactional(async (tx) => {
      await tx.execute(`set local lock_timeout = '${LOCK_TIMEOUT}'`);
      await tx.execute(`drop table if exists ${name}`);
    });
    dropped.push(name);
  }
  let deleted = 0;
  for (let batch = 0; batch < DEFAULT_BATCHES_PER_RUN; batch += 1) {
    const result = await em.execute<{ affectedRows?: number }>(
      `delete from request_log_default where ctid = any(array(
         select ctid from request_log_default where created_at < ? limit ${DEFAULT_BATCH}))`,
      [cutoff],
      'run',
    );
    const rows = Number(result.affectedRows ?? 0);
    deleted += rows;
    if (rows < DEFAULT_BATCH) break;
  }
  return { dropped, deleted };
}

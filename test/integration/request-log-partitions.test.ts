import type { EntityManager } from '@mikro-orm/postgresql';
import { openOrm, type Orm } from '../../src/db/orm';
import {
  REQUEST_LOG_DAYS_AHEAD,
  createRequestLogPartition,
  createRequestLogPartitionsAhead,
  dayOf,
  dropRequestLogBefore,
  listRequestLogPartitions,
  partitionName,
} from '../../src/db/request-log-partitions';
import { aDatabaseOfItsOwn } from '../helpers/own-database';
import { DAY, HOUR } from '../helpers/time';

// The request log's daily partitions (decision 0105), on a database of the test's own: partitions are the whole
// table's, and other suites write to it. The hourly workflow that runs this is in request-log-purge.test.ts.
let db: Awaited<ReturnType<typeof aDatabaseOfItsOwn>>;
let orm: Orm;
beforeAll(async () => {
  db = await aDatabaseOfItsOwn();
  orm = await openOrm(db.url);
});
afterAll(async () => {
  await orm.close();
  await db.drop();
});

const em = (): EntityManager => orm.em.fork();

async function aRow(requestId: string, at: Date, storeId = 'st_partitions'): Promise<void> {
  await em().execute(
    `insert into request_log (request_id, store_id, method, endpoint, status, created_at) values (?, ?, 'GET', '/v1/shop', 200, ?)`,
    [requestId, storeId, at],
  );
}

/** The partition holding each row of `requestIds` (absent: no such row). */
async function whereRows(requestIds: string[]): Promise<Record<string, string>> {
  const rows = await em().execute<Array<{ request_id: string; partition: string }>>(
    'select request_id, tableoid::regclass::text as partition from request_log where request_id in (?)',
    [requestIds],
  );
  return Object.fromEntries(rows.map((r) => [r.request_id, r.partition]));
}

describe('the request log in daily partitions', () => {
  it('has today and the week ahead after migrating, and a row lands in its day', async () => {
    const now = new Date();
    const names = (await listRequestLogPartitions(em())).map((p) => p.name);
    for (let i = 0; i <= REQUEST_LOG_DAYS_AHEAD; i += 1) {
      expect(names).toContain(partitionName(new Date(dayOf(now).getTime() + i * DAY)));
    }
    await aRow('req_today', now);
    expect(await whereRows(['req_today'])).toEqual({ req_today: partitionName(dayOf(now)) });
  });

  it('creates the days ahead as time passes, moving rows written while a day had no partition into it', async () => {
    const later = new Date(Date.now() + 10 * DAY);
    await aRow('req_early', later);
    expect(await whereRows(['req_early'])).toEqual({ req_early: 'request_log_default' });

    const created = await createRequestLogPartitionsAhead(em(), new Date(Date.now() + 5 * DAY));
    expect(created).toContain(partitionName(dayOf(later)));
    expect(await whereRows(['req_early'])).toEqual({ req_early: partitionName(dayOf(later)) });
    // Run again, nothing is left to create.
    expect(await createRequestLogPartitionsAhead(em(), new Date(Date.now() + 5 * DAY))).toEqual([]);
  });

  it('drops the days wholly past the retention and deletes old rows of the default partition, keeping the rest', async () => {
    const now = Date.now();
    const cutoff = new Date(now - 90 * DAY);
    for (const age of [95, 91, 89]) await createRequestLogPartition(em(), dayOf(new Date(now - age * DAY)));
    await aRow('req_95d', new Date(now - 95 * DAY));
    await aRow('req_91d', new Date(now - 91 * DAY));
    await aRow('req_89d', new Date(now - 89 * DAY));
    // The day of the cutoff itself has no partition here: its rows wait in the default one.
    await aRow('req_cutoff_before', new Date(cutoff.getTime() - HOUR));
    await aRow('req_cutoff_after', new Date(cutoff.getTime() + HOUR));

    const result = await dropRequestLogBefore(em(), cutoff);
    expect(result.dropped.sort()).toEqual(
      [partitionName(dayOf(new Date(now - 95 * DAY))), partitionName(dayOf(new Date(now - 91 * DAY)))].sort(),
    );
    expect(result.deleted).toBe(1);
    expect(
      Object.keys(await whereRows(['req_95d', 'req_91d', 'req_89d', 'req_cutoff_before', 'req_cutoff_after'])).sort(),
    ).toEqual(['req_89d', 'req_cutoff_after']);
    expect((await listRequestLogPartitions(em())).map((p) => p.name)).toContain(
      partitionName(dayOf(new Date(now - 89 * DAY))),
    );
    // Run again, nothing is left to drop.
    expect(await dropRequestLogBefore(em(), cutoff)).toEqual({ dropped: [], deleted: 0 });
  });

  it("reads a store's log newest first through an index (labelctl log), not by scanning the days", async () => {
    const stores = Array.from({ length: 200 }, (_, i) => `st_log_${i}`);
    await em().execute(
      `insert into request_log (request_id, store_id, method, endpoint, status, created_at)
       select 'req_many_' || g, 'st_log_' || (g % 200), 'GET', '/v1/labels', 200, now() - (g % 5) * interval '1 second'
         from generate_series(1, 20000) g`,
    );
    await em().execute('analyze request_log');
    // The statement MikroORM builds for `labelctl log` (find by store, order by id desc, limit).
    const [plan] = await em().execute<Array<{ 'QUERY PLAN': unknown }>>(
      `explain (format json) select r0.* from request_log as r0 where r0.store_id = '${stores[7]}' order by r0.id desc limit 20`,
    );
    const text = JSON.stringify(plan!['QUERY PLAN']);
    // Each day's copy of the (store_id, id) index, read backwards and merged.
    expect(text).toMatch(/store_id_id_idx/);
    expect(text).not.toContain('Seq Scan');
  });
});

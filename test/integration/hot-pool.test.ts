import { openHotPool } from '../../src/db/hot-pool';
import { openOrm, type Orm } from '../../src/db/orm';

// Decision 0026: the rate-limit counters' pool commits without waiting for the WAL flush; every record goes through the
// ORM's pool, which does.
describe('connection settings', () => {
  const databaseUrl = process.env.DATABASE_URL!;
  let orm: Orm;
  const pool = openHotPool(databaseUrl, { lockTimeoutMs: 250, max: 1 });
  beforeAll(async () => {
    orm = await openOrm(databaseUrl);
  });
  afterAll(async () => {
    await Promise.all([pool.end(), orm.close()]);
  });

  it('runs the hot pool without flush waits, JIT or long lock waits', async () => {
    const setting = async (name: string) => (await pool.query<Record<string, string>>(`show ${name}`)).rows[0]![name];
    expect(await setting('synchronous_commit')).toBe('off');
    expect(await setting('jit')).toBe('off');
    expect(await setting('lock_timeout')).toBe('250ms');
  });

  it('keeps every commit of the ORM pool durable', async () => {
    const [row] = await orm.em.fork().execute<Array<{ synchronous_commit: string }>>('show synchronous_commit');
    expect(row!.synchronous_commit).toBe('on');
  });
});

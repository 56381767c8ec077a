import { Pool } from 'pg';
import { Migration20261129000000ReadWindows } from '../../src/db/migrations/20261129000000-read-windows';
import { bucketCharges } from '../../src/domain/rate-limits';
import { setLimitOverride } from '../../src/limits/overrides';
import { postgresCounterStore, READ_WINDOWS_GIVE_BACK, type TakenBucket } from '../../src/limits/counter-store';
import { aStoreWithKey } from '../helpers/stores';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { MINUTE } from '../helpers/time';

// The read class's two windows live in one row per key (decision 1020), taken by one upsert whose all-or-nothing
// rule is decided on the locked row. These tests hold it to what the two-row take guaranteed, at the statement.
let app: TestApp;
let pools: Pool[];
beforeAll(async () => {
  app = await startTestApp();
  // Two pools: two API processes' connections.
  pools = [0, 1].map(() => new Pool({ connectionString: app.config.databaseUrl, max: 10 }));
});
afterAll(async () => {
  await Promise.all(pools.map((p) => p.end()));
  await app.close();
});

// The start of the current minute: the windows start on whole seconds and minutes.
const MINUTE_START = Math.floor(Date.now() / MINUTE) * MINUTE;
const read = (units = 1) => bucketCharges([{ limitClass: 'read', units }]);
const byBucket = (taken: TakenBucket[]) => Object.fromEntries(taken.map((t) => [t.bucket, t]));

async function windowsOf(keyId: string) {
  const { rows } = await pools[0]!.query<{ second_used: number; minute_used: number }>(
    'select second_used, minute_used from rate_limit_read_windows where subject = $1',
    [keyId],
  );
  return rows[0];
}

describe('a key’s read windows in one row', () => {
  it('lets exactly the limit through of many concurrent takes over two pools; the refused take nothing', async () => {
    const shop = await aStoreWithKey(app.orm);
    await setLimitOverride(app.orm.em.fork(), {
      storeId: shop.storeId,
      bucket: 'read_key_per_second',
      limit: 25,
      now: new Date(),
    });
    const takes = await Promise.all(
      Array.from({ length: 80 }, (_, i) =>
        postgresCounterStore(pools[i % 2]!).take({
          storeId: shop.storeId,
          apiKeyId: shop.keyId,
          nowMs: MINUTE_START + 100,
          charges: read(),
        }),
      ),
    );
    const passed = takes.filter((t) => t.every((b) => b.allowed));
    expect(passed).toHaveLength(25);
    // Every count from 1 to 25 was handed out once: no two takes saw the same row.
    expect(passed.map((t) => byBucket(t).read_key_per_second!.used).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 25 }, (_, i) => i + 1),
    );
    for (const refused of takes.filter((t) => !t.every((b) => b.allowed))) {
      expect(byBucket(refused).read_key_per_second).toMatchObject({ allowed: false, used: 26, limit: 25 });
      // The minute would have allowed it, and took nothing either.
      expect(byBucket(refused).read_key_per_minute).toMatchObject({ allowed: true, used: 26, limit: 600 });
    }
    expect(await windowsOf(shop.keyId)).toEqual({ second_used: 25, minute_used: 25 });
  });

  it('opens a new second inside the same minute, and a new minute resets both', async () => {
    const shop = await aStoreWithKey(app.orm);
    const take = (nowMs: number, units = 1) =>
      postgresCounterStore(pools[0]!).take({
        storeId: shop.storeId,
        apiKeyId: shop.keyId,
        nowMs,
        charges: read(units),
      });
    await take(MINUTE_START + 10, 3);
    const next = byBucket(await take(MINUTE_START + 1_010, 2));
    expect(next.read_key_per_second).toMatchObject({ used: 2, windowStartMs: MINUTE_START + 1_000, allowed: true });
    expect(next.read_key_per_minute).toMatchObject({ used: 5, windowStartMs: MINUTE_START, allowed: true });
    const later = byBucket(await take(MINUTE_START + 60_500));
    expect(later.read_key_per_second).toMatchObject({ used: 1, windowStartMs: MINUTE_START + 60_000 });
    expect(later.read_key_per_minute).toMatchObject({ used: 1, windowStartMs: MINUTE_START + 60_000 });
  });

  it('refuses a first take larger than a limit without taking it, and honours a limit of 0', async () => {
    const shop = await aStoreWithKey(app.orm);
    const take = (units: number) =>
      postgresCounterStore(pools[0]!).take({
        storeId: shop.storeId,
        apiKeyId: shop.keyId,
        nowMs: MINUTE_START,
        charges: read(units),
      });
    const tooMany = byBucket(await take(11));
    expect(tooMany.read_key_per_second).toMatchObject({ allowed: false, used: 11, limit: 10 });
    expect(await windowsOf(shop.keyId)).toEqual({ second_used: 0, minute_used: 0 });
    await setLimitOverride(app.orm.em.fork(), {
      storeId: shop.storeId,
      bucket: 'read_key_per_minute',
      limit: 0,
      now: new Date(),
    });
    expect(byBucket(await take(1)).read_key_per_minute).toMatchObject({ allowed: false, used: 1, limit: 0 });
    expect(await windowsOf(shop.keyId)).toEqual({ second_used: 0, minute_used: 0 });
    // Both windows overridden: each takes its own (read in one lookup), another store's overrides none.
    const other = await aStoreWithKey(app.orm);
    for (const [storeId, bucket, limit] of [
      [shop.storeId, 'read_key_per_second', 4],
      [shop.storeId, 'read_key_per_minute', 7],
      [other.storeId, 'read_key_per_second', 1],
    ] as const) {
      await setLimitOverride(app.orm.em.fork(), { storeId, bucket, limit, now: new Date() });
    }
    const both = byBucket(await take(3));
    expect(both.read_key_per_second).toMatchObject({ allowed: true, used: 3, limit: 4 });
    expect(both.read_key_per_minute).toMatchObject({ allowed: true, used: 3, limit: 7 });
  });

  it('gives a take back in the windows it was taken in, never below zero, and not in a window that moved on', async () => {
    const shop = await aStoreWithKey(app.orm);
    const store = postgresCounterStore(pools[0]!);
    const take = (nowMs: number) => store.take({ storeId: shop.storeId, apiKeyId: shop.keyId, nowMs, charges: read() });
    await take(MINUTE_START + 5);
    await take(MINUTE_START + 6);
    const giveBack = (secondStart: number, minuteStart: number, units: number) =>
      pools[0]!.query({ ...READ_WINDOWS_GIVE_BACK, values: [shop.keyId, secondStart, minuteStart, units] });
    await giveBack(MINUTE_START, MINUTE_START, 1);
    expect(await windowsOf(shop.keyId)).toEqual({ second_used: 1, minute_used: 1 });
    await giveBack(MINUTE_START, MINUTE_START, 5);
    expect(await windowsOf(shop.keyId)).toEqual({ second_used: 0, minute_used: 0 });
    await take(MINUTE_START + 2_000);
    // A give-back of the first second: that second is over, the minute is the same.
    await giveBack(MINUTE_START, MINUTE_START, 1);
    expect(await windowsOf(shop.keyId)).toEqual({ second_used: 1, minute_used: 0 });
  });

  it('refuses to take the read windows with other buckets in one charge (it would not be atomic)', async () => {
    const shop = await aStoreWithKey(app.orm);
    const mixed = bucketCharges([
      { limitClass: 'read', units: 1 },
      { limitClass: 'print', units: 1 },
    ]);
    await expect(
      postgresCounterStore(pools[0]!).take({
        storeId: shop.storeId,
        apiKeyId: shop.keyId,
        nowMs: MINUTE_START,
        charges: mixed,
      }),
    ).rejects.toThrow('the read windows are charged together, by the read class alone');
  });
});

describe('migration 20261129000000', () => {
  it('moves the open read windows of rate_limit_counters into the one row, and leaves the other buckets', async () => {
    const shop = await aStoreWithKey(app.orm);
    const migration = new Migration20261129000000ReadWindows(app.orm.em.getDriver(), app.orm.config);
    await migration.up();
    // The table exists already (the test database is migrated): run the move on its own, and roll it back.
    const [, move, remove] = migration.getQueries().map(String);
    const client = await pools[0]!.connect();
    try {
      await client.query('begin');
      await client.query(
        `insert into rate_limit_counters (bucket, subject, window_start, used) values
           ('read_key_per_second', $1, $2, 4), ('read_key_per_minute', $1, $3, 40), ('print_key_per_second', $1, $2, 2)`,
        [shop.keyId, MINUTE_START + 3_000, MINUTE_START],
      );
      await client.query(move!);
      await client.query(remove!);
      const windows = await client.query(
        'select second_start, second_used, minute_start, minute_used from rate_limit_read_windows where subject = $1',
        [shop.keyId],
      );
      expect(windows.rows).toEqual([
        {
          second_start: String(MINUTE_START + 3_000),
          second_used: 4,
          minute_start: String(MINUTE_START),
          minute_used: 40,
        },
      ]);
      const left = await client.query('select bucket from rate_limit_counters where subject = $1', [shop.keyId]);
      expect(left.rows).toEqual([{ bucket: 'print_key_per_second' }]);
    } finally {
      await client.query('rollback');
      client.release();
    }
  });
});

import { randomToken } from '../../src/ids';
import { setLimitOverride } from '../../src/limits/overrides';
import { createWriteLimits, type WriteLimits } from '../../src/limits/write-limits';
import { aStoreWithKey } from '../helpers/stores';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { HOUR, utcDayStart } from '../helpers/time';

// The creation code calls this service (docs/decisions/0405-creation-limits-wiring.md); here it runs against the
// test database with the test clock, so hours and days pass without waiting.
let app: TestApp;
let limits: WriteLimits;
beforeAll(async () => {
  app = await startTestApp();
  limits = createWriteLimits({ orm: app.orm, now: app.clock.now });
});
afterAll(async () => app.close());
afterEach(() => app.clock.reset());

const SECOND = 1000;
const MINUTE = 60 * SECOND;
// 10:00 UTC today, on the clock the limits read (app.clock): the UTC day of the daily units ends 14 hours later.
const T0 = new Date(utcDayStart(Date.now()) + 10 * HOUR);
const later = (ms: number) => new Date(T0.getTime() + ms);

/** The error a refusal throws, as the HTTP edge would see it. */
async function refusal(promise: Promise<unknown>) {
  const error = (await promise.then(
    () => null,
    (e: unknown) => e,
  )) as { code: string; details: Record<string, unknown>; retryAfterSeconds: number } | null;
  if (!error) throw new Error('expected a refusal');
  return { code: error.code, details: error.details, retryAfterSeconds: error.retryAfterSeconds };
}

const aStore = async () => (await aStoreWithKey(app.orm)).storeId;

describe('write queue (write_queue_depth)', () => {
  it('holds 100 waiting creations per store; the 101st gets 429 until a place frees', async () => {
    const storeId = await aStore();
    app.clock.set(T0);
    const tickets = await Promise.all(Array.from({ length: 100 }, () => limits.writeQueue.enter(storeId)));
    expect(tickets.map((t) => t.state.remaining).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 100 }, (_, i) => i),
    );
    expect(await refusal(limits.writeQueue.enter(storeId))).toEqual({
      code: 'rate_limited',
      details: { bucket: 'write_queue_depth', scope: 'shop', limit: 100, window_seconds: null, retry_after_seconds: 5 },
      retryAfterSeconds: 5,
    });
    expect((await limits.writeQueue.enter(await aStore())).state).toMatchObject({ limit: 100, remaining: 99 });
    await tickets[0]!.release();
    await tickets[0]!.release();
    const next = await limits.writeQueue.enter(storeId);
    expect(next.state).toMatchObject({ bucket: 'write_queue_depth', limit: 100, remaining: 0, windowSeconds: null });
    await expect(limits.writeQueue.enter(storeId)).rejects.toMatchObject({ code: 'rate_limited' });
  });

  it('admits exactly the depth under concurrency (every process shares the queue)', async () => {
    const storeId = await aStore();
    await setLimitOverride(app.orm.em.fork(), { storeId, bucket: 'write_queue_depth', limit: 30, now: new Date() });
    app.clock.set(T0);
    const results = await Promise.allSettled(Array.from({ length: 50 }, () => limits.writeQueue.enter(storeId)));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(30);
    for (const r of results.filter((r) => r.status === 'rejected')) {
      expect(r.reason).toMatchObject({
        code: 'rate_limited',
        details: { bucket: 'write_queue_depth', limit: 30 },
      });
    }
  });

  it('shrinks when recent creations were slow, with Retry-After from their duration, and grows back', async () => {
    const storeId = await aStore();
    app.clock.set(T0);
    const slow = await Promise.all(Array.from({ length: 20 }, () => limits.writeQueue.enter(storeId)));
    app.clock.set(later(20 * SECOND));
    for (const ticket of slow) await limits.writeQueue.release(ticket.id);
    // Mean 20 s: depth 100 x 2 s / 20 s = 10.
    const waiting = [];
    for (let i = 0; i < 10; i += 1) waiting.push(await limits.writeQueue.enter(storeId));
    expect(waiting[0]!.state).toMatchObject({ limit: 10, remaining: 9, resetSeconds: 20 });
    expect(await refusal(limits.writeQueue.enter(storeId))).toMatchObject({
      details: { bucket: 'write_queue_depth', limit: 10, window_seconds: null, retry_after_seconds: 20 },
      retryAfterSeconds: 20,
    });
    // The waiting ones finish in 1 s: the last 20 took 10.5 s on average, depth 100 x 2 / 10.5 = 19.
    app.clock.set(later(21 * SECOND));
    for (const ticket of waiting) await ticket.release();
    const faster = await limits.writeQueue.enter(storeId);
    expect(faster.state).toMatchObject({ limit: 19, remaining: 18, resetSeconds: 11 });
    await faster.release();
    // Ten minutes on, none of those durations is recent any more.
    app.clock.set(later(21 * SECOND + 11 * MINUTE));
    expect((await limits.writeQueue.enter(storeId)).state).toMatchObject({ limit: 100, remaining: 99 });
  });

  it('caps Retry-After at 120 s and keeps at least 10 places however slow', async () => {
    const storeId = await aStore();
    app.clock.set(T0);
    const slow = await Promise.all(Array.from({ length: 3 }, () => limits.writeQueue.enter(storeId)));
    app.clock.set(later(5 * MINUTE));
    for (const ticket of slow) await ticket.release();
    for (let i = 0; i < 10; i += 1) await limits.writeQueue.enter(storeId);
    expect(await refusal(limits.writeQueue.enter(storeId))).toMatchObject({
      details: { limit: 10, retry_after_seconds: 120 },
    });
  });

  it('stops counting a ticket never released (its process died) after 15 minutes', async () => {
    const storeId = await aStore();
    await setLimitOverride(app.orm.em.fork(), { storeId, bucket: 'write_queue_depth', limit: 1, now: new Date() });
    app.clock.set(T0);
    await limits.writeQueue.enter(storeId);
    app.clock.set(later(14 * MINUTE));
    await expect(limits.writeQueue.enter(storeId)).rejects.toMatchObject({ code: 'rate_limited' });
    app.clock.set(later(15 * MINUTE + SECOND));
    expect((await limits.writeQueue.enter(storeId)).state).toMatchObject({ limit: 1, remaining: 0 });
  });
});

describe('Prefer: wait holds', () => {
  it('lets 8 requests per key hold a wait; a 9th answers as with wait=0 until one is released', async () => {
    const keyId = `ak_${randomToken()}`;
    app.clock.set(T0);
    const holds = await Promise.all(Array.from({ length: 12 }, () => limits.waitHolds.hold(keyId, 20)));
    const held = holds.filter((h) => h !== null);
    expect(held).toHaveLength(8);
    expect(await limits.waitHolds.hold(keyId, 20)).toBeNull();
    expect(await limits.waitHolds.hold(`ak_${randomToken()}`, 20)).not.toBeNull();
    await held[0]!.release();
    expect(await limits.waitHolds.hold(keyId, 20)).not.toBeNull();
    expect(await limits.waitHolds.hold(keyId, 20)).toBeNull();
  });

  it('frees the holds of a process that died once their wait is over', async () => {
    const keyId = `ak_${randomToken()}`;
    app.clock.set(T0);
    for (let i = 0; i < 8; i += 1) expect(await limits.waitHolds.hold(keyId, 60)).not.toBeNull();
    app.clock.set(later(60 * SECOND));
    expect(await limits.waitHolds.hold(keyId, 60)).toBeNull();
    app.clock.set(later(71 * SECOND));
    expect(await limits.waitHolds.hold(keyId, 60)).not.toBeNull();
  });
});

describe('daily creation units', () => {
  /** Units of creations that already reached the carrier today, written as the ledger holds them. */
  async function confirmedToday(storeId: string, count: number, createNew = false) {
    await app.orm.em.fork().execute(
      `insert into creation_units (unit_id, store_id, day, create_new, state, reserved_at, expires_at)
       select 'seed-' || ? || '-' || g, ?, ?::date, ?, 'confirmed', ?, ?
       from generate_series(1, ?) g`,
      [randomToken(8), storeId, T0.toISOString().slice(0, 10), createNew, T0, T0, count],
    );
  }
  const unit = () => `lcr_${randomToken()}`;

  it('write_shop_per_day: 2,000 creations reaching the carrier per store and UTC day', async () => {
    const storeId = await aStore();
    await confirmedToday(storeId, 1999);
    app.clock.set(later(4 * 3_600_000));
    const last = unit();
    expect(await limits.creationUnits.reserve({ storeId, unitId: last, createNew: false })).toEqual([
      {
        bucket: 'write_shop_per_day',
        scope: 'shop',
        limit: 2000,
        windowSeconds: 86_400,
        remaining: 0,
        resetSeconds: 10 * 3600,
        allowed: true,
      },
    ]);
    expect(await refusal(limits.creationUnits.reserve({ storeId, unitId: unit(), createNew: false }))).toEqual({
      code: 'rate_limited',
      details: {
        bucket: 'write_shop_per_day',
        scope: 'shop',
        limit: 2000,
        window_seconds: 86_400,
        retry_after_seconds: 10 * 3600,
      },
      retryAfterSeconds: 10 * 3600,
    });
    // The creation returned existing labels: its unit comes back.
    expect(await limits.creationUnits.returnUnit(last)).toBe(true);
    const again = unit();
    await limits.creationUnits.reserve({ storeId, unitId: again, createNew: false });
    await limits.creationUnits.confirm(again);
    expect(await limits.creationUnits.returnUnit(again)).toBe(false);
    await expect(limits.creationUnits.reserve({ storeId, unitId: unit(), createNew: false })).rejects.toMatchObject({
      code: 'rate_limited',
    });
    // The next UTC day starts afresh.
    app.clock.set(later(14 * 3_600_000));
    expect(await limits.creationUnits.reserve({ storeId, unitId: unit(), createNew: false })).toMatchObject([
      { bucket: 'write_shop_per_day', remaining: 1999, resetSeconds: 86_400 },
    ]);
  });

  it('create_new_daily: 50 create_new creations per store and day; other creations still pass', async () => {
    const storeId = await aStore();
    app.clock.set(later(MINUTE));
    const states = await Promise.all(
      Array.from({ length: 50 }, () => limits.creationUnits.reserve({ storeId, unitId: unit(), createNew: true })),
    );
    expect(states.map((s) => s[1]!.remaining).sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i));
    expect(await refusal(limits.creationUnits.reserve({ storeId, unitId: unit(), createNew: true }))).toMatchObject({
      details: { bucket: 'create_new_daily', scope: 'shop', limit: 50, window_seconds: 86_400 },
    });
    expect(await limits.creationUnits.reserve({ storeId, unitId: unit(), createNew: false })).toMatchObject([
      { bucket: 'write_shop_per_day', remaining: 1949 },
    ]);
  });

  it('reserves exactly the limit under concurrency, and once per unit', async () => {
    const storeId = await aStore();
    await setLimitOverride(app.orm.em.fork(), { storeId, bucket: 'write_shop_per_day', limit: 20, now: new Date() });
    app.clock.set(T0);
    const same = unit();
    const first = await limits.creationUnits.reserve({ storeId, unitId: same, createNew: false });
    // A retried activity reserves the same unit again: answered, not counted twice.
    expect(await limits.creationUnits.reserve({ storeId, unitId: same, createNew: false })).toEqual(first);
    const results = await Promise.allSettled(
      Array.from({ length: 30 }, () => limits.creationUnits.reserve({ storeId, unitId: unit(), createNew: false })),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(19);
  });

  it('stops counting a reservation neither confirmed nor returned after 15 minutes; a confirmation counts', async () => {
    const storeId = await aStore();
    await setLimitOverride(app.orm.em.fork(), { storeId, bucket: 'write_shop_per_day', limit: 1, now: new Date() });
    app.clock.set(T0);
    const lost = unit();
    await limits.creationUnits.reserve({ storeId, unitId: lost, createNew: false });
    app.clock.set(later(16 * MINUTE));
    const next = unit();
    await limits.creationUnits.reserve({ storeId, unitId: next, createNew: false });
    await limits.creationUnits.confirm(next);
    app.clock.set(later(40 * MINUTE));
    await expect(limits.creationUnits.reserve({ storeId, unitId: unit(), createNew: false })).rejects.toMatchObject({
      details: { bucket: 'write_shop_per_day', limit: 1 },
    });
  });
});

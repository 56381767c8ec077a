import { ApiError } from '../../src/http/api-error';
import { runIdempotent, type IdempotentRequest } from '../../src/idempotency/idempotency';
import { eventually } from '../helpers/sandbox';
import { aStoreWithKey } from '../helpers/stores';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { secondAligned } from '../helpers/time';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => app.close());

const DAY = 86_400_000;
const base = (storeId: string, key: string, request: unknown, now: Date): IdempotentRequest => ({
  storeId,
  endpoint: 'POST /labels/{label_id}/printed',
  key,
  request,
  now,
  ttlMs: DAY,
  autoWindowMs: 60_000,
  leaseMs: 30_000,
});

describe('runIdempotent', () => {
  it('runs once and replays the first answer within 24 hours, then runs again', async () => {
    const { storeId } = await aStoreWithKey(app.orm);
    const t0 = new Date(secondAligned(Date.now()));
    let runs = 0;
    const handler = async () => ({ status: 200, body: { run: ++runs }, headers: {} });
    const first = await runIdempotent(app.orm, base(storeId, 'key-12345678', { label: 'lbl_a' }, t0), handler);
    const repeat = await runIdempotent(
      app.orm,
      base(storeId, 'key-12345678', { label: 'lbl_a' }, new Date(t0.getTime() + DAY - 1000)),
      handler,
    );
    expect(first).toEqual({ replayed: false, response: { status: 200, body: { run: 1 }, headers: {} } });
    expect(repeat).toEqual({ replayed: true, response: { status: 200, body: { run: 1 }, headers: {} } });
    const later = await runIdempotent(
      app.orm,
      base(storeId, 'key-12345678', { label: 'lbl_a' }, new Date(t0.getTime() + DAY)),
      handler,
    );
    expect(later.replayed).toBe(false);
    expect(runs).toBe(2);
  });

  it('refuses the same key for another request', async () => {
    const { storeId } = await aStoreWithKey(app.orm);
    const now = new Date();
    await runIdempotent(app.orm, base(storeId, 'key-conflict', { label: 'lbl_a' }, now), async () => ({
      status: 200,
      body: {},
      headers: {},
    }));
    await expect(
      runIdempotent(app.orm, base(storeId, 'key-conflict', { label: 'lbl_b' }, now), async () => ({
        status: 200,
        body: {},
        headers: {},
      })),
    ).rejects.toMatchObject({
      code: 'idempotency_conflict',
      details: { idempotency_key: 'key-conflict', retry: 'no', next_action: 'none' },
    });
  });

  it('answers in_flight with Retry-After 2 while the first request runs', async () => {
    const { storeId } = await aStoreWithKey(app.orm);
    const now = new Date();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const first = runIdempotent(app.orm, base(storeId, 'key-inflight', { label: 'lbl_a' }, now), async () => {
      await gate;
      return { status: 200, body: { ok: true }, headers: {} };
    });
    // Wait until the first request has claimed the key, however loaded the machine is.
    await eventually(async () => {
      const rows = await app.orm.em
        .fork()
        .execute('select 1 from idempotency_keys where store_id = ? and key = ?', [storeId, 'key-inflight']);
      return rows.length > 0 ? true : null;
    }, 200);
    const error = await runIdempotent(app.orm, base(storeId, 'key-inflight', { label: 'lbl_a' }, now), async () => ({
      status: 200,
      body: {},
      headers: {},
    })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({
      code: 'idempotency_conflict',
      headers: { 'Retry-After': '2' },
      details: { state: 'in_flight', retry: 'later', next_action: 'retry_later' },
    });
    release();
    expect((await first).response.body).toEqual({ ok: true });
  });

  it('with auto, refuses an identical request within 60 seconds as duplicate_request', async () => {
    const { storeId } = await aStoreWithKey(app.orm);
    const t0 = new Date(secondAligned(Date.now()));
    const handler = async () => ({ status: 200, body: {}, headers: {} });
    await runIdempotent(app.orm, base(storeId, 'auto', { label: 'lbl_a' }, t0), handler);
    await expect(
      runIdempotent(app.orm, base(storeId, 'auto', { label: 'lbl_a' }, new Date(t0.getTime() + 20_000)), handler),
    ).rejects.toMatchObject({
      code: 'duplicate_request',
      details: { ran_seconds_ago: 20, retry_after_seconds: 40 },
    });
    expect(
      (
        await runIdempotent(
          app.orm,
          base(storeId, 'auto', { label: 'lbl_b' }, new Date(t0.getTime() + 20_000)),
          handler,
        )
      ).replayed,
    ).toBe(false);
    expect(
      (
        await runIdempotent(
          app.orm,
          base(storeId, 'auto', { label: 'lbl_a' }, new Date(t0.getTime() + 60_000)),
          handler,
        )
      ).replayed,
    ).toBe(false);
  });

  it('replays a 4xx answer and releases the key after a 5xx', async () => {
    const { storeId } = await aStoreWithKey(app.orm);
    const now = new Date();
    await expect(
      runIdempotent(app.orm, base(storeId, 'key-gone', { label: 'lbl_a' }, now), async () => {
        throw new ApiError('document_expired', { details: { label_id: 'lbl_a' } });
      }),
    ).rejects.toMatchObject({ code: 'document_expired' });
    await expect(
      runIdempotent(app.orm, base(storeId, 'key-gone', { label: 'lbl_a' }, now), async () => ({
        status: 200,
        body: {},
        headers: {},
      })),
    ).rejects.toMatchObject({
      code: 'document_expired',
      status: 410,
      details: { label_id: 'lbl_a' },
      headers: { 'Idempotency-Replayed': 'true' },
    });
    await expect(
      runIdempotent(app.orm, base(storeId, 'key-boom', { label: 'lbl_a' }, now), async () => {
        throw new Error('database down');
      }),
    ).rejects.toThrow('database down');
    expect(
      (
        await runIdempotent(app.orm, base(storeId, 'key-boom', { label: 'lbl_a' }, now), async () => ({
          status: 200,
          body: { second: true },
          headers: {},
        }))
      ).response.body,
    ).toEqual({ second: true });
  });

  it('keeps keys of different stores apart', async () => {
    const a = await aStoreWithKey(app.orm);
    const b = await aStoreWithKey(app.orm);
    const now = new Date();
    await runIdempotent(app.orm, base(a.storeId, 'shared-key-1', { label: 'lbl_a' }, now), async () => ({
      status: 200,
      body: { store: 'a' },
      headers: {},
    }));
    const other = await runIdempotent(app.orm, base(b.storeId, 'shared-key-1', { label: 'lbl_b' }, now), async () => ({
      status: 200,
      body: { store: 'b' },
      headers: {},
    }));
    expect(other).toEqual({ replayed: false, response: { status: 200, body: { store: 'b' }, headers: {} } });
  });
});

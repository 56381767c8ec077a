import { withRenderLease } from '../../src/documents/render-leases';
import { eventually } from '../helpers/sandbox';
import { aStoreWithKey } from '../helpers/stores';
import { startTestApp, type TestApp } from '../helpers/test-app';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => app.close());

function blocked() {
  let release!: () => void;
  const done = new Promise<void>((resolve) => (release = resolve));
  return { done, release };
}

describe('render leases', () => {
  it('allow one render per label and format, three per store, and free the slot when done', async () => {
    const { storeId } = await aStoreWithKey(app.orm);
    const now = new Date();
    const gates = [blocked(), blocked(), blocked()];
    const running = ['lbl_1', 'lbl_2', 'lbl_3'].map((labelId, i) =>
      withRenderLease(app.orm, { storeId, labelId, format: 'label', now }, async () => {
        await gates[i]!.done;
        return labelId;
      }),
    );
    await eventually(async () => {
      const rows = await app.orm.em
        .fork()
        .getConnection()
        .execute<unknown[]>('select 1 from render_leases where store_id = ?', [storeId]);
      return rows.length === 3 ? true : null;
    }, 200);

    await expect(
      withRenderLease(app.orm, { storeId, labelId: 'lbl_1', format: 'label', now }, async () => 'x'),
    ).rejects.toMatchObject({
      code: 'render_in_progress',
      status: 409,
      headers: { 'Retry-After': '2' },
      details: { label_id: 'lbl_1' },
    });
    await expect(
      withRenderLease(app.orm, { storeId, labelId: 'lbl_4', format: 'label', now }, async () => 'x'),
    ).rejects.toMatchObject({
      code: 'render_in_progress',
      headers: { 'Retry-After': '5' },
      details: { label_id: 'lbl_4', concurrency_limit: 3 },
    });
    const other = await aStoreWithKey(app.orm);
    await expect(
      withRenderLease(
        app.orm,
        { storeId: other.storeId, labelId: 'lbl_9', format: 'label', now },
        async () => 'other store',
      ),
    ).resolves.toBe('other store');

    gates[0]!.release();
    await expect(running[0]).resolves.toBe('lbl_1');
    await expect(
      withRenderLease(app.orm, { storeId, labelId: 'lbl_1', format: 'a4', now }, async () => 'freed'),
    ).resolves.toBe('freed');
    gates[1]!.release();
    gates[2]!.release();
    await Promise.all(running);
  });

  it('expires leases left by a crashed process', async () => {
    const { storeId } = await aStoreWithKey(app.orm);
    const t0 = new Date('2026-11-01T10:00:00Z');
    await app.orm.em
      .fork()
      .getConnection()
      .execute(
        'insert into render_leases (label_id, format, store_id, acquired_at, expires_at) values (?, ?, ?, ?, ?)',
        [`lbl_crash_${storeId}`, 'label', storeId, t0, new Date(t0.getTime() + 60_000)],
      );
    await expect(
      withRenderLease(
        app.orm,
        { storeId, labelId: `lbl_crash_${storeId}`, format: 'label', now: new Date(t0.getTime() + 30_000) },
        async () => 1,
      ),
    ).rejects.toMatchObject({ code: 'render_in_progress' });
    await expect(
      withRenderLease(
        app.orm,
        { storeId, labelId: `lbl_crash_${storeId}`, format: 'label', now: new Date(t0.getTime() + 60_000) },
        async () => 2,
      ),
    ).resolves.toBe(2);
  });
});

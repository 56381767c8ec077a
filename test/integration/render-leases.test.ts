import { accountSettings } from '../../src/carriers/account-settings';
import { withRenderLease } from '../../src/documents/render-leases';
import { aCarrierAccount, aLabel } from '../helpers/labels';
import { expectError } from '../helpers/errors';
import { adapterFor, aShipmentRequest, eventually, FAULT_TIMEOUT_MS, scriptFaults } from '../helpers/sandbox';
import { aStoreWithKey } from '../helpers/stores';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { secondAligned } from '../helpers/time';

/**
 * The carrier timeout of the run (2 s) is too close to renders a loaded machine slows down: 30 renders of 400 ms each,
 * three at a time, through a sandbox other files load too, can tip one past it (503 `carrier_unavailable`, `timeout`).
 * This file's app gives the carrier a minute, so the lease tests see only leases; the timeout has a test of its own,
 * with an app whose timeout is far below the carrier's delay.
 */
const RENDER_TIMEOUT_OUT_OF_REACH = '60s';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ env: { CARRIER_TIMEOUT: RENDER_TIMEOUT_OUT_OF_REACH } });
});
afterAll(async () => app.close());

function blocked() {
  let release!: () => void;
  const done = new Promise<void>((resolve) => (release = resolve));
  return { done, release };
}

const leasesOf = async (storeId: string) =>
  (
    await app.orm.em
      .fork()
      .execute<Array<{ n: string }>>('select count(*) as n from render_leases where store_id = ?', [storeId])
  )[0]!.n;

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
    await eventually(async () => ((await leasesOf(storeId)) === '3' ? true : null), 200);

    await expect(
      withRenderLease(app.orm, { storeId, labelId: 'lbl_1', format: 'label', now }, async () => 'x'),
    ).rejects.toMatchObject({ code: 'render_in_progress', retryAfterSeconds: 2, details: { label_id: 'lbl_1' } });
    await expect(
      withRenderLease(app.orm, { storeId, labelId: 'lbl_4', format: 'label', now }, async () => 'x'),
    ).rejects.toMatchObject({
      code: 'render_in_progress',
      retryAfterSeconds: 5,
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
    expect(await leasesOf(storeId)).toBe('0');
  });

  it('expires leases left by a crashed process', async () => {
    const { storeId } = await aStoreWithKey(app.orm);
    const t0 = new Date(secondAligned(Date.now()));
    await app.orm.em
      .fork()
      .execute(
        'insert into render_leases (label_id, format, store_id, owner, acquired_at, expires_at) values (?, ?, ?, ?, ?, ?)',
        [`lbl_crash_${storeId}`, 'label', storeId, 'crashed-process', t0, new Date(t0.getTime() + 60_000)],
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

  it('is removed only by its owner: a render that outlived its lease leaves the next holder’s lease alone', async () => {
    const { storeId } = await aStoreWithKey(app.orm);
    const t0 = new Date(secondAligned(Date.now()));
    const slow = blocked();
    const first = withRenderLease(app.orm, { storeId, labelId: 'lbl_x', format: 'label', now: t0 }, () => slow.done);
    await eventually(async () => ((await leasesOf(storeId)) === '1' ? true : null), 200);
    // The first render's lease has expired (it is slow); a second one takes the label over.
    const second = blocked();
    const later = new Date(t0.getTime() + 61_000);
    const takeover = withRenderLease(app.orm, { storeId, labelId: 'lbl_x', format: 'label', now: later }, () =>
      second.done.then(() => 'second'),
    );
    await eventually(async () => {
      const [row] = await app.orm.em
        .fork()
        .execute<Array<{ acquired_at: string }>>('select acquired_at from render_leases where store_id = ?', [storeId]);
      return row && new Date(row.acquired_at).getTime() === later.getTime() ? true : null;
    }, 200);
    slow.release();
    await first;
    // The first render finished: the second render's lease is still there and still excludes a third.
    expect(await leasesOf(storeId)).toBe('1');
    await expect(
      withRenderLease(app.orm, { storeId, labelId: 'lbl_x', format: 'label', now: later }, async () => 'third'),
    ).rejects.toMatchObject({ code: 'render_in_progress' });
    second.release();
    await expect(takeover).resolves.toBe('second');
    expect(await leasesOf(storeId)).toBe('0');
  });
});

/** A carrier E label of the store (rendered at the carrier on demand, no stored copy). */
async function aRenderedLabel(storeId: string, accountId: string, settings: ReturnType<typeof accountSettings>) {
  const shipment = await adapterFor(settings).createShipment(settings, aShipmentRequest({ serviceCode: 'standard' }));
  return aLabel(app.orm, storeId, {
    carrierCode: 'carrier_e',
    carrierAccountId: accountId,
    carrierShipmentId: shipment.shipmentId,
    trackingNumber: shipment.trackingNumber,
  });
}

describe('a render that outlasts the carrier timeout', () => {
  // An app of its own whose carrier timeout is far below the delay the carrier is scripted with: the timeout is
  // certain however slow the machine is, and it is this test's subject rather than a load effect elsewhere.
  let short: TestApp;
  beforeAll(async () => {
    short = await startTestApp({ env: { CARRIER_TIMEOUT: `${FAULT_TIMEOUT_MS}ms` } });
  });
  afterAll(async () => short.close());

  it('answers 503 carrier_unavailable, reason timeout, with Retry-After 5, and frees its lease', async () => {
    const store = await aStoreWithKey(short.orm);
    const account = await aCarrierAccount(short.orm, store.storeId, { carrierCode: 'carrier_e', printerType: 'A6' });
    const label = await aRenderedLabel(store.storeId, account.id, accountSettings(account));
    await scriptFaults(account.id, [{ type: 'slow', operation: 'label', delay_ms: 30_000 }]);
    const res = await short.request('GET', `/v1/labels/${label.id}/document`, { headers: store.auth });
    expectError(res, 503, 'carrier_unavailable', {
      reason: 'timeout',
      label_id: label.id,
      retry_after_seconds: 5,
      retry: 'later',
      next_action: 'retry_later',
    });
    expect(res.headers.get('retry-after')).toBe('5');
    expect(await leasesOf(store.storeId)).toBe('0');
    // The next render, with no delay scripted, is served.
    const again = await short.request('GET', `/v1/labels/${label.id}/document`, { headers: store.auth });
    expect(again.status).toBe(200);
    expect(again.headers.get('service-label-source')).toBe('carrier');
  });
});

describe('30 concurrent renders of one store over HTTP', () => {
  it('never hold more than 3 leases and answer only 200 or 409 render_in_progress', async () => {
    const store = await aStoreWithKey(app.orm);
    const account = await aCarrierAccount(app.orm, store.storeId, { carrierCode: 'carrier_e', printerType: 'A6' });
    const settings = accountSettings(account);
    const labels = [];
    for (let i = 0; i < 10; i += 1) labels.push(await aRenderedLabel(store.storeId, account.id, settings));
    // Every render at the carrier takes a while, so the requests overlap (the carrier timeout is out of its reach).
    await scriptFaults(account.id, [{ type: 'slow', operation: 'label', delay_ms: 400, times: 30 }]);
    let maxLeases = 0;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        maxLeases = Math.max(maxLeases, Number(await leasesOf(store.storeId)));
        await new Promise((r) => setTimeout(r, 5));
      }
    })();
    // Three requests per label: the same label and format race each other, and ten labels race for 3 slots.
    const responses = await Promise.all(
      labels.flatMap((label) =>
        [0, 1, 2].map(() => app.request('GET', `/v1/labels/${label.id}/document`, { headers: store.auth })),
      ),
    );
    sampling = false;
    await sampler;
    // Any other answer is shown whole: a run that fails here says what came back.
    expect(responses.filter((r) => r.status !== 200 && r.status !== 409).map((r) => [r.status, r.body])).toEqual([]);
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(3);
    for (const refused of responses.filter((r) => r.status === 409)) {
      expect(refused.body.error.code).toBe('render_in_progress');
      expect(['2', '5']).toContain(refused.headers.get('retry-after'));
    }
    expect(maxLeases).toBeGreaterThan(0);
    expect(maxLeases).toBeLessThanOrEqual(3);
    expect(await leasesOf(store.storeId)).toBe('0');
  });
});

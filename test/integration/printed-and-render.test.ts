import { join } from 'node:path';
import { PDFDocument } from 'pdf-lib';
import { accountSettings } from '../../src/carriers/account-settings';
import { PAGE_SIZES } from '../../src/domain/carrier-catalog';
import { Label } from '../../src/db/entities/label';
import { aCarrierAccount, aLabel, aPdf, aPlatformId, aStoredDocument } from '../helpers/labels';
import { adapterFor, aShipmentRequest, control, eventually, ledger, scriptFaults } from '../helpers/sandbox';
import { aStoreWithKey } from '../helpers/stores';
import { freePort, spawnTs } from '../helpers/processes';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { expectError } from '../helpers/errors';
import { expectStatus } from '../helpers/status';

/**
 * The renders here are slowed on purpose (a render lease held while another request arrives): the carrier timeout of
 * the run (2 s) is out of their reach, so a loaded machine cannot turn a slow render into a 503 `timeout` (the
 * timeout has its own test in render-leases.test.ts).
 */
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ env: { CARRIER_TIMEOUT: '60s' } });
});
afterAll(async () => app.close());
afterEach(() => app.clock.reset());

const DAY = 86_400_000;

describe('labels rendered at the carrier on demand', () => {
  async function renderedLabel() {
    const store = await aStoreWithKey(app.orm);
    const account = await aCarrierAccount(app.orm, store.storeId, { carrierCode: 'carrier_e', printerType: '10x15' });
    const shipment = await adapterFor(accountSettings(account)).createShipment(
      accountSettings(account),
      aShipmentRequest({ serviceCode: 'standard' }),
    );
    const label = await aLabel(app.orm, store.storeId, {
      carrierCode: 'carrier_e',
      carrierAccountId: account.id,
      carrierShipmentId: shipment.shipmentId,
      trackingNumber: shipment.trackingNumber,
    });
    return { ...store, account, label };
  }

  it('renders through the side-effect-free print call in the portal size, source carrier', async () => {
    const { auth, label, account } = await renderedLabel();
    const res = await app.request('GET', `/v1/labels/${label.id}/document`, { headers: auth });
    expect(res.status).toBe(200);
    expect(res.headers.get('service-label-source')).toBe('carrier');
    const pdf = await PDFDocument.load(res.bytes);
    expect(pdf.getPageCount()).toBe(1);
    expect(pdf.getPage(0).getWidth()).toBeCloseTo(PAGE_SIZES['10x15'].width, 0);
    expect(pdf.getPage(0).getHeight()).toBeCloseTo(PAGE_SIZES['10x15'].height, 0);
    // Rendering again creates nothing at the carrier.
    expect((await app.request('GET', `/v1/labels/${label.id}/document?format=a4`, { headers: auth })).status).toBe(200);
    expect(await ledger(account.id)).toHaveLength(1);
    const single = await app.request('GET', `/v1/labels/${label.id}`, { headers: auth });
    expect(expectStatus(single, 200).document).toMatchObject({ availability: 'available', source: 'carrier' });
  });

  it('answers 503 carrier_unavailable with Retry-After 5 when the render fails', async () => {
    const { auth, label, account } = await renderedLabel();
    await scriptFaults(account.id, [{ type: 'render_error', times: 1 }]);
    const res = await app.request('GET', `/v1/labels/${label.id}/document`, { headers: auth });
    expectError(res, 503, 'carrier_unavailable', {
      reason: 'render_error',
      label_id: label.id,
      retry_after_seconds: 5,
      retry: 'later',
      next_action: 'retry_later',
    });
    expect(res.headers.get('retry-after')).toBe('5');
    expect((await app.request('GET', `/v1/labels/${label.id}/document`, { headers: auth })).status).toBe(200);
  });

  it('answers 409 render_in_progress while the same label and format renders', async () => {
    const { auth, label, account } = await renderedLabel();
    // Slow enough for the second request to arrive while the first renders, far within this app's carrier timeout.
    await scriptFaults(account.id, [{ type: 'slow', operation: 'label', delay_ms: 5000, times: 1 }]);
    const first = app.request('GET', `/v1/labels/${label.id}/document`, { headers: auth });
    // Wait until the first request holds its render lease, however loaded the machine is.
    await eventually(async () => {
      const rows = await app.orm.em.fork().execute('select 1 from render_leases where label_id = ?', [label.id]);
      return rows.length > 0 ? true : null;
    }, 200);
    const second = await app.request('GET', `/v1/labels/${label.id}/document`, { headers: auth });
    expectError(second, 409, 'render_in_progress', { label_id: label.id });
    expect(second.headers.get('retry-after')).toBe('2');
    expect((await first).status).toBe(200);
  });
});

describe('POST /v1/labels/{label_id}/printed', () => {
  async function printable(options: { createdAt?: Date } = {}) {
    const store = await aStoreWithKey(app.orm);
    const domain = expectStatus(await app.request('GET', '/v1/shop', { headers: store.auth }), 200).domain as string;
    const account = await aCarrierAccount(app.orm, store.storeId, {
      carrierCode: 'carrier_a',
      printTag: 'label-printed',
    });
    const orderId = aPlatformId();
    const put = await control('PUT', `/_control/stores/${domain}/orders`, {
      id: orderId,
      name: '#3003',
      tags: ['vip'],
    });
    expect(put.status).toBeLessThan(300);
    const label = await aLabel(app.orm, store.storeId, {
      orderId,
      orderName: '#3003',
      carrierCode: 'carrier_a',
      carrierAccountId: account.id,
      createdAt: options.createdAt ?? new Date(Date.now() - 60_000),
    });
    await aStoredDocument(app.orm, label.id, { pdf: await aPdf() });
    const tags = async () =>
      (await control('GET', `/platform/stores/${domain}/orders/${orderId}`)).body.order.tags as string[];
    const printedCount = async () => (await app.orm.em.fork().findOneOrFail(Label, { id: label.id })).printedCount;
    return { ...store, label, tags, printedCount };
  }

  it('counts a print, adds the print tag to the order and returns the label; a repeat replays and counts nothing', async () => {
    const { auth, label, tags, printedCount } = await printable();
    const headers = { ...auth, 'idempotency-key': 'print-0001-abc' };
    const res = await app.request('POST', `/v1/labels/${label.id}/printed`, { headers });
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(label.id);
    expect(res.body.updated_at).not.toBeNull();
    expect(res.headers.get('idempotency-replayed')).toBeNull();
    expect(await printedCount()).toBe(1);
    expect((await tags()).sort()).toEqual(['label-printed', 'vip']);

    const repeat = await app.request('POST', `/v1/labels/${label.id}/printed`, { headers });
    expect(repeat.status).toBe(200);
    expect(repeat.headers.get('idempotency-replayed')).toBe('true');
    expect(repeat.body).toEqual(res.body);
    expect(await printedCount()).toBe(1);

    const viaQuery = await app.request('POST', `/v1/labels/${label.id}/printed?idempotency_key=print-0002-abc`, {
      headers: auth,
    });
    expect(viaQuery.status).toBe(200);
    expect(await printedCount()).toBe(2);
  });

  it('refuses the same key for another label with idempotency_conflict', async () => {
    const { auth, label, storeId } = await printable();
    const other = await aLabel(app.orm, storeId, { carrierCode: 'carrier_a' });
    const headers = { ...auth, 'idempotency-key': 'print-shared-key' };
    expect((await app.request('POST', `/v1/labels/${label.id}/printed`, { headers })).status).toBe(200);
    expectError(await app.request('POST', `/v1/labels/${other.id}/printed`, { headers }), 409, 'idempotency_conflict', {
      idempotency_key: 'print-shared-key',
      retry: 'no',
      next_action: 'none',
    });
  });

  it('with Idempotency-Key: auto refuses an identical request within 60 seconds, then counts again', async () => {
    const { auth, label, printedCount } = await printable();
    const t0 = new Date();
    app.clock.set(t0);
    const headers = { ...auth, 'idempotency-key': 'auto' };
    expect((await app.request('POST', `/v1/labels/${label.id}/printed`, { headers })).status).toBe(200);
    app.clock.set(new Date(t0.getTime() + 15_000));
    const dup = await app.request('POST', `/v1/labels/${label.id}/printed`, { headers });
    expectError(dup, 409, 'duplicate_request', { ran_seconds_ago: 15, retry_after_seconds: 45 });
    expect(await printedCount()).toBe(1);
    app.clock.set(new Date(t0.getTime() + 61_000));
    expect((await app.request('POST', `/v1/labels/${label.id}/printed`, { headers })).status).toBe(200);
    expect(await printedCount()).toBe(2);
  });

  it('takes idempotency_key=auto in the query as in the header', async () => {
    const { auth, label, printedCount } = await printable();
    const t0 = new Date();
    app.clock.set(t0);
    const print = () => app.request('POST', `/v1/labels/${label.id}/printed?idempotency_key=auto`, { headers: auth });
    expect((await print()).status).toBe(200);
    app.clock.set(new Date(t0.getTime() + 5_000));
    expectError(await print(), 409, 'duplicate_request', { ran_seconds_ago: 5, retry_after_seconds: 55 });
    expect(await printedCount()).toBe(1);
  });

  it('needs a valid idempotency key', async () => {
    const { auth, label } = await printable();
    expectError(
      await app.request('POST', `/v1/labels/${label.id}/printed`, { headers: auth }),
      422,
      'validation_error',
    );
    const short = await app.request('POST', `/v1/labels/${label.id}/printed`, {
      headers: { ...auth, 'idempotency-key': 'short' },
    });
    expectError(short, 422, 'validation_error');
    expect(short.body.error.details).toMatchObject({ header: 'Idempotency-Key', min: 8, max: 255 });
    const long = await app.request('POST', `/v1/labels/${label.id}/printed?idempotency_key=${'k'.repeat(256)}`, {
      headers: auth,
    });
    expectError(long, 422, 'validation_error');
    expect(long.body.error.details).toMatchObject({ parameter: 'idempotency_key' });
  });

  it('answers 410 document_expired for a label older than 60 days, counts nothing, and replays it', async () => {
    const { auth, label, printedCount } = await printable({ createdAt: new Date(Date.now() - 61 * DAY) });
    const print = () =>
      app.request('POST', `/v1/labels/${label.id}/printed`, { headers: { ...auth, 'idempotency-key': 'old-label-1' } });
    const first = await print();
    expectError(first, 410, 'document_expired', { label_id: label.id });
    expect(first.headers.get('idempotency-replayed')).toBeNull();
    const repeat = await print();
    expectError(repeat, 410, 'document_expired', { label_id: label.id });
    expect(repeat.headers.get('idempotency-replayed')).toBe('true');
    expect(repeat.body.error.request_id).not.toBe(first.body.error.request_id);
    expect(await printedCount()).toBe(0);
  });

  it('answers 503 shopify_unavailable and counts nothing when the platform throttles', async () => {
    const { auth, label, printedCount } = await printable();
    const domain = expectStatus(await app.request('GET', '/v1/shop', { headers: auth }), 200).domain as string;
    await control('POST', `/_control/stores/${domain}/faults`, {
      faults: [{ type: 'throttled', times: 1, retry_after_seconds: 3 }],
    });
    const res = await app.request('POST', `/v1/labels/${label.id}/printed`, {
      headers: { ...auth, 'idempotency-key': 'throttled-1' },
    });
    expectError(res, 503, 'shopify_unavailable');
    expect(res.body.error.details).toMatchObject({ throttled: true, retry: 'later' });
    // The spec's value, not the platform's own Retry-After (3).
    expect(res.headers.get('retry-after')).toBe('5');
    expect(await printedCount()).toBe(0);
    expect(
      (
        await app.request('POST', `/v1/labels/${label.id}/printed`, {
          headers: { ...auth, 'idempotency-key': 'throttled-1' },
        })
      ).status,
    ).toBe(200);
    expect(await printedCount()).toBe(1);
  });

  it.each([
    ['the platform has no usable session (401)', 'unauthorized'],
    ['the platform is down (503)', 'unavailable'],
  ])('answers 503 shopify_unavailable with Retry-After 5 and counts nothing when %s', async (_name, type) => {
    const { auth, label, printedCount } = await printable();
    const domain = expectStatus(await app.request('GET', '/v1/shop', { headers: auth }), 200).domain as string;
    await control('POST', `/_control/stores/${domain}/faults`, { faults: [{ type }] });
    const res = await app.request('POST', `/v1/labels/${label.id}/printed`, {
      headers: { ...auth, 'idempotency-key': `platform-${type}` },
    });
    expectError(res, 503, 'shopify_unavailable', {
      what: 'order_tags',
      throttled: false,
      retry: 'later',
      next_action: 'retry_later',
    });
    expect(res.headers.get('retry-after')).toBe('5');
    expect(await printedCount()).toBe(0);
  });

  it('answers 503 shopify_unavailable (never 500) when the platform no longer knows the order', async () => {
    const { auth, storeId, printedCount } = await printable();
    const account = await aCarrierAccount(app.orm, storeId, { carrierCode: 'carrier_a', printTag: 'printed' });
    // A label whose order the platform does not have (deleted there).
    const orphan = await aLabel(app.orm, storeId, { carrierCode: 'carrier_a', carrierAccountId: account.id });
    const res = await app.request('POST', `/v1/labels/${orphan.id}/printed`, {
      headers: { ...auth, 'idempotency-key': 'orphan-order-1' },
    });
    expectError(res, 503, 'shopify_unavailable');
    expect(res.headers.get('retry-after')).toBe('5');
    expect((await app.orm.em.fork().findOneOrFail(Label, { id: orphan.id })).printedCount).toBe(0);
    expect(await printedCount()).toBe(0);
  });

  it('frees the key of a request whose process died mid-flight once its short lease runs out', async () => {
    const { auth, label, printedCount } = await printable();
    const domain = expectStatus(await app.request('GET', '/v1/shop', { headers: auth }), 200).domain as string;
    // The first request hangs in the platform call; its process is then killed.
    await control('POST', `/_control/stores/${domain}/faults`, { faults: [{ type: 'slow', delay_ms: 60_000 }] });
    const port = await freePort();
    const api = await spawnTs(
      join(__dirname, '..', '..', 'src', 'server.ts'),
      { ...process.env, PORT: String(port), IDEMPOTENCY_LEASE: '3s', LOG_LEVEL: 'silent' },
      'api',
    );
    const headers = { ...auth, 'idempotency-key': 'crash-print-1' };
    const hanging = fetch(`http://127.0.0.1:${port}/v1/labels/${label.id}/printed`, { method: 'POST', headers }).catch(
      () => null,
    );
    await eventually(async () => {
      const rows = await app.orm.em
        .fork()
        .execute(`select 1 from idempotency_keys where key = 'crash-print-1' and state = 'in_flight'`);
      return rows.length > 0 ? true : null;
    }, 200);
    api.kill('SIGKILL');
    await hanging;
    // Right after the crash the key is still held (the lease has not run out)...
    const early = await app.request('POST', `/v1/labels/${label.id}/printed`, { headers });
    expectError(early, 409, 'idempotency_conflict');
    expect(early.body.error.details).toMatchObject({ state: 'in_flight' });
    // ...and a moment later the same request goes through, once.
    const retried = await eventually(async () => {
      const res = await app.request('POST', `/v1/labels/${label.id}/printed`, { headers });
      return res.status === 200 ? res : null;
    }, 250);
    expect(retried.body.id).toBe(label.id);
    expect(await printedCount()).toBe(1);
  });

  it('downloading a document is not a print', async () => {
    const { auth, label, printedCount } = await printable();
    expect((await app.request('GET', `/v1/labels/${label.id}/document`, { headers: auth })).status).toBe(200);
    expect(await printedCount()).toBe(0);
  });

  it('is a write endpoint (write_access_required) that needs labels:print, and another store’s label is 404', async () => {
    const { label } = await printable();
    const readOnly = await aStoreWithKey(app.orm, { gates: { writeAccess: false } });
    expectError(
      await app.request('POST', `/v1/labels/${label.id}/printed`, {
        headers: { ...readOnly.auth, 'idempotency-key': 'key-12345678' },
      }),
      403,
      'write_access_required',
    );
    const writer = await aStoreWithKey(app.orm, { scopes: ['labels:write'] });
    expectError(
      await app.request('POST', `/v1/labels/${label.id}/printed`, {
        headers: { ...writer.auth, 'idempotency-key': 'key-12345678' },
      }),
      403,
      'insufficient_scope',
      {
        required_scope: 'labels:print',
        retry: 'no',
        next_action: 'none',
      },
    );
    const other = await aStoreWithKey(app.orm);
    const notFound = () =>
      app.request('POST', `/v1/labels/${label.id}/printed`, {
        headers: { ...other.auth, 'idempotency-key': 'key-12345678' },
      });
    const first = await notFound();
    expectError(first, 404, 'not_found');
    expect(first.headers.get('idempotency-replayed')).toBeNull();
    // The same key again within 24 hours: the stored 404, marked as replayed.
    const repeat = await notFound();
    expectError(repeat, 404, 'not_found');
    expect(repeat.headers.get('idempotency-replayed')).toBe('true');
  });
});

import { PDFDocument } from 'pdf-lib';
import { PAGE_SIZES } from '../../src/domain/carrier-catalog';
import { aLabel, aPdf, aPlatformId, aStoredDocument } from '../helpers/labels';
import { answer, apiClient } from '../helpers/api-client';
import { aStoreWithKey } from '../helpers/stores';
import { startTestApp, type TestApp, type TestResponse } from '../helpers/test-app';
import { expectError } from '../helpers/errors';
import { secondAligned } from '../helpers/time';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => app.close());
afterEach(() => app.clock.reset());

const DAY = 86_400_000;

// The document endpoints through the typed client, as a merchant downloads; deliberately wrong requests use
// `app.request`.
type Auth = { authorization: string };
const client = (auth: Auth) => apiClient(app, auth.authorization.replace(/^Bearer /, ''));
type Format = 'label' | 'a4' | 'zpl';
const labelDocument = (auth: Auth, labelId: string, query: { format?: Format } = {}) =>
  answer(
    client(auth).GET('/labels/{label_id}/document', {
      params: { path: { label_id: labelId }, query },
      parseAs: 'arrayBuffer',
    }),
  );
const orderDocument = (auth: Auth, orderId: string) =>
  answer(
    client(auth).GET('/orders/{order_id}/label-document', {
      params: { path: { order_id: orderId } },
      parseAs: 'arrayBuffer',
    }),
  );
const mergedDocuments = (auth: Auth, labelIds: string) =>
  answer(client(auth).GET('/label-documents', { params: { query: { label_ids: labelIds } }, parseAs: 'arrayBuffer' }));

async function pagesOf(res: TestResponse) {
  const pdf = await PDFDocument.load(res.bytes);
  return pdf.getPages().map((p) => ({ width: Math.round(p.getWidth()), height: Math.round(p.getHeight()) }));
}
const size = (name: keyof typeof PAGE_SIZES) => ({
  width: Math.round(PAGE_SIZES[name].width),
  height: Math.round(PAGE_SIZES[name].height),
});

async function storeWithStoredLabel(
  overrides: Parameters<typeof aLabel>[2] = {},
  sizes: Array<keyof typeof PAGE_SIZES> = ['A6'],
) {
  const store = await aStoreWithKey(app.orm);
  const label = await aLabel(app.orm, store.storeId, {
    carrierCode: 'carrier_a',
    orderName: '#1001',
    createdAt: new Date(),
    ...overrides,
  });
  await aStoredDocument(app.orm, label.id, {
    pdf: await aPdf(sizes, label.id),
    pageSize: sizes[0]!,
    pageCount: sizes.length,
  });
  return { ...store, label };
}

describe('GET /v1/labels/{label_id}/document', () => {
  it('serves the stored copy in the label-printer size with the document headers', async () => {
    const { auth, label } = await storeWithStoredLabel();
    const res = await labelDocument(auth, label.id);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="label-1001-${label.id}.pdf"`);
    expect(res.headers.get('service-label-source')).toBe('stored');
    expect(res.headers.get('service-label-format')).toBe('label');
    expect(res.headers.get('cache-control')).toBe('no-store, private');
    expect(await pagesOf(res)).toEqual([size('A6')]);
  });

  it('places the label on A4 with format=a4, one A4 page per label page', async () => {
    const { auth, label } = await storeWithStoredLabel({}, ['A6', 'A6']);
    const res = await labelDocument(auth, label.id, { format: 'a4' });
    expect(res.status).toBe(200);
    expect(res.headers.get('service-label-format')).toBe('a4');
    expect(await pagesOf(res)).toEqual([size('A4'), size('A4')]);
  });

  it('answers format_not_supported for zpl and for formats the carrier does not offer', async () => {
    const { auth, label } = await storeWithStoredLabel();
    expectError(await labelDocument(auth, label.id, { format: 'zpl' }), 422, 'format_not_supported', {
      label_id: label.id,
      requested_format: 'zpl',
      supported: ['label', 'a4'],
    });
    const c = await storeWithStoredLabel({ carrierCode: 'carrier_c' }, ['10.2x19.2']);
    expectError(await labelDocument(c.auth, c.label.id, { format: 'a4' }), 422, 'format_not_supported', {
      label_id: c.label.id,
      requested_format: 'a4',
      supported: ['label'],
    });
    const g = await storeWithStoredLabel({ carrierCode: 'carrier_g' });
    expectError(await labelDocument(g.auth, g.label.id), 422, 'format_not_supported', {
      label_id: g.label.id,
      requested_format: 'label',
      supported: ['a4'],
    });
  });

  it('answers format_not_supported before any availability answer, so nobody waits for an impossible format', async () => {
    const store = await aStoreWithKey(app.orm);
    const pending = await aLabel(app.orm, store.storeId, {
      carrierCode: 'carrier_c',
      status: 'pending',
      source: 'api',
    });
    const expired = await aLabel(app.orm, store.storeId, {
      carrierCode: 'carrier_a',
      createdAt: new Date(Date.now() - 61 * DAY),
    });
    for (const [label, format, supported] of [
      [pending, 'a4', ['label']],
      [pending, 'zpl', ['label']],
      [expired, 'zpl', ['label', 'a4']],
    ] as const) {
      const res = await app.request('GET', `/v1/labels/${label.id}/document?format=${format}`, {
        headers: store.auth,
      });
      expectError(res, 422, 'format_not_supported', { label_id: label.id, requested_format: format, supported });
      expect(res.headers.get('retry-after')).toBeNull();
    }
    // The same pending label in a format it has: the availability answer.
    const offered = await app.request('GET', `/v1/labels/${pending.id}/document`, { headers: store.auth });
    expectError(offered, 409, 'label_pending');
  });

  it('answers 503 carrier_unavailable (storage_error), never 500, for a stored copy that cannot be read', async () => {
    const whole = await aPdf(['A6']);
    for (const [what, bytes] of [
      ['not a PDF', Buffer.from('<html>oops</html>')],
      ['truncated', whole.subarray(0, whole.length - 300)],
      ['damaged inside', Buffer.from('%PDF-1.7\n1 0 obj garbage\n%%EOF\n')],
    ] as const) {
      const { auth, label } = await storeWithStoredLabel();
      await aStoredDocument(app.orm, label.id, { pdf: Buffer.from(bytes) });
      // `label` serves the bytes as they are (only checked); `a4` parses them. Both must refuse what cannot be read.
      for (const format of what === 'damaged inside' ? ['a4'] : ['label', 'a4']) {
        const res = await app.request('GET', `/v1/labels/${label.id}/document?format=${format}`, { headers: auth });
        expectError(res, 503, 'carrier_unavailable', {
          reason: 'storage_error',
          label_id: label.id,
          retry_after_seconds: 5,
          retry: 'later',
          next_action: 'retry_later',
        });
        expect(res.headers.get('retry-after')).toBe('5');
      }
    }
  });

  it('refuses unknown formats as a validation error', async () => {
    const { auth, label } = await storeWithStoredLabel();
    const res = await app.request('GET', `/v1/labels/${label.id}/document?format=png`, { headers: auth });
    expectError(res, 422, 'validation_error');
    expect(res.body.error.details).toMatchObject({
      parameter: 'format',
      received: 'png',
      allowed: ['label', 'a4', 'zpl'],
    });
  });

  describe('every availability maps to its answer', () => {
    it('pending label created through the API: 409 label_pending, Retry-After 2', async () => {
      const { storeId, auth } = await aStoreWithKey(app.orm);
      const label = await aLabel(app.orm, storeId, {
        carrierCode: 'carrier_b',
        status: 'pending',
        source: 'api',
        labelCreationId: 'lcr_x1',
        trackingNumber: null,
      });
      const res = await labelDocument(auth, label.id);
      expectError(res, 409, 'label_pending', { label_id: label.id, label_creation_id: 'lcr_x1' });
      expect(res.headers.get('retry-after')).toBe('2');
    });

    it('pending admin label: 409 label_pending, Retry-After 30', async () => {
      const { storeId, auth } = await aStoreWithKey(app.orm);
      const label = await aLabel(app.orm, storeId, {
        carrierCode: 'carrier_b',
        status: 'pending',
        source: 'admin',
        trackingNumber: null,
      });
      const res = await labelDocument(auth, label.id);
      expectError(res, 409, 'label_pending', { label_id: label.id, label_creation_id: null });
      expect(res.headers.get('retry-after')).toBe('30');
    });

    it('ready label whose PDF is not stored yet: 409 document_pending, Retry-After 2 then 60 after 10 minutes', async () => {
      const { storeId, auth } = await aStoreWithKey(app.orm);
      const created = new Date(secondAligned(Date.now() - DAY));
      const label = await aLabel(app.orm, storeId, {
        carrierCode: 'carrier_a',
        source: 'api',
        labelCreationId: 'lcr_x2',
        createdAt: created,
      });
      app.clock.set(new Date(created.getTime() + 9 * 60_000));
      const early = await labelDocument(auth, label.id);
      expectError(early, 409, 'document_pending', { label_id: label.id, label_creation_id: 'lcr_x2' });
      expect(early.headers.get('retry-after')).toBe('2');
      app.clock.set(new Date(created.getTime() + 10 * 60_000));
      const late = await labelDocument(auth, label.id);
      expectError(late, 409, 'document_pending');
      expect(late.headers.get('retry-after')).toBe('60');
    });

    it('older than 60 days: 410 document_expired', async () => {
      const { auth, label } = await storeWithStoredLabel({ createdAt: new Date(Date.now() - 61 * DAY) });
      expectError(await labelDocument(auth, label.id), 410, 'document_expired', { label_id: label.id });
    });

    it.each([
      ['a claim', { kind: 'claim' as const }, 'no_label'],
      ['a pickup order', { kind: 'collection' as const }, 'no_label'],
      [
        'a failed label',
        { status: 'failed' as const, failureReason: 'carrier_import_rejected' as const },
        'label_failed',
      ],
      ['an excluded carrier', { carrierCode: 'excluded_manifest' }, 'carrier_excluded'],
      ['another excluded carrier', { carrierCode: 'excluded_regional_3' }, 'carrier_excluded'],
    ])('%s: 422 document_unavailable with its reason', async (_name, overrides, reason) => {
      const { storeId, auth } = await aStoreWithKey(app.orm);
      const label = await aLabel(app.orm, storeId, { carrierCode: 'carrier_a', ...overrides });
      expectError(await labelDocument(auth, label.id), 422, 'document_unavailable', { label_id: label.id, reason });
    });

    it('an older batch file that may hold other labels: 422 document_unavailable not_isolated', async () => {
      const { storeId, auth } = await aStoreWithKey(app.orm);
      const label = await aLabel(app.orm, storeId, { carrierCode: 'carrier_b' });
      await aStoredDocument(app.orm, label.id, { notIsolated: true, pdf: await aPdf(['A6', 'A6']) });
      expectError(await labelDocument(auth, label.id), 422, 'document_unavailable', {
        label_id: label.id,
        reason: 'not_isolated',
      });
    });

    it('no stored copy at a carrier without a side-effect-free render: 410 label_not_reissuable', async () => {
      const { storeId, auth } = await aStoreWithKey(app.orm);
      const label = await aLabel(app.orm, storeId, { carrierCode: 'carrier_f' });
      expectError(await labelDocument(auth, label.id), 410, 'label_not_reissuable', { label_id: label.id });
      const stored = await storeWithStoredLabel({ carrierCode: 'carrier_f' });
      expect((await labelDocument(stored.auth, stored.label.id)).status).toBe(200);
    });
  });

  it('answers 404 for another store’s label and for malformed IDs, and needs labels:print', async () => {
    const { label } = await storeWithStoredLabel();
    const other = await aStoreWithKey(app.orm);
    expectError(await labelDocument(other.auth, label.id), 404, 'not_found');
    expectError(await labelDocument(other.auth, 'not-a-label'), 404, 'not_found');
    const reader = await aStoreWithKey(app.orm, { scopes: ['labels:write'] });
    expectError(await labelDocument(reader.auth, label.id), 403, 'insufficient_scope', {
      required_scope: 'labels:print',
      retry: 'no',
      next_action: 'none',
    });
  });

  it('logs the label count and byte size of a download', async () => {
    const { storeId, auth, label } = await storeWithStoredLabel();
    const res = await labelDocument(auth, label.id);
    await app.flushRequestLog();
    const rows = await app.orm.em
      .fork()
      .execute<Array<Record<string, unknown>>>(
        'select endpoint, status, label_count, byte_size from request_log where request_id = ?',
        [res.headers.get('x-request-id')],
      );
    expect(rows).toEqual([
      { endpoint: '/v1/labels/{label_id}/document', status: 200, label_count: 1, byte_size: res.bytes.length },
    ]);
    expect(storeId).toBeDefined();
  });
});

describe('GET /v1/orders/{order_id}/label-document', () => {
  it("merges the order's current outbound labels oldest first, without returns or superseded labels", async () => {
    const { storeId, auth } = await aStoreWithKey(app.orm);
    const orderId = aPlatformId();
    const t = Date.now() - 60 * 60_000;
    const [fo1, fo2] = [aPlatformId(), aPlatformId()];
    const superseded = await aLabel(app.orm, storeId, {
      orderId,
      orderName: '#2002',
      fulfillmentOrderIds: [fo1],
      carrierCode: 'carrier_a',
      createdAt: new Date(t),
    });
    const first = await aLabel(app.orm, storeId, {
      orderId,
      orderName: '#2002',
      fulfillmentOrderIds: [fo1],
      carrierCode: 'carrier_a',
      createdAt: new Date(t + 1000),
    });
    const second = await aLabel(app.orm, storeId, {
      orderId,
      orderName: '#2002',
      fulfillmentOrderIds: [fo2],
      carrierCode: 'carrier_c',
      createdAt: new Date(t + 2000),
    });
    const ret = await aLabel(app.orm, storeId, {
      orderId,
      orderName: '#2002',
      direction: 'return',
      carrierCode: 'carrier_a',
      createdAt: new Date(t + 3000),
    });
    await aStoredDocument(app.orm, superseded.id, { pdf: await aPdf(['10x15']) });
    await aStoredDocument(app.orm, first.id, { pdf: await aPdf(['A6']) });
    await aStoredDocument(app.orm, second.id, { pdf: await aPdf(['10.2x19.2']) });
    await aStoredDocument(app.orm, ret.id, { pdf: await aPdf(['roll_101x160']) });

    for (const ref of [orderId, `gid://shopify/Order/${orderId}`]) {
      const res = await orderDocument(auth, ref);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/pdf');
      expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="labels-2002-.*\.pdf"$/);
      expect(await pagesOf(res)).toEqual([size('A6'), size('10.2x19.2')]);
    }
  });

  it('orders labels created in the same second by insertion, whatever their IDs', async () => {
    const { storeId, auth } = await aStoreWithKey(app.orm);
    const orderId = aPlatformId();
    const second = new Date(Math.floor((Date.now() - 60_000) / 1000) * 1000);
    // Inserted first, but its ID sorts last.
    const older = await aLabel(app.orm, storeId, {
      id: `lbl_zz${aPlatformId()}`,
      orderId,
      fulfillmentOrderIds: [aPlatformId()],
      carrierCode: 'carrier_a',
      createdAt: second,
    });
    const newer = await aLabel(app.orm, storeId, {
      id: `lbl_aa${aPlatformId()}`,
      orderId,
      fulfillmentOrderIds: [aPlatformId()],
      carrierCode: 'carrier_a',
      createdAt: second,
    });
    await aStoredDocument(app.orm, older.id, { pdf: await aPdf(['A6']) });
    await aStoredDocument(app.orm, newer.id, { pdf: await aPdf(['10x15']) });
    const res = await app.request('GET', `/v1/orders/${orderId}/label-document`, { headers: auth });
    expect(res.status).toBe(200);
    expect(await pagesOf(res)).toEqual([size('A6'), size('10x15')]);
  });

  it('answers 409 ambiguous_current_set when two current labels share a fulfillment order', async () => {
    const { storeId, auth } = await aStoreWithKey(app.orm);
    const orderId = aPlatformId();
    const [fo1, fo2] = [aPlatformId(), aPlatformId()];
    const t = Date.now() - 60_000;
    const a = await aLabel(app.orm, storeId, { orderId, fulfillmentOrderIds: [fo1, fo2], createdAt: new Date(t) });
    const b = await aLabel(app.orm, storeId, { orderId, fulfillmentOrderIds: [fo2], createdAt: new Date(t + 1000) });
    const res = await orderDocument(auth, orderId);
    expectError(res, 409, 'ambiguous_current_set');
    expect(res.body.error.details).toEqual({
      order_id: `gid://shopify/Order/${orderId}`,
      current_label_ids: [a.id, b.id],
      conflicting_fulfillment_orders: [{ id: `gid://shopify/FulfillmentOrder/${fo2}`, legacy_id: fo2 }],
    });
  });

  it('answers 404 with details.order_id when there is no current outbound label, and plain 404 for malformed IDs', async () => {
    const { storeId, auth } = await aStoreWithKey(app.orm);
    const orderId = aPlatformId();
    await aLabel(app.orm, storeId, { orderId, direction: 'return', carrierCode: 'carrier_a' });
    expectError(await orderDocument(auth, orderId), 404, 'not_found', {
      order_id: `gid://shopify/Order/${orderId}`,
    });
    expectError(await orderDocument(auth, 'abc'), 404, 'not_found');
  });

  it("answers another store's order like an order without labels", async () => {
    const owner = await aStoreWithKey(app.orm);
    const orderId = aPlatformId();
    const label = await aLabel(app.orm, owner.storeId, {
      orderId,
      fulfillmentOrderIds: [aPlatformId()],
      carrierCode: 'carrier_a',
    });
    await aStoredDocument(app.orm, label.id, { pdf: await aPdf() });
    expect((await orderDocument(owner.auth, orderId)).status).toBe(200);
    const other = await aStoreWithKey(app.orm);
    expectError(await orderDocument(other.auth, orderId), 404, 'not_found', {
      order_id: `gid://shopify/Order/${orderId}`,
    });
  });

  it("fails whole with the failing label's own error", async () => {
    const { storeId, auth } = await aStoreWithKey(app.orm);
    const orderId = aPlatformId();
    const ok = await aLabel(app.orm, storeId, {
      orderId,
      fulfillmentOrderIds: [aPlatformId()],
      carrierCode: 'carrier_a',
      createdAt: new Date(Date.now() - 5000),
    });
    await aStoredDocument(app.orm, ok.id, { pdf: await aPdf() });
    const pending = await aLabel(app.orm, storeId, {
      orderId,
      fulfillmentOrderIds: [aPlatformId()],
      carrierCode: 'carrier_b',
      status: 'pending',
      source: 'api',
    });
    const res = await orderDocument(auth, orderId);
    expectError(res, 409, 'label_pending', { label_id: pending.id, label_creation_id: null });
    expect(res.headers.get('retry-after')).toBe('2');
  });
});

describe('GET /v1/label-documents', () => {
  it('merges up to 50 labels in the order given, every page of each', async () => {
    const { storeId, auth } = await aStoreWithKey(app.orm);
    const labels = [];
    for (const [carrierCode, sizes] of [
      ['carrier_c', ['10.2x19.2']],
      ['carrier_a', ['A6']],
      ['carrier_d', ['roll_101x160', 'roll_101x160']],
    ] as const) {
      const label = await aLabel(app.orm, storeId, { carrierCode });
      await aStoredDocument(app.orm, label.id, { pdf: await aPdf([...sizes]) });
      labels.push(label);
    }
    const res = await mergedDocuments(auth, labels.map((l) => l.id).join(','));
    expect(res.status).toBe(200);
    expect(await pagesOf(res)).toEqual([size('10.2x19.2'), size('A6'), size('roll_101x160'), size('roll_101x160')]);
    await app.flushRequestLog();
    const rows = await app.orm.em
      .fork()
      .execute<Array<{ label_count: number }>>('select label_count from request_log where request_id = ?', [
        res.headers.get('x-request-id'),
      ]);
    expect(rows[0]!.label_count).toBe(3);
  });

  it('answers 404 when any ID is unknown, of another store or malformed', async () => {
    const { storeId, auth } = await aStoreWithKey(app.orm);
    const mine = await aLabel(app.orm, storeId, { carrierCode: 'carrier_a' });
    await aStoredDocument(app.orm, mine.id, { pdf: await aPdf() });
    const other = await storeWithStoredLabel();
    for (const ids of [
      `${mine.id},${other.label.id}`,
      `${mine.id},lbl_doesnotexist00000000000`,
      `${mine.id},garbage`,
    ]) {
      expectError(await mergedDocuments(auth, ids), 404, 'not_found');
    }
  });

  it('answers 503 storage_error naming the label whose stored copy cannot be parsed', async () => {
    const { storeId, auth } = await aStoreWithKey(app.orm);
    const good = await aLabel(app.orm, storeId, { carrierCode: 'carrier_a' });
    const bad = await aLabel(app.orm, storeId, { carrierCode: 'carrier_a' });
    await aStoredDocument(app.orm, good.id, { pdf: await aPdf(['A6']) });
    await aStoredDocument(app.orm, bad.id, { pdf: Buffer.from('%PDF-1.7\n1 0 obj garbage\n%%EOF\n') });
    const res = await app.request('GET', `/v1/label-documents?label_ids=${good.id},${bad.id}`, { headers: auth });
    expect(res.status).toBe(503);
    expect(res.body.error).toMatchObject({
      code: 'carrier_unavailable',
      details: { reason: 'storage_error', label_id: bad.id },
    });
    expect(res.headers.get('retry-after')).toBe('5');
  });

  it("is all-or-nothing with the failing label's own error", async () => {
    const { storeId, auth } = await aStoreWithKey(app.orm);
    const ok = await aLabel(app.orm, storeId, { carrierCode: 'carrier_a' });
    await aStoredDocument(app.orm, ok.id, { pdf: await aPdf() });
    const old = await aLabel(app.orm, storeId, {
      carrierCode: 'carrier_a',
      createdAt: new Date(Date.now() - 70 * DAY),
    });
    await aStoredDocument(app.orm, old.id, { pdf: await aPdf() });
    expectError(await mergedDocuments(auth, `${ok.id},${old.id}`), 410, 'document_expired', { label_id: old.id });
  });

  it('validates label_ids: at most 50, no repeats, present', async () => {
    const { auth } = await aStoreWithKey(app.orm);
    const many = Array.from({ length: 51 }, (_, i) => `lbl_${String(i).padStart(24, '0')}`).join(',');
    expect((await mergedDocuments(auth, many)).body.error).toMatchObject({
      code: 'validation_error',
      details: { parameter: 'label_ids', max: 50 },
    });
    expect((await mergedDocuments(auth, 'lbl_a,lbl_a')).body.error).toMatchObject({
      code: 'validation_error',
      details: { parameter: 'label_ids' },
    });
    expect((await app.request('GET', '/v1/label-documents', { headers: auth })).body.error).toMatchObject({
      code: 'validation_error',
      details: { parameter: 'label_ids' },
    });
    // Given twice, as some query builders write a list: one parameter, its values comma-separated.
    const repeated = await app.request('GET', '/v1/label-documents?label_ids=lbl_a&label_ids=lbl_b', { headers: auth });
    expect(repeated.status).toBe(422);
    expect(repeated.body.error).toMatchObject({
      code: 'validation_error',
      message: '`label_ids` is given 2 times; give it once, its values comma-separated (label_ids=a,b).',
      details: { parameter: 'label_ids', received: ['lbl_a', 'lbl_b'] },
    });
    const twice = await app.request('GET', '/v1/label-documents?label_ids=lbl_a&format=a4&format=label', {
      headers: auth,
    });
    expect(twice.body.error).toMatchObject({ message: '`format` is given 2 times; give it once.' });
  });
});

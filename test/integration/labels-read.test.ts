import { updateLabelState, type NewLabel } from '../../src/db/labels-repository';
import { aCarrierAccount, aLabel, aPlatformId, aStoredDocument, someLabels } from '../helpers/labels';
import type { operations } from '../../client/src/index';
import { answer, apiClient } from '../helpers/api-client';
import { aStoreWithKey } from '../helpers/stores';
import { startTestApp, type TestApp, type TestResponse } from '../helpers/test-app';
import { DAY, HOUR, MINUTE, SECOND, isoSeconds, isoSecondsInZone, utcDayStart } from '../helpers/time';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => app.close());

type Auth = { authorization: string };
// Deliberately wrong queries go through `app.request`; everything else through the typed client, as a merchant calls.
const get = (auth: Auth, path: string) => app.request('GET', path, { headers: auth });
const client = (auth: Auth) => apiClient(app, auth.authorization.replace(/^Bearer /, ''));
type ListQuery = NonNullable<operations['listLabels']['parameters']['query']>;
const listLabels = (auth: Auth, query: ListQuery = {}) => answer(client(auth).GET('/labels', { params: { query } }));
const getLabel = (auth: Auth, labelId: string) =>
  answer(client(auth).GET('/labels/{label_id}', { params: { path: { label_id: labelId } } }));

function expectValidationError(res: TestResponse, parameter: string) {
  expect(res.status).toBe(422);
  expect(res.body.error.code).toBe('validation_error');
  expect(res.body.error.details.parameter).toBe(parameter);
}

const ids = (res: TestResponse) => (res.body.data as Array<{ id: string }>).map((l) => l.id);
// Labels of ten days ago (from midnight UTC): inside their 60 days on the real clock too, where a test does not set
// the app's clock.
const D0 = utcDayStart(Date.now()) - 10 * DAY;
const at = (sinceD0: number) => new Date(D0 + sinceD0);
const iso = (sinceD0: number) => isoSeconds(D0 + sinceD0);

describe('GET /v1/labels/{label_id}', () => {
  it('returns every field of the label object', async () => {
    const store = await aStoreWithKey(app.orm);
    const account = await aCarrierAccount(app.orm, store.storeId, { carrierCode: 'carrier_a' });
    const label = await aLabel(app.orm, store.storeId, {
      orderId: 'gid://shopify/Order/5550001',
      orderName: '#1001',
      fulfillmentOrderIds: ['7770001', 'gid://shopify/FulfillmentOrder/7770002'],
      carrierCode: 'carrier_a',
      carrierAccountId: account.id,
      service: { code: 'home', name: 'Home delivery' },
      source: 'api',
      cod: { amount: 120, currency: 'CZK', source: 'payment_gateway' },
      declaredValue: { amount: '99.5', currency: 'CZK' },
      trackingNumber: 'Z123',
      trackingUrl: 'https://track.example/Z123',
      parcels: [{ trackingNumber: 'Z123', trackingUrl: 'https://track.example/Z123', weightGrams: 1200 }],
      batchId: 'batch-1',
      extras: { consign_password: 'secret-1' },
      createdAt: at(12 * HOUR + 700),
      updatedAt: at(12 * HOUR + 5 * MINUTE),
    });
    await aStoredDocument(app.orm, label.id);
    app.clock.set(at(DAY));

    const res = await getLabel(store.auth, label.id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: label.id,
      order: { id: 'gid://shopify/Order/5550001', legacy_id: '5550001', name: '#1001' },
      fulfillment_orders: [
        { id: 'gid://shopify/FulfillmentOrder/7770001', legacy_id: '7770001' },
        { id: 'gid://shopify/FulfillmentOrder/7770002', legacy_id: '7770002' },
      ],
      direction: 'outbound',
      kind: 'shipment',
      status: 'ready',
      failure_reason: null,
      current: true,
      supersedes: [],
      superseded_by: [],
      current_set: 'ok',
      carrier: { code: 'carrier_a', name: 'Carrier A', account_id: account.id },
      service: { code: 'home', name: 'Home delivery' },
      source: 'api',
      cod: { amount: '120.00', currency: 'CZK', source: 'payment_gateway' },
      declared_value: { amount: '99.50', currency: 'CZK' },
      tracking_number: 'Z123',
      tracking_url: 'https://track.example/Z123',
      parcels: [{ tracking_number: 'Z123', tracking_url: 'https://track.example/Z123', weight_grams: 1200 }],
      batch_id: 'batch-1',
      document: {
        availability: 'available',
        source: 'stored',
        formats: ['label', 'a4'],
        available_until: iso(60 * DAY + 12 * HOUR),
        url: `${app.baseUrl}/v1/labels/${label.id}/document`,
      },
      extras: { consign_password: 'secret-1' },
      created_at: iso(12 * HOUR),
      updated_at: iso(12 * HOUR + 5 * MINUTE),
    });
    app.clock.reset();
  });

  it('sends null for what is missing and {} extras for carriers other than A', async () => {
    const store = await aStoreWithKey(app.orm);
    const label = await aLabel(app.orm, store.storeId, {
      carrierCode: 'carrier_c',
      source: null,
      extras: { ignored: true },
      trackingNumber: null,
    });
    const res = await getLabel(store.auth, label.id);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      carrier: { code: 'carrier_c', name: 'Carrier C', account_id: null },
      service: null,
      source: null,
      cod: null,
      declared_value: null,
      tracking_number: null,
      tracking_url: null,
      batch_id: null,
      extras: {},
      updated_at: null,
      fulfillment_orders: [],
    });
  });

  it.each([
    ['a claim', { kind: 'claim' as const, carrierCode: 'carrier_a' }, null, 'not_applicable'],
    ['a collection', { kind: 'collection' as const }, null, 'not_applicable'],
    [
      'a failed label',
      { status: 'failed' as const, failureReason: 'carrier_import_rejected' as const },
      null,
      'not_applicable',
    ],
    ['an excluded carrier', { carrierCode: 'excluded_image' }, null, 'carrier_excluded'],
    ['a pending label', { status: 'pending' as const, carrierCode: 'carrier_b' }, null, 'pending'],
    ['a ready label whose PDF is not stored yet', { carrierCode: 'carrier_a' }, null, 'pending'],
    ['a render carrier without stored copy', { carrierCode: 'carrier_e' }, null, 'available'],
    ['a no-reissue carrier without stored copy', { carrierCode: 'carrier_f' }, null, 'not_reissuable'],
    ['an older batch file', { carrierCode: 'carrier_b' }, { notIsolated: true }, 'not_isolated'],
    [
      // The app reads the real clock here.
      'a stored label older than 60 days',
      { carrierCode: 'carrier_a', createdAt: new Date(Date.now() - 61 * DAY) },
      { notIsolated: false },
      'expired',
    ],
  ])('derives document.availability for %s', async (_name, overrides, document, availability) => {
    const store = await aStoreWithKey(app.orm);
    const label = await aLabel(app.orm, store.storeId, overrides);
    if (document) await aStoredDocument(app.orm, label.id, document);
    const res = await getLabel(store.auth, label.id);
    expect(res.status).toBe(200);
    expect(res.body.document.availability).toBe(availability);
    if ((overrides as Partial<NewLabel>).status === 'failed')
      expect(res.body.failure_reason).toBe('carrier_import_rejected');
  });

  it('answers 404 not_found alike for another store’s label, a nonexistent and a malformed ID', async () => {
    const mine = await aStoreWithKey(app.orm);
    const other = await aStoreWithKey(app.orm);
    const theirs = await aLabel(app.orm, other.storeId);
    const answers = await Promise.all(
      [theirs.id, 'lbl_AAAAAAAAAAAAAAAAAAAAAAAA', 'not-a-label', 'lbl_%24%24', 'ca_AAAAAAAAAAAAAAAAAAAAAAAA'].map(
        (id) => getLabel(mine.auth, id),
      ),
    );
    for (const res of answers) {
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('not_found');
      expect(res.body.error.details).toBeUndefined();
      expect(res.body.error.message).toBe(answers[0]!.body.error.message);
    }
    expect((await getLabel(other.auth, theirs.id)).status).toBe(200);
  });
});

describe('current, supersedes and current_set as seen through the API', () => {
  it('a replacement supersedes the older label; a partial label makes the set ambiguous on every label', async () => {
    const store = await aStoreWithKey(app.orm);
    const orderId = aPlatformId();
    const [fo1, fo2] = [aPlatformId(), aPlatformId()];
    const first = await aLabel(app.orm, store.storeId, {
      orderId,
      fulfillmentOrderIds: [fo1, fo2],
      createdAt: at(10 * HOUR),
    });
    const second = await aLabel(app.orm, store.storeId, {
      orderId,
      fulfillmentOrderIds: [fo1, fo2],
      createdAt: at(11 * HOUR),
    });
    const returnLabel = await aLabel(app.orm, store.storeId, {
      orderId,
      direction: 'return',
      fulfillmentOrderIds: [fo1],
      createdAt: at(11 * HOUR + 30 * MINUTE),
    });

    let res = await getLabel(store.auth, first.id);
    expect(res.body).toMatchObject({ current: false, superseded_by: [second.id], supersedes: [], current_set: 'ok' });
    res = await getLabel(store.auth, second.id);
    expect(res.body).toMatchObject({ current: true, supersedes: [first.id], superseded_by: [], current_set: 'ok' });

    const partial = await aLabel(app.orm, store.storeId, {
      orderId,
      fulfillmentOrderIds: [fo1],
      createdAt: at(12 * HOUR),
    });
    const list = await listLabels(store.auth, { order_id: orderId, direction: 'outbound' });
    expect(ids(list)).toEqual([partial.id, second.id, first.id]);
    expect(list.body.data.map((l: any) => [l.current, l.current_set])).toEqual([
      [true, 'ambiguous'],
      [true, 'ambiguous'],
      [false, 'ambiguous'],
    ]);
    // The other direction is its own set.
    res = await getLabel(store.auth, returnLabel.id);
    expect(res.body).toMatchObject({ current: true, current_set: 'ok' });

    // A failed label is never current: failing the partial label leaves the replacement alone and unambiguous.
    await updateLabelState(app.orm.em.fork(), {
      storeId: store.storeId,
      labelId: partial.id,
      patch: { status: 'failed', failureReason: 'not_finalized' },
      now: at(12 * HOUR + 30 * MINUTE),
    });
    const after = await listLabels(store.auth, { order_id: orderId, direction: 'outbound' });
    expect(after.body.data.map((l: any) => [l.id, l.status, l.current, l.current_set, l.updated_at])).toEqual([
      [partial.id, 'failed', false, 'ok', iso(12 * HOUR + 30 * MINUTE)],
      [second.id, 'ready', true, 'ok', null],
      [first.id, 'ready', false, 'ok', null],
    ]);
    expect(after.body.data[0].failure_reason).toBe('not_finalized');
  });
});

describe('label reads answer the label as it is now (wire JSON kept in memory by row version, decision 0020)', () => {
  it('shows every change of the row, of its fulfillment orders, of its stored copy, and of its age', async () => {
    const store = await aStoreWithKey(app.orm);
    const label = await aLabel(app.orm, store.storeId, {
      carrierCode: 'carrier_a',
      fulfillmentOrderIds: ['8880001'],
      createdAt: at(12 * HOUR),
    });
    app.clock.set(at(DAY));
    const both = async () => {
      const single = await getLabel(store.auth, label.id);
      const page = await listLabels(store.auth);
      expect(single.status).toBe(200);
      expect(page.body.data).toEqual([single.body]);
      return single.body;
    };
    // Carrier A stores copies: ready without a stored copy is pending, twice from the same row.
    expect((await both()).document.availability).toBe('pending');
    expect((await both()).document.availability).toBe('pending');

    await aStoredDocument(app.orm, label.id);
    expect((await both()).document).toMatchObject({ availability: 'available', source: 'stored' });

    await app.orm.em.fork().execute(
      `insert into label_fulfillment_orders (label_id, fulfillment_order_gid, fulfillment_order_legacy_id, store_id)
         values (?, 'gid://shopify/FulfillmentOrder/8880002', '8880002', ?)`,
      [label.id, store.storeId],
    );
    expect((await both()).fulfillment_orders.map((fo: { legacy_id: string }) => fo.legacy_id)).toEqual([
      '8880001',
      '8880002',
    ]);

    await updateLabelState(app.orm.em.fork(), {
      storeId: store.storeId,
      labelId: label.id,
      patch: { trackingNumber: 'NEW-1' },
      now: at(DAY),
    });
    expect(await both()).toMatchObject({ tracking_number: 'NEW-1', updated_at: iso(DAY) });

    // Nothing in the row moves at 60 days; the answer does.
    app.clock.set(at(60 * DAY + 12 * HOUR));
    expect((await both()).document.availability).toBe('available');
    app.clock.set(at(60 * DAY + 12 * HOUR + SECOND));
    expect((await both()).document.availability).toBe('expired');
  });

  it('answers a label deleted and inserted again under the same ID with its new content', async () => {
    const store = await aStoreWithKey(app.orm);
    const id = `lbl_again_${aPlatformId()}`;
    await aLabel(app.orm, store.storeId, { id, trackingNumber: 'FIRST' });
    expect((await getLabel(store.auth, id)).body.tracking_number).toBe('FIRST');
    await app.orm.em.fork().execute('delete from labels where id = ?', [id]);
    await aLabel(app.orm, store.storeId, { id, trackingNumber: 'SECOND' });
    expect((await getLabel(store.auth, id)).body.tracking_number).toBe('SECOND');
    expect((await listLabels(store.auth)).body.data.map((l: { tracking_number: string }) => l.tracking_number)).toEqual(
      ['SECOND'],
    );
  });
});

describe('GET /v1/labels filters', () => {
  it('never lists other stores’ labels', async () => {
    const mine = await aStoreWithKey(app.orm);
    const other = await aStoreWithKey(app.orm);
    const own = await aLabel(app.orm, mine.storeId);
    const theirs = await aLabel(app.orm, other.storeId, { batchId: 'shared-batch' });
    await aLabel(app.orm, mine.storeId, { batchId: 'shared-batch' });
    const all = await listLabels(mine.auth);
    expect(all.status).toBe(200);
    expect(ids(all)).toContain(own.id);
    expect(ids(all)).not.toContain(theirs.id);
    expect(ids(await listLabels(mine.auth, { order_id: theirs.orderLegacyId }))).toEqual([]);
    expect((await listLabels(mine.auth, { batch_id: 'shared-batch' })).body.data).toHaveLength(1);
  });

  it('filters by order_id as numeric IDs or GIDs, comma separated', async () => {
    const store = await aStoreWithKey(app.orm);
    const [a, b, c] = await someLabels(app.orm, store.storeId, [
      { createdAt: at(10 * HOUR) },
      { createdAt: at(11 * HOUR) },
      {},
    ]);
    expect(ids(await listLabels(store.auth, { order_id: a!.orderLegacyId }))).toEqual([a!.id]);
    expect(ids(await listLabels(store.auth, { order_id: b!.orderGid }))).toEqual([b!.id]);
    expect(ids(await listLabels(store.auth, { order_id: `${a!.orderLegacyId},${b!.orderGid}` }))).toEqual([
      b!.id,
      a!.id,
    ]);
    expect(ids(await listLabels(store.auth, { order_id: '1' }))).toEqual([]);
    expect(c).toBeDefined();
  });

  it('filters by the exact order_name, a leading # optional; case counts (spec "GET /labels")', async () => {
    const store = await aStoreWithKey(app.orm);
    const label = await aLabel(app.orm, store.storeId, { orderName: '#SK1001' });
    const other = await aLabel(app.orm, store.storeId, { orderName: '#sk1001' });
    await aLabel(app.orm, store.storeId, { orderName: '#SK10011' });
    for (const name of ['#SK1001', 'SK1001']) {
      expect(ids(await listLabels(store.auth, { order_name: name }))).toEqual([label.id]);
    }
    expect(ids(await listLabels(store.auth, { order_name: 'sk1001' }))).toEqual([other.id]);
    for (const name of ['Sk1001', 'SK100', '##SK1001']) {
      expect(ids(await listLabels(store.auth, { order_name: name }))).toEqual([]);
    }
  });

  it('filters by batch_id, tracking_number, direction, status and current', async () => {
    const store = await aStoreWithKey(app.orm);
    const orderId = aPlatformId();
    const fo = aPlatformId();
    const [old, replacement, ret, pending, failed] = await someLabels(app.orm, store.storeId, [
      {
        orderId,
        fulfillmentOrderIds: [fo],
        batchId: 'b-1',
        trackingNumber: 'T-OLD',
        createdAt: at(10 * HOUR),
      },
      {
        orderId,
        fulfillmentOrderIds: [fo],
        batchId: 'b-2',
        trackingNumber: 'T-NEW',
        createdAt: at(10 * HOUR + SECOND),
      },
      { orderId, direction: 'return', trackingNumber: 'T-RET', createdAt: at(10 * HOUR + 2 * SECOND) },
      { status: 'pending', trackingNumber: null, createdAt: at(10 * HOUR + 3 * SECOND) },
      { status: 'failed', createdAt: at(10 * HOUR + 4 * SECOND) },
    ]);
    const q = async (query: string) => ids(await get(store.auth, `/v1/labels?${query}`));
    expect(await q('batch_id=b-1')).toEqual([old!.id]);
    expect(await q('tracking_number=T-NEW')).toEqual([replacement!.id]);
    expect(await q('tracking_number=t-new')).toEqual([]);
    expect(await q('direction=return')).toEqual([ret!.id]);
    expect(await q('direction=outbound')).toEqual([failed!.id, pending!.id, replacement!.id, old!.id]);
    expect(await q('status=pending')).toEqual([pending!.id]);
    expect(await q('status=failed')).toEqual([failed!.id]);
    expect(await q('status=ready')).toEqual([ret!.id, replacement!.id, old!.id]);
    expect(await q('current=false')).toEqual([failed!.id, old!.id]);
    expect(await q('current=true&direction=outbound')).toEqual([pending!.id, replacement!.id]);
  });

  it('applies created_after, created_before and updated_after inclusively at second precision', async () => {
    const store = await aStoreWithKey(app.orm);
    const [a, b, c] = await someLabels(app.orm, store.storeId, [
      { createdAt: at(10 * HOUR), updatedAt: null },
      { createdAt: at(10 * HOUR + SECOND), updatedAt: at(DAY + 8 * HOUR) },
      { createdAt: at(10 * HOUR + 2 * SECOND), updatedAt: at(DAY + 9 * HOUR) },
    ]);
    const q = async (query: string) => ids(await get(store.auth, `/v1/labels?${query}`));
    const bAt = 10 * HOUR + SECOND;
    expect(await q(`created_after=${iso(bAt)}`)).toEqual([c!.id, b!.id]);
    expect(await q(`created_after=${at(bAt + 999).toISOString()}`)).toEqual([c!.id, b!.id]);
    expect(await q(`created_before=${iso(bAt)}`)).toEqual([b!.id, a!.id]);
    const inPrague = encodeURIComponent(isoSecondsInZone(D0 + bAt, 120));
    expect(await q(`created_after=${inPrague}&created_before=${iso(bAt)}`)).toEqual([b!.id]);
    expect(await q(`updated_after=${iso(DAY + 9 * HOUR)}`)).toEqual([c!.id]);
    expect(await q(`updated_after=${iso(DAY + 7 * HOUR)}&sort=created_at&batch_id=none`)).toEqual([]);
    expect(await q(`updated_after=${iso(DAY + 7 * HOUR)}&sort=created_at`)).toEqual([b!.id, c!.id]);
  });

  it('reads created_after and created_before with a fraction of a second and any offset as the second they fall in', async () => {
    // More reads in a row than the spec's 10 per second per key: support's override keeps the bucket out of the way.
    const store = await aStoreWithKey(app.orm, { limits: { read_key_per_second: 100 } });
    const [a, b, c] = await someLabels(app.orm, store.storeId, [
      { createdAt: at(11 * HOUR) },
      { createdAt: at(11 * HOUR + SECOND) },
      { createdAt: at(11 * HOUR + 2 * SECOND) },
    ]);
    const q = async (query: string) => ids(await get(store.auth, `/v1/labels?${query}`));
    // b's second, written west and east of UTC (half-hour and quarter-hour zones too) with fractions of a second.
    const bAt = D0 + 11 * HOUR + SECOND;
    const inZone = (offsetMinutes: number, fraction: string) =>
      encodeURIComponent(isoSecondsInZone(bAt, offsetMinutes, fraction));
    for (const [offset, fraction] of [
      [-330, '.999999999'],
      [345, '.5'],
      [-720, '.001'],
      [840, '.000'],
    ] as const) {
      expect(await q(`created_after=${inZone(offset, fraction)}`)).toEqual([c!.id, b!.id]);
      expect(await q(`created_before=${inZone(offset, fraction)}`)).toEqual([b!.id, a!.id]);
      expect(await q(`created_after=${inZone(offset, fraction)}&created_before=${inZone(-offset, fraction)}`)).toEqual([
        b!.id,
      ]);
    }
    // A fraction of b's second is still b's second: a bound never reaches into the next one.
    expect(await q(`created_before=${inZone(0, '.999')}&created_after=${inZone(0, '.999')}`)).toEqual([b!.id]);
  });
});

describe('GET /v1/labels validation', () => {
  it.each([
    ['limit=0', 'limit'],
    ['limit=251', 'limit'],
    ['limit=abc', 'limit'],
    ['limit=1.5', 'limit'],
    ['order_id=abc', 'order_id'],
    ['order_id=gid://shopify/Product/1', 'order_id'],
    ['order_id=1,,2', 'order_id'],
    [`order_id=${Array.from({ length: 51 }, (_, i) => i + 1).join(',')}`, 'order_id'],
    ['order_name=', 'order_name'],
    ['batch_id=', 'batch_id'],
    ['tracking_number=', 'tracking_number'],
    ['direction=inbound', 'direction'],
    ['current=yes', 'current'],
    ['status=done', 'status'],
    ['created_after=yesterday', 'created_after'],
    ['created_before=2026-10-01', 'created_before'],
    // eslint-disable-next-line no-restricted-syntax -- pure: refused for its missing zone before any clock is read
    ['updated_after=2026-10-01T12:00:00', 'updated_after'],
    ['sort=updated_at', 'sort'],
    ['cursor=garbage', 'cursor'],
    ['colour=red', 'colour'],
    ['status=ready&status=failed', 'status'],
  ])('%s -> 422 validation_error', async (query, parameter) => {
    const store = await aStoreWithKey(app.orm);
    const res = await get(store.auth, `/v1/labels?${query}`);
    expectValidationError(res, parameter);
  });

  it('names the allowed values and bounds', async () => {
    const store = await aStoreWithKey(app.orm);
    const direction = await get(store.auth, '/v1/labels?direction=inbound');
    expect(direction.body.error.details).toMatchObject({ received: 'inbound', allowed: ['outbound', 'return'] });
    const limit = await listLabels(store.auth, { limit: 251 });
    expect(limit.body.error.details).toMatchObject({ max: 250 });
    const orderIds = await listLabels(store.auth, { order_id: Array.from({ length: 51 }, (_, i) => i + 1).join(',') });
    expect(orderIds.body.error.details).toMatchObject({ max: 50 });
    const fifty = await listLabels(store.auth, { order_id: Array.from({ length: 50 }, (_, i) => i + 1).join(',') });
    expect(fifty.status).toBe(200);
  });
});

describe('GET /v1/labels pagination', () => {
  async function fiveLabels(storeId: string) {
    return someLabels(
      app.orm,
      storeId,
      [0, 1, 2, 3, 4].map((i) => ({ createdAt: at(10 * HOUR + i * SECOND), batchId: 'page-batch' })),
    );
  }

  it('pages newest first with an opaque cursor, without a total, and ends with next_cursor null', async () => {
    const store = await aStoreWithKey(app.orm);
    const labels = await fiveLabels(store.storeId);
    const seen: string[] = [];
    let res = await listLabels(store.auth, { limit: 2 });
    expect(Object.keys(res.body).sort()).toEqual(['data', 'has_more', 'next_cursor']);
    expect(res.body.has_more).toBe(true);
    seen.push(...ids(res));
    while (res.body.has_more) {
      res = await listLabels(store.auth, { limit: 2, cursor: res.body.next_cursor });
      expect(res.status).toBe(200);
      seen.push(...ids(res));
    }
    expect(res.body.next_cursor).toBeNull();
    expect(seen).toEqual(labels.map((l) => l.id).reverse());
  });

  it('pages oldest first with sort=created_at and a lookup filter (not the sync feed: no next_cursor at the end)', async () => {
    const store = await aStoreWithKey(app.orm);
    const labels = await fiveLabels(store.storeId);
    const first = await listLabels(store.auth, { sort: 'created_at', batch_id: 'page-batch', limit: 3 });
    expect(ids(first)).toEqual(labels.slice(0, 3).map((l) => l.id));
    const second = await listLabels(store.auth, {
      sort: 'created_at',
      batch_id: 'page-batch',
      limit: 3,
      cursor: first.body.next_cursor,
    });
    expect(ids(second)).toEqual(labels.slice(3).map((l) => l.id));
    expect(second.body).toMatchObject({ has_more: false, next_cursor: null });
  });

  it('lets the page size change between pages', async () => {
    const store = await aStoreWithKey(app.orm);
    const labels = await fiveLabels(store.storeId);
    const first = await listLabels(store.auth, { limit: 1 });
    const second = await listLabels(store.auth, { limit: 4, cursor: first.body.next_cursor });
    expect(ids(second)).toEqual(
      labels
        .slice(0, 4)
        .map((l) => l.id)
        .reverse(),
    );
  });

  it('refuses an altered cursor and a cursor reused with other filters, sort or store', async () => {
    const store = await aStoreWithKey(app.orm);
    const other = await aStoreWithKey(app.orm);
    await fiveLabels(store.storeId);
    const first = await listLabels(store.auth, { limit: 2, batch_id: 'page-batch' });
    const cursor: string = first.body.next_cursor;
    const [body, signature] = cursor.split('.');
    const decoded = JSON.parse(Buffer.from(body!, 'base64url').toString());
    decoded.p[1] = 'lbl_AAAAAAAAAAAAAAAAAAAAAAAA';
    const forged = `${Buffer.from(JSON.stringify(decoded)).toString('base64url')}.${signature}`;
    const flipped = cursor.slice(0, -1) + (cursor.endsWith('A') ? 'B' : 'A');
    for (const bad of [forged, flipped, `${cursor}.x`, body!]) {
      expectValidationError(await listLabels(store.auth, { limit: 2, batch_id: 'page-batch', cursor: bad }), 'cursor');
    }
    for (const query of [
      'batch_id=other',
      '',
      'batch_id=page-batch&sort=created_at',
      'batch_id=page-batch&status=ready',
    ]) {
      const res = await get(store.auth, `/v1/labels?limit=2&${query}&cursor=${encodeURIComponent(cursor)}`);
      expectValidationError(res, 'cursor');
      expect(res.body.error.details.received).toBe(`${cursor.slice(0, 100)}…`);
    }
    expectValidationError(await listLabels(other.auth, { limit: 2, batch_id: 'page-batch', cursor: cursor }), 'cursor');
    expect((await listLabels(store.auth, { limit: 2, batch_id: 'page-batch', cursor: cursor })).status).toBe(200);
  });

  it('Rule 1: with status/direction/current filters a page may be short while has_more is true', async () => {
    const store = await aStoreWithKey(app.orm);
    const orderId = aPlatformId();
    // One ready label, then more failed ones than one page scans (failed labels of one order keep the projection cheap).
    const ready = await aLabel(app.orm, store.storeId, { createdAt: at(-30 * DAY) });
    await someLabels(
      app.orm,
      store.storeId,
      Array.from({ length: 1001 }, (_, i) => ({
        orderId,
        status: 'failed' as const,
        createdAt: at(i * SECOND),
      })),
    );
    const first = await listLabels(store.auth, { status: 'ready', limit: 5 });
    expect(first.status).toBe(200);
    expect(first.body.data).toEqual([]);
    expect(first.body.has_more).toBe(true);
    const second = await listLabels(store.auth, { status: 'ready', limit: 5, cursor: first.body.next_cursor });
    expect(ids(second)).toEqual([ready.id]);
    expect(second.body).toMatchObject({ has_more: false, next_cursor: null });
  });
});

describe('GET /v1/labels sync feed (sort=created_at without lookup filters)', () => {
  it('holds back labels younger than 15 seconds, always returns next_cursor, and resumes from it', async () => {
    const store = await aStoreWithKey(app.orm);
    const noon = 4 * DAY + 12 * HOUR;
    app.clock.set(at(noon));
    // created_at drops the fraction of its second: a label of `noon - 16 s` is at least 15 s old at noon, one of
    // `noon - 15 s` may be younger (stored up to a second after the second it shows).
    const [old, edge, young] = await someLabels(app.orm, store.storeId, [
      { createdAt: at(noon - HOUR) },
      { createdAt: at(noon - 16 * SECOND) },
      { createdAt: at(noon - 15 * SECOND) },
    ]);

    const first = await listLabels(store.auth, { sort: 'created_at' });
    expect(ids(first)).toEqual([old!.id, edge!.id]);
    expect(first.body.has_more).toBe(false);
    expect(typeof first.body.next_cursor).toBe('string');

    const empty = await listLabels(store.auth, { sort: 'created_at', cursor: first.body.next_cursor });
    expect(empty.body).toMatchObject({ data: [], has_more: false });
    expect(typeof empty.body.next_cursor).toBe('string');

    app.clock.advance(1000);
    const later = await listLabels(store.auth, { sort: 'created_at', cursor: empty.body.next_cursor });
    expect(ids(later)).toEqual([young!.id]);
    expect(typeof later.body.next_cursor).toBe('string');

    // A label inserted later with a new created_at appears on the next poll.
    const newest = await aLabel(app.orm, store.storeId, { createdAt: at(noon) });
    app.clock.advance(20_000);
    const poll = await listLabels(store.auth, { sort: 'created_at', cursor: later.body.next_cursor });
    expect(ids(poll)).toEqual([newest.id]);
    app.clock.reset();
  });

  it('holds a label back until it is surely 15 seconds old, though its created_at drops the fraction of its second', async () => {
    const store = await aStoreWithKey(app.orm);
    const second = 4 * DAY + 13 * HOUR;
    // Stored at some instant of that second: created_at shows the second alone.
    const label = await aLabel(app.orm, store.storeId, { createdAt: at(second) });
    const feed = async () => ids(await listLabels(store.auth, { sort: 'created_at' }));
    // 15.5 s after the second began: had it been stored 0.9 s into it, it would be 14.6 s old.
    app.clock.set(at(second + 15 * SECOND + 500));
    expect(await feed()).toEqual([]);
    app.clock.set(at(second + 16 * SECOND - 1));
    expect(await feed()).toEqual([]);
    // 16 s after the second began it is at least 15 s old, wherever in its second it was stored.
    app.clock.set(at(second + 16 * SECOND));
    expect(await feed()).toEqual([label.id]);
    // A created_before past the hold-back does not pull it forward.
    app.clock.set(at(second + 15 * SECOND + 500));
    const before = encodeURIComponent(isoSecondsInZone(D0 + second + MINUTE, 60, '.250'));
    expect(ids(await get(store.auth, `/v1/labels?sort=created_at&created_before=${before}`))).toEqual([]);
    app.clock.reset();
  });

  it('returns a next_cursor on an empty first page and pages with has_more inside the feed', async () => {
    const store = await aStoreWithKey(app.orm);
    app.clock.set(at(5 * DAY));
    const empty = await listLabels(store.auth, { sort: 'created_at', direction: 'outbound' });
    expect(empty.body).toMatchObject({ data: [], has_more: false });
    expect(typeof empty.body.next_cursor).toBe('string');
    const labels = await someLabels(
      app.orm,
      store.storeId,
      [0, 1, 2].map((i) => ({ createdAt: at(4 * DAY + i * SECOND) })),
    );
    const page1 = await listLabels(store.auth, {
      sort: 'created_at',
      direction: 'outbound',
      limit: 2,
      cursor: empty.body.next_cursor,
    });
    expect(ids(page1)).toEqual([labels[0]!.id, labels[1]!.id]);
    expect(page1.body.has_more).toBe(true);
    const page2 = await listLabels(store.auth, {
      sort: 'created_at',
      direction: 'outbound',
      limit: 2,
      cursor: page1.body.next_cursor,
    });
    expect(ids(page2)).toEqual([labels[2]!.id]);
    expect(page2.body.has_more).toBe(false);
    expect(typeof page2.body.next_cursor).toBe('string');
    app.clock.reset();
  });
});

describe('machine-readable description', () => {
  it('describes both label routes with every query parameter of GET /labels', async () => {
    const res = await app.request('GET', '/v1/openapi.json');
    expect(res.status).toBe(200);
    const list = res.body.paths['/labels'].get;
    const names = list.parameters
      .filter((p: any) => p.in === 'query')
      .map((p: any) => p.name)
      .sort();
    expect(names).toEqual(
      [
        'batch_id',
        'created_after',
        'created_before',
        'current',
        'cursor',
        'direction',
        'limit',
        'order_id',
        'order_name',
        'sort',
        'status',
        'tracking_number',
        'updated_after',
      ].sort(),
    );
    expect(res.body.paths['/labels/{label_id}'].get.operationId).toBe('getLabel');
  });
});

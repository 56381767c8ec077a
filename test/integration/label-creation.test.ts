import { PDFDocument } from 'pdf-lib';
import { setLimitOverride } from '../../src/limits/overrides';
import { creationStateQuery } from '../../workflows/label-creation/contract';
import { aCarrierAAccount, anOrderOnPlatform, aRule } from '../helpers/creation';
import { expectError } from '../helpers/errors';
import { expectStatus } from '../helpers/status';
import { aCarrierAccount } from '../helpers/labels';
import { control, eventually, ledger, scriptFaults } from '../helpers/sandbox';
import { aStoreWithKey } from '../helpers/stores';
import { startTestApp, type TestApp } from '../helpers/test-app';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => app.close());

type Shop = Awaited<ReturnType<typeof aStoreWithKey>>;

async function aShopWithCarrierA(overrides: Parameters<typeof aCarrierAAccount>[2] = {}) {
  const shop = await aStoreWithKey(app.orm);
  const account = await aCarrierAAccount(app.orm, shop.storeId, overrides);
  await aRule(app.orm, shop.storeId, { priority: 1, carrierAccountId: account.id, serviceCode: 'a_home' });
  return { shop, account };
}

/** A store whose only account is of `carrierCode`, with one service the rules pick. */
async function aShopWith(carrierCode: string, service: string, extra: Parameters<typeof aCarrierAccount>[2] = {}) {
  const shop = await aStoreWithKey(app.orm);
  const account = await aCarrierAccount(app.orm, shop.storeId, {
    carrierCode,
    services: [{ code: service, name: `${carrierCode} ${service}`, codSupported: true, pickupPointRequired: false }],
    sender: { name: 'Shop s.r.o.', countryCode: 'CZ', iban: 'CZ6508000000192000145399' },
    ...extra,
  });
  await aRule(app.orm, shop.storeId, { priority: 1, carrierAccountId: account.id, serviceCode: service });
  return { shop, account };
}

const create = (shop: Shop, key: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  app.request('POST', '/v1/labels', {
    headers: { ...shop.auth, 'Idempotency-Key': key, Prefer: 'wait=30', ...headers },
    body,
  });

const getCreation = (shop: Shop, id: string, headers: Record<string, string> = {}) =>
  app.request('GET', `/v1/label-creations/${id}`, { headers: { ...shop.auth, ...headers } });

/**
 * An export holding the fulfillment order on the platform: a creation for it waits in `processing` until the test
 * releases the hold. What keeps a creation in flight for a test, instead of a slow carrier whose delay a loaded machine
 * can push past the carrier timeout (the creation would then need attention).
 */
async function anExportHold(shop: Shop, fulfillmentOrderId: string) {
  const path = `/_control/stores/${shop.domain}/fulfillment-orders/${fulfillmentOrderId}`;
  const held = await control('POST', `${path}/hold`, { reason: 'export' });
  expect(held.status).toBe(200);
  return {
    release: async () => {
      const released = await control('POST', `${path}/release`);
      expect(released.status).toBe(200);
    },
  };
}

describe('POST /v1/labels: a new label', () => {
  it('answers 201 with the label (final tracking number, stored PDF), Location and Content-Location', async () => {
    const { shop, account } = await aShopWithCarrierA();
    const order = await anOrderOnPlatform(shop.domain);
    const res = await create(shop, `key-${order.orderId}`, { order_id: order.orderId, client_reference: 'wms-1' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      id: expect.stringMatching(/^lcr_/),
      status: 'succeeded',
      phase: null,
      created: true,
      dry_run: false,
      next_action: 'fetch_document',
      order: { id: order.orderGid, legacy_id: order.orderId, name: order.name },
      client_reference: 'wms-1',
      idempotency_key: `key-${order.orderId}`,
      error: null,
      attention: null,
      resolved: { carrier_account_id: account.id, service_code: 'a_home', cod: { to_carrier: { state: 'sent' } } },
      side_effects: { fulfillment: { mode: 'none', status: 'skipped' }, order_tags: { status: 'skipped' } },
    });
    expect(res.body.documents).toBeUndefined();
    const [label] = res.body.labels;
    expect(label).toMatchObject({
      status: 'ready',
      source: 'api',
      current: true,
      service: { code: 'a_home' },
      fulfillment_orders: [{ id: order.fulfillmentOrderGids[0] }],
      document: { availability: 'available', source: 'stored' },
    });
    expect(label.tracking_number).toMatch(/^Z\d{10}$/);
    expect(res.headers.get('location')).toBe(`${app.baseUrl}/v1/labels/${label.id}`);
    expect(res.headers.get('content-location')).toBe(`${app.baseUrl}/v1/label-creations/${res.body.id}`);
    expect(res.headers.get('preference-applied')).toBe('wait=30');
    const pdf = await app.request('GET', `/v1/labels/${label.id}/document`, { headers: shop.auth });
    expect(pdf.status).toBe(200);
    expect((await PDFDocument.load(pdf.bytes)).getPageCount()).toBe(1);
    const shipments = await ledger(account.id);
    expect(shipments).toHaveLength(1);
    // The stable reference the carrier received is the creation's own ID.
    expect(shipments[0]).toMatchObject({ reference: res.body.id, tracking_number: label.tracking_number });
  });

  it('applies the fulfillment and the account’s label tag, and returns the PDF with include: ["document"]', async () => {
    const { shop } = await aShopWithCarrierA({ labelTag: 'label-created' });
    const order = await anOrderOnPlatform(shop.domain, { tags: ['vip'] });
    const res = await create(shop, `fulfil-${order.orderId}`, {
      order_id: order.orderId,
      fulfillment: 'fulfill_and_notify',
      include: ['document'],
    });
    expect(res.status).toBe(201);
    expect(res.body.side_effects).toEqual({
      fulfillment: { mode: 'fulfill_and_notify', status: 'succeeded' },
      order_tags: { status: 'succeeded' },
    });
    const label = res.body.labels[0];
    expect(res.body.documents).toEqual([
      { label_id: label.id, format: 'label', content_type: 'application/pdf', data_base64: expect.any(String) },
    ]);
    expect((await PDFDocument.load(Buffer.from(res.body.documents[0].data_base64, 'base64'))).getPageCount()).toBe(1);
    const { fulfillments } = (await control('GET', `/_control/stores/${shop.domain}/fulfillments`)).body;
    expect(fulfillments).toEqual([
      expect.objectContaining({
        fulfillment_order_ids: order.fulfillmentOrderGids,
        tracking_number: label.tracking_number,
        notify_customer: true,
      }),
    ]);
    const tags = (await control('GET', `/platform/stores/${shop.domain}/orders/${order.orderId}`)).body.order.tags;
    expect(tags.sort()).toEqual(['label-created', 'vip']);
  });

  it.each([
    ['carrier B (batch: pending until the batch completes)', 'carrier_b', 'b_standard'],
    ['carrier C (the PDF comes with the shipment)', 'carrier_c', 'c_home'],
    ['carrier D (the print call makes the shipment)', 'carrier_d', 'd_home'],
  ])('creates at %s', async (_name, carrierCode, service) => {
    const { shop, account } = await aShopWith(carrierCode, service);
    const order = await anOrderOnPlatform(shop.domain);
    const res = await create(shop, `key-${order.orderId}`, { order_id: order.orderId });
    expect(res.status).toBe(201);
    const label = res.body.labels[0];
    expect(label).toMatchObject({ status: 'ready', document: { availability: 'available' } });
    expect(label.tracking_number).toEqual(expect.any(String));
    expect(await ledger(account.id)).toEqual([expect.objectContaining({ reference: res.body.id, status: 'ready' })]);
    expect((await app.request('GET', `/v1/labels/${label.id}/document`, { headers: shop.auth })).status).toBe(200);
  });
});

describe('POST /v1/labels: idempotency', () => {
  it('replays a succeeded creation with Idempotency-Replayed and refuses another body under the key', async () => {
    const { shop, account } = await aShopWithCarrierA();
    const order = await anOrderOnPlatform(shop.domain);
    const key = `replay-${order.orderId}`;
    const first = await create(shop, key, { order_id: order.orderId });
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotency-replayed')).toBeNull();
    // The same request in another spelling (GID instead of the numeric ID) is the same request.
    const again = await create(shop, key, { order_id: order.orderGid });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotency-replayed')).toBe('true');
    expect(again.body.id).toBe(first.body.id);
    expect(again.body.labels.map((l: { id: string }) => l.id)).toEqual(
      first.body.labels.map((l: { id: string }) => l.id),
    );
    const other = await create(shop, key, { order_id: order.orderId, client_reference: 'different' });
    expectError(other, 409, 'idempotency_conflict', {
      idempotency_key: key,
      label_creation_id: first.body.id,
      retry: 'no',
      next_action: 'none',
    });
    expect(await ledger(account.id)).toHaveLength(1);
  });

  it('20 concurrent identical requests join one creation: exactly one shipment', async () => {
    const { shop, account } = await aShopWithCarrierA();
    // The key's 5 writes a second would refuse most of the burst before it reaches the creation, and so would its 10
    // reads a second: a request that finds the key already bound is a repeat, which the spec counts as a read.
    for (const bucket of ['write_key_per_second', 'read_key_per_second'] as const) {
      await setLimitOverride(app.orm.em.fork(), { storeId: shop.storeId, bucket, limit: 100, now: new Date() });
    }
    const order = await anOrderOnPlatform(shop.domain);
    // The creation stays in flight until its record exists, so the burst meets it running, on any machine.
    const hold = await anExportHold(shop, order.fulfillmentOrderIds[0]!);
    const key = `burst-${order.orderId}`;
    const burst = Promise.all(Array.from({ length: 20 }, () => create(shop, key, { order_id: order.orderId })));
    await eventually(async () => {
      const listed = await app.request('GET', `/v1/label-creations?idempotency_key=${key}`, { headers: shop.auth });
      return expectStatus(listed, 200).data.length > 0 ? true : null;
    }, 200);
    await hold.release();
    const answers = await burst;
    // Any other answer is shown whole: a burst that fails here says which code it met.
    expect(answers.filter((a) => a.status !== 201 && a.status !== 202).map((a) => a.body)).toEqual([]);
    expect(new Set(answers.map((a) => a.body.id)).size).toBe(1);
    const done = await getCreation(shop, answers[0]!.body.id, { Prefer: 'wait=30' });
    expect(expectStatus(done, 200).status).toBe('succeeded');
    expect(await ledger(account.id)).toHaveLength(1);
  });

  it('binds a key for 30 days: until then another body is a conflict, after that the key starts a new creation', async () => {
    const { shop, account } = await aShopWithCarrierA();
    const [order, other] = [await anOrderOnPlatform(shop.domain), await anOrderOnPlatform(shop.domain)];
    const key = `ttl-${order.orderId}`;
    const first = await create(shop, key, { order_id: order.orderId });
    expect(first.status).toBe(201);
    const DAY = 86_400_000;
    try {
      app.clock.set(new Date(Date.now() + 29 * DAY));
      expectError(await create(shop, key, { order_id: other.orderId }), 409, 'idempotency_conflict', {
        idempotency_key: key,
        label_creation_id: first.body.id,
        retry: 'no',
        next_action: 'none',
      });
      app.clock.set(new Date(Date.now() + 31 * DAY));
      const later = await create(shop, key, { order_id: other.orderId });
      expect(later.status).toBe(201);
      expect(later.body.id).not.toBe(first.body.id);
      expect(later.body.order.id).toBe(other.orderGid);
      // The first creation keeps its record; only its binding of the key ended.
      expect(expectStatus(await getCreation(shop, first.body.id), 200)).toMatchObject({
        status: 'succeeded',
        created: true,
      });
    } finally {
      app.clock.reset();
    }
    expect(await ledger(account.id)).toHaveLength(2);
  });

  it('after a failed attempt, the same key makes a new attempt with a new lcr_ ID', async () => {
    const { shop, account } = await aShopWithCarrierA();
    const order = await anOrderOnPlatform(shop.domain);
    await scriptFaults(account.id, [
      { type: 'reject', reason: 'postcode_invalid', message: 'PSC 110 00 neexistuje (carrier text)' },
    ]);
    const key = `retry-${order.orderId}`;
    const refused = await create(shop, key, { order_id: order.orderId });
    expectError(refused, 422, 'carrier_rejected', {
      reason: 'postcode_invalid',
      label_creation_id: expect.stringMatching(/^lcr_/),
      retry: 'after_fix',
      next_action: 'fix_and_retry',
    });
    // The carrier's own words are kept out of every answer.
    expect(refused.text).not.toContain('neexistuje');
    const failedId = refused.body.error.details.label_creation_id;
    const stored = await getCreation(shop, failedId);
    expect(stored.status).toBe(200);
    expect(stored.body).toMatchObject({
      status: 'failed',
      created: false,
      next_action: 'fix_and_retry',
      error: { code: 'carrier_rejected', details: { reason: 'postcode_invalid', label_creation_id: failedId } },
    });
    // What the stored record shows is the direct answer: the same details, `retry` / `next_action` pair included, in
    // the creation and in the list.
    expect(stored.body.error.details).toEqual(refused.body.error.details);
    const listed = await app.request('GET', `/v1/label-creations?idempotency_key=${key}`, { headers: shop.auth });
    expect(expectStatus(listed, 200).data[0]).toEqual(stored.body);
    const retried = await create(shop, key, { order_id: order.orderId, client_reference: 'a new body is fine' });
    expect(retried.status).toBe(201);
    expect(retried.body.id).not.toBe(failedId);
    expect(await ledger(account.id)).toHaveLength(1);
  });
});

describe('POST /v1/labels: answers before the end, and GET /v1/label-creations', () => {
  it('answers 202 processing at once with Prefer: wait=0; the creation is then read until it leaves processing', async () => {
    const { shop } = await aShopWithCarrierA();
    const order = await anOrderOnPlatform(shop.domain);
    // The creation stays in processing until the test releases the export's hold, however fast or slow the machine.
    const hold = await anExportHold(shop, order.fulfillmentOrderIds[0]!);
    const res = await create(shop, `early-${order.orderId}`, { order_id: order.orderGid }, { Prefer: 'wait=0' });
    expect(expectStatus(res, 202)).toMatchObject({
      status: 'processing',
      next_action: 'poll',
      created: null,
      labels: [],
      requested: { order_id: order.orderGid },
    });
    expect(res.headers.get('location')).toBe(`${app.baseUrl}/v1/label-creations/${res.body.id}`);
    expect(res.headers.get('retry-after')).toBe('2');
    expect(res.headers.get('preference-applied')).toBe('wait=0');
    await hold.release();
    const done = await getCreation(shop, res.body.id, { Prefer: 'wait=20' });
    expect(expectStatus(done, 200)).toMatchObject({
      status: 'succeeded',
      created: true,
      next_action: 'fetch_document',
    });
    expect(done.headers.get('preference-applied')).toBe('wait=20');

    const listed = await app.request('GET', `/v1/label-creations?order_id=${order.orderId}`, { headers: shop.auth });
    expect(expectStatus(listed, 200)).toMatchObject({ has_more: false, next_cursor: null });
    expect(listed.body.data.map((c: { id: string }) => c.id)).toEqual([res.body.id]);
    for (const query of [
      `idempotency_key=early-${order.orderId}`,
      'status=succeeded',
      `order_name=${encodeURIComponent(order.name)}`,
    ]) {
      const page = await app.request('GET', `/v1/label-creations?${query}`, { headers: shop.auth });
      expect(expectStatus(page, 200).data.map((c: { id: string }) => c.id)).toContain(res.body.id);
    }
    const none = await app.request('GET', '/v1/label-creations?status=failed', { headers: shop.auth });
    expect(expectStatus(none, 200).data).toEqual([]);
  });

  it('names the order in every answer: an early 202 for an order named by ID, its poll, and the 201', async () => {
    const { shop } = await aShopWithCarrierA();
    const order = await anOrderOnPlatform(shop.domain);
    const hold = await anExportHold(shop, order.fulfillmentOrderIds[0]!);
    const named = { id: order.orderGid, legacy_id: order.orderId, name: order.name };
    const res = await create(shop, `named-${order.orderId}`, { order_id: order.orderId }, { Prefer: 'wait=0' });
    expect(expectStatus(res, 202)).toMatchObject({ status: 'processing', order: named });
    const poll = await getCreation(shop, res.body.id);
    expect(expectStatus(poll, 200)).toMatchObject({ status: 'processing', order: named });
    await hold.release();
    const done = await getCreation(shop, res.body.id, { Prefer: 'wait=20' });
    expect(expectStatus(done, 200)).toMatchObject({ status: 'succeeded', order: named });
    const again = await create(shop, `named-${order.orderId}`, { order_id: order.orderId }, { Prefer: 'wait=0' });
    expect(expectStatus(again, 201).order).toEqual(named);
  });

  it('an early 202 for an order named by order_name names the order the checks on arrival found', async () => {
    const { shop } = await aShopWithCarrierA();
    const order = await anOrderOnPlatform(shop.domain);
    const hold = await anExportHold(shop, order.fulfillmentOrderIds[0]!);
    const given = order.name.replace(/^#/, '');
    const res = await create(shop, `by-name-${order.orderId}`, { order_name: given }, { Prefer: 'wait=0' });
    expect(expectStatus(res, 202).order).toEqual({ id: order.orderGid, legacy_id: order.orderId, name: order.name });
    await hold.release();
    const done = await getCreation(shop, res.body.id, { Prefer: 'wait=20' });
    expect(expectStatus(done, 200)).toMatchObject({
      status: 'succeeded',
      order: { id: order.orderGid, legacy_id: order.orderId, name: order.name },
    });
  });

  it('lets at most 8 requests of a key hold a Prefer: wait; the others answer at once, as with wait=0', async () => {
    const { shop } = await aShopWithCarrierA();
    const order = await anOrderOnPlatform(shop.domain);
    const hold = await anExportHold(shop, order.fulfillmentOrderIds[0]!);
    const started = await create(shop, `holds-${order.orderId}`, { order_id: order.orderId }, { Prefer: 'wait=0' });
    expect(expectStatus(started, 202).status).toBe('processing');
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => getCreation(shop, started.body.id, { Prefer: 'wait=3' })),
    );
    const applied = answers.map((a) => a.headers.get('preference-applied'));
    expect(applied.filter((p) => p === 'wait=3').length).toBeLessThanOrEqual(8);
    expect(applied.filter((p) => p === 'wait=0').length).toBeGreaterThanOrEqual(2);
    for (const answer of answers) expect(expectStatus(answer, 200).status).toBe('processing');
    await hold.release();
    expect(expectStatus(await getCreation(shop, started.body.id, { Prefer: 'wait=30' }), 200).status).toBe('succeeded');
  });

  it('lists newest first with a cursor, and answers 404 for another store’s creation', async () => {
    const { shop } = await aShopWithCarrierA();
    const ids: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      const order = await anOrderOnPlatform(shop.domain);
      ids.push(expectStatus(await create(shop, `page-${order.orderId}`, { order_id: order.orderId }), 201).id);
    }
    const first = await app.request('GET', '/v1/label-creations?limit=2', { headers: shop.auth });
    expect(expectStatus(first, 200).has_more).toBe(true);
    const second = await app.request(
      'GET',
      `/v1/label-creations?limit=2&cursor=${encodeURIComponent(first.body.next_cursor)}`,
      { headers: shop.auth },
    );
    const listed = [...first.body.data, ...expectStatus(second, 200).data] as Array<{ id: string; labels: unknown[] }>;
    expect(listed.map((c) => c.id).sort()).toEqual([...ids].sort());
    expect(second.body).toMatchObject({ has_more: false, next_cursor: null });
    // Each listed creation, its label included (read for the whole page at once), is what its own read answers.
    for (const creation of listed) {
      expect(creation.labels).toHaveLength(1);
      expect(creation).toEqual(expectStatus(await getCreation(shop, creation.id), 200));
    }
    const other = await aStoreWithKey(app.orm);
    // The key's first request reads on its own, the next ones in the admission statement: both answer 404.
    expectError(await getCreation(other, ids[0]!), 404, 'not_found');
    expectError(await getCreation(other, ids[0]!), 404, 'not_found');
    expectError(await getCreation(shop, 'lcr_doesnotexist'), 404, 'not_found');
    expectError(await getCreation(shop, 'lbl_wrongkind'), 404, 'not_found');
  });
});

describe('POST /v1/labels: existing labels', () => {
  it('return hands back the existing label (200, created false, never fulfils); reject refuses', async () => {
    const { shop, account } = await aShopWithCarrierA();
    const order = await anOrderOnPlatform(shop.domain);
    const made = await create(shop, `made-${order.orderId}`, { order_id: order.orderId });
    expect(made.status).toBe(201);
    const label = made.body.labels[0];
    const returned = await create(shop, `return-${order.orderId}`, {
      order_id: order.orderId,
      fulfillment: 'fulfill',
    });
    expect(returned.status).toBe(200);
    expect(returned.body).toMatchObject({
      status: 'succeeded',
      created: false,
      labels: [{ id: label.id }],
      side_effects: { fulfillment: null, order_tags: null },
      warnings: [expect.objectContaining({ code: 'request_parameters_not_applied' })],
    });
    expect(returned.headers.get('location')).toBeNull();
    expect(returned.headers.get('content-location')).toBe(`${app.baseUrl}/v1/label-creations/${returned.body.id}`);
    expect((await control('GET', `/_control/stores/${shop.domain}/fulfillments`)).body.fulfillments).toEqual([]);
    // Refused on arrival (decision 0120): no record, so none is named.
    const rejected = await create(shop, `reject-${order.orderId}`, { order_id: order.orderId, on_existing: 'reject' });
    expectError(rejected, 409, 'label_exists', {
      reason: 'existing_label_ready',
      existing_label_ids: [label.id],
      retry: 'no',
      next_action: 'none',
    });
    expect(await ledger(account.id)).toHaveLength(1);
  });
});

describe('POST /v1/labels: unclear outcomes', () => {
  it('a create that times out and was not made: 202 needs_attention with the attention object, kept on repeat', async () => {
    const { shop, account } = await aShopWithCarrierA();
    const order = await anOrderOnPlatform(shop.domain);
    await scriptFaults(account.id, [{ type: 'timeout_not_created', hold_ms: 5000 }]);
    const key = `unclear-${order.orderId}`;
    const res = await create(shop, key, { order_id: order.orderId });
    expect(res.status).toBe(202);
    expect(res.headers.get('location')).toBe(`${app.baseUrl}/v1/label-creations/${res.body.id}`);
    expect(res.headers.get('retry-after')).toBeNull();
    expect(res.body).toMatchObject({
      status: 'needs_attention',
      next_action: 'manual_check',
      created: null,
      attention: {
        reason: 'carrier_timeout',
        shipment_at_carrier: 'unknown',
        carrier: { code: 'carrier_a', account_id: account.id },
        carrier_reference: null,
        carrier_note: null,
      },
    });
    const { sent_at: sentAt, resolve_allowed_at: allowedAt } = res.body.attention;
    expect(new Date(allowedAt).getTime() - new Date(sentAt).getTime()).toBe(15 * 60_000);
    const repeat = await create(shop, key, { order_id: order.orderId });
    expect(repeat.status).toBe(202);
    expect(repeat.body.id).toBe(res.body.id);
    // Every mode of a new request for the fulfillment order is refused while it needs attention.
    for (const mode of ['return', 'reject']) {
      expectError(
        await create(shop, `${mode}-${order.orderId}`, { order_id: order.orderId, on_existing: mode }),
        409,
        'unresolved_creation',
        // The blocking creation is named (the code's own field), not the refused request's record.
        {
          label_creation_id: res.body.id,
          label_creation_ids: [res.body.id],
          retry: 'manual',
          next_action: 'manual_check',
        },
      );
    }
    expect(await ledger(account.id)).toEqual([]);
  });

  it('a create that times out after the carrier made it: found by its reference, 201, one shipment', async () => {
    const { shop, account } = await aShopWithCarrierA();
    const order = await anOrderOnPlatform(shop.domain);
    await scriptFaults(account.id, [{ type: 'timeout_created', hold_ms: 5000 }]);
    const res = await create(shop, `found-${order.orderId}`, { order_id: order.orderId });
    expect(res.status).toBe(201);
    expect(await ledger(account.id)).toHaveLength(1);
  });

  it('a carrier server error is unclear (carrier_error); carrier D notes its possible draft', async () => {
    const { shop, account } = await aShopWithCarrierA();
    const order = await anOrderOnPlatform(shop.domain);
    await scriptFaults(account.id, [{ type: 'server_error' }]);
    const res = await create(shop, `error-${order.orderId}`, { order_id: order.orderId });
    expect(res.status).toBe(202);
    expect(res.body.attention).toMatchObject({ reason: 'carrier_error', shipment_at_carrier: 'unknown' });

    const d = await aShopWith('carrier_d', 'd_home');
    const dOrder = await anOrderOnPlatform(d.shop.domain);
    await scriptFaults(d.account.id, [{ type: 'timeout_not_created', hold_ms: 5000 }]);
    const dRes = await create(d.shop, `d-${dOrder.orderId}`, { order_id: dOrder.orderId });
    expect(dRes.status).toBe(202);
    expect(dRes.body.attention).toMatchObject({ carrier_note: 'draft_until_label_printed' });
  });

  it('carrier B refusing the batch at import fails the creation with carrier_rejected, reason other', async () => {
    const { shop, account } = await aShopWith('carrier_b', 'b_standard');
    const order = await anOrderOnPlatform(shop.domain);
    await scriptFaults(account.id, [{ type: 'import_rejected' }]);
    const res = await create(shop, `import-${order.orderId}`, { order_id: order.orderId });
    expectError(res, 422, 'carrier_rejected', {
      reason: 'other',
      label_creation_id: expect.stringMatching(/^lcr_/),
      retry: 'after_fix',
      next_action: 'fix_and_retry',
    });
    const labels = await app.request('GET', `/v1/labels?order_id=${order.orderId}`, { headers: shop.auth });
    expect(expectStatus(labels, 200).data).toEqual([
      expect.objectContaining({ status: 'failed', failure_reason: 'carrier_import_rejected', current: false }),
    ]);
  });
});

describe('operators', () => {
  it('find a creation by its search attributes and read its state with the workflow query', async () => {
    const { shop, account } = await aShopWithCarrierA();
    const order = await anOrderOnPlatform(shop.domain);
    const key = `operator-${order.orderId}`;
    const res = await create(shop, key, { order_id: order.orderId });
    expect(res.status).toBe(201);
    const workflowId = `label-creation/${shop.storeId}/${key}`;
    const state = await app.temporal.workflow.getHandle(workflowId).query(creationStateQuery);
    expect(state).toMatchObject({ creationId: res.body.id, status: 'succeeded', labelIds: [res.body.labels[0].id] });
    const query =
      `StoreId = '${shop.storeId}' AND CreationStatus = 'succeeded' AND OrderId = '${order.orderGid}' ` +
      `AND CarrierAccountId = '${account.id}' AND IdempotencyKey = '${key}' AND LabelCreationId = '${res.body.id}'`;
    const found = await eventually(async () => {
      const ids: string[] = [];
      for await (const execution of app.temporal.workflow.list({ query })) ids.push(execution.workflowId);
      return ids.length > 0 ? ids : null;
    }, 100);
    expect(found).toEqual([workflowId]);
  });
});

/** The activity tasks a creation's run scheduled (local activities run inside workflow tasks and are not listed). */
async function scheduledActivities(workflowId: string): Promise<string[]> {
  const history = await app.temporal.workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? []).flatMap((e) => {
    const name = e.activityTaskScheduledEventAttributes?.activityType?.name;
    return name ? [name] : [];
  });
}

describe('round trips of a creation (docs/decisions/0018-creation-round-trips.md)', () => {
  it('a label at carrier A with nothing to fulfil or tag is one activity task: prepared and sent, PDF included', async () => {
    const { shop } = await aShopWithCarrierA();
    const order = await anOrderOnPlatform(shop.domain);
    const key = `round-trips-${order.orderId}`;
    const res = await create(shop, key, { order_id: order.orderId });
    expect(res.status).toBe(201);
    expect(res.body.labels[0].document.availability).toBe('available');
    expect(res.body.side_effects).toEqual({
      fulfillment: { mode: 'none', status: 'skipped' },
      order_tags: { status: 'skipped' },
    });
    expect(await scheduledActivities(`label-creation/${shop.storeId}/${key}`)).toEqual(['prepareAndSendToCarrier']);
  });

  it('prepares, decides and takes its locks in the carrier call activity: no local activity before it (decision 1010)', async () => {
    const { shop } = await aShopWithCarrierA();
    const order = await anOrderOnPlatform(shop.domain);
    const key = `one-step-${order.orderId}`;
    expect((await create(shop, key, { order_id: order.orderId })).status).toBe(201);
    const history = await app.temporal.workflow.getHandle(`label-creation/${shop.storeId}/${key}`).fetchHistory();
    const events = history.events ?? [];
    const carrierCall = events.findIndex((e) => e.activityTaskScheduledEventAttributes);
    const markers = events.slice(0, carrierCall).flatMap((e) => {
      const name = e.markerRecordedEventAttributes?.markerName;
      return name ? [name] : [];
    });
    // No local activity before the first activity: the only marker is the version patch of decision 1010.
    expect(markers).toEqual(['core_patch']);
    expect(events[carrierCall]!.activityTaskScheduledEventAttributes!.activityType!.name).toBe(
      'prepareAndSendToCarrier',
    );
  });

  it('with nothing to follow the label, the carrier call also finishes the creation: no local activity after it (decision 0024)', async () => {
    const { shop } = await aShopWithCarrierA();
    const order = await anOrderOnPlatform(shop.domain);
    const key = `finish-in-call-${order.orderId}`;
    const res = await create(shop, key, { order_id: order.orderId });
    expect(res.status).toBe(201);
    expect(res.body.status).toBe('succeeded');
    expect(res.body.labels[0].status).toBe('ready');
    const history = await app.temporal.workflow.getHandle(`label-creation/${shop.storeId}/${key}`).fetchHistory();
    const events = history.events ?? [];
    const completed = events.findIndex((e) => e.activityTaskCompletedEventAttributes);
    expect(completed).toBeGreaterThan(0);
    expect(events.slice(completed).filter((e) => e.markerRecordedEventAttributes)).toEqual([]);
    // The record says what the workflow would have written: nothing fulfilled or tagged, the locks released.
    const read = await getCreation(shop, res.body.id);
    expect(expectStatus(read, 200)).toMatchObject({
      status: 'succeeded',
      created: true,
      side_effects: { fulfillment: { mode: 'none', status: 'skipped' }, order_tags: { status: 'skipped' } },
    });
    expect(
      await app.orm.em
        .fork()
        .execute('select 1 from fulfillment_order_locks where label_creation_id = ?', [res.body.id]),
    ).toEqual([]);
    // The key stays bound to it: a repeat replays the success.
    const again = await create(shop, key, { order_id: order.orderId });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotency-replayed')).toBe('true');
    expect(again.body.id).toBe(res.body.id);
  });

  it('a label tag to add keeps the success in the workflow, after the tag (decision 0024)', async () => {
    const { shop } = await aShopWithCarrierA({ labelTag: 'label-created' });
    const order = await anOrderOnPlatform(shop.domain);
    const key = `tag-follows-${order.orderId}`;
    const res = await create(shop, key, { order_id: order.orderId });
    expect(res.status).toBe(201);
    expect(res.body.side_effects).toEqual({
      fulfillment: { mode: 'none', status: 'skipped' },
      order_tags: { status: 'succeeded' },
    });
    expect(await scheduledActivities(`label-creation/${shop.storeId}/${key}`)).toEqual([
      'prepareAndSendToCarrier',
      'tagOrder',
    ]);
  });

  it('fulfilment and the label tag run side by side after the carrier call', async () => {
    const { shop } = await aShopWithCarrierA({ labelTag: 'label-created' });
    const order = await anOrderOnPlatform(shop.domain);
    const key = `side-effects-${order.orderId}`;
    const res = await create(shop, key, { order_id: order.orderId, fulfillment: 'fulfill' });
    expect(expectStatus(res, 201).side_effects).toEqual({
      fulfillment: { mode: 'fulfill', status: 'succeeded' },
      order_tags: { status: 'succeeded' },
    });
    const history = await app.temporal.workflow.getHandle(`label-creation/${shop.storeId}/${key}`).fetchHistory();
    const scheduled = (history.events ?? []).filter((e) => e.activityTaskScheduledEventAttributes);
    expect(scheduled.map((e) => e.activityTaskScheduledEventAttributes!.activityType!.name).sort()).toEqual([
      'fulfillOrder',
      'prepareAndSendToCarrier',
      'tagOrder',
    ]);
    // Both side effects were scheduled by the same workflow task.
    const [, fulfil, tag] = scheduled.map((e) =>
      String(e.activityTaskScheduledEventAttributes!.workflowTaskCompletedEventId),
    );
    expect(fulfil).toBe(tag);
  });
});

describe('POST /v1/labels: who may', () => {
  it('include: ["document"] needs labels:print; writes need write access', async () => {
    const writer = await aStoreWithKey(app.orm, { scopes: ['labels:write'] });
    expectError(
      await create(writer, 'no-print-1', { order_id: '1', include: ['document'] }),
      403,
      'insufficient_scope',
      { required_scope: 'labels:print', retry: 'no', next_action: 'none' },
    );
    const readOnly = await aStoreWithKey(app.orm, { gates: { writeAccess: false } });
    expectError(await create(readOnly, 'no-write-1', { order_id: '1' }), 403, 'write_access_required');
  });
});

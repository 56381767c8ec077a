import { createApiKey } from '../../src/access/api-keys';
import { aCarrierAAccount, anOrderOnPlatform, aRule } from '../helpers/creation';
import { expectError } from '../helpers/errors';
import { expectStatus } from '../helpers/status';
import { aCarrierAccount } from '../helpers/labels';
import { control, eventually, ledger, scriptFaults } from '../helpers/sandbox';
import { aStoreWithKey } from '../helpers/stores';
import { startTestApp, type TestApp } from '../helpers/test-app';

/**
 * Spec "Label creation `status`" from `needs_attention` on, and every answer of `POST /label-creations/{id}/resolve`,
 * over HTTP against the dev server, PostgreSQL and the sandbox, with the spec's durations shortened: resolve allowed
 * 8 s after the carrier call, looks at the carrier every 200-800 ms, abandon after 24 "hours" of 20 s here (long enough
 * for the resolve tests; the abandon test has an app of its own) and the record deleted 90 "days" after creation.
 */
/** Error details are compared by the fields a test names (every error also has `retry` and `next_action`). */
const has = (fields: Record<string, unknown>) => expect.objectContaining(fields) as Record<string, unknown>;

const DURATIONS = {
  RESOLVE_ALLOWED_AFTER: '8s',
  ATTENTION_RETRY_INITIAL: '200ms',
  ATTENTION_RETRY_MAX: '800ms',
  CREATION_ABANDON_AFTER: '20s',
  ABANDONED_CREATION_DELETE_AFTER: '60s',
  CARRIER_PENDING_MAX: '1s',
};

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ env: DURATIONS });
});
afterAll(async () => app.close());

type Shop = Awaited<ReturnType<typeof aStoreWithKey>>;
/** Resolving is limited to 1 a second per key (spec "Limits"); these tests resolve in quick succession. */
const RESOLVE_LIMITS = { resolve_key_per_second: 100, resolve_shop_per_hour: 1000 };

async function aShopWith(carrierCode: 'carrier_a' | 'carrier_b' | 'carrier_d', service: string) {
  const shop = await aStoreWithKey(app.orm, { limits: RESOLVE_LIMITS });
  const account =
    carrierCode === 'carrier_a'
      ? await aCarrierAAccount(app.orm, shop.storeId)
      : await aCarrierAccount(app.orm, shop.storeId, {
          carrierCode,
          services: [
            { code: service, name: `${carrierCode} ${service}`, codSupported: true, pickupPointRequired: false },
          ],
          sender: { name: 'Shop s.r.o.', countryCode: 'CZ', iban: 'CZ6508000000192000145399' },
        });
  await aRule(app.orm, shop.storeId, { priority: 1, carrierAccountId: account.id, serviceCode: service });
  return { shop, account };
}

const create = (shop: Shop, key: string, body: Record<string, unknown>, wait = 30) =>
  app.request('POST', '/v1/labels', {
    headers: { ...shop.auth, 'Idempotency-Key': key, Prefer: `wait=${wait}` },
    body,
  });
const getCreation = (shop: Shop, id: string) => app.request('GET', `/v1/label-creations/${id}`, { headers: shop.auth });
const resolve = (shop: Shop, id: string, body: Record<string, unknown>, auth = shop.auth) =>
  app.request('POST', `/v1/label-creations/${id}/resolve`, { headers: auth, body });

/** An admin or automation export starting on the platform (the sandbox's export hold). */
const exportStarts = (shop: Shop, fulfillmentOrderId: string) =>
  control('POST', `/_control/stores/${shop.domain}/fulfillment-orders/${fulfillmentOrderId}/hold`, {
    reason: 'automation export',
  });

/** An export starts on the platform (no hold of the creation is left on the fulfillment order), then ends. */
async function exportsStartAndEnd(shop: Shop, fulfillmentOrderId: string) {
  expect((await exportStarts(shop, fulfillmentOrderId)).status).toBe(200);
  await control('POST', `/_control/stores/${shop.domain}/fulfillment-orders/${fulfillmentOrderId}/release`);
}

/** Waits (without asserting any duration) until the creation reads as `check` wants. */
const until = (shop: Shop, id: string, check: (body: any) => boolean, attempts = 200) =>
  eventually(
    async () => {
      const res = await getCreation(shop, id);
      // Polling every 100 ms runs at the key's 10 reads a second: a 429 is not an answer about the creation.
      if (res.status === 429) return null;
      return check(expectStatus(res, 200)) ? res.body : null;
    },
    attempts,
    100,
  );

/**
 * Waits until the clock the API and the worker read reaches `iso`, an instant of the record (its
 * `resolve_allowed_at`): the state a `not_created` resolve needs, on any machine.
 */
const reached = async (iso: string) => {
  const wait = Date.parse(iso) - Date.now();
  if (wait > 0) await new Promise((r) => setTimeout(r, wait + 50));
};

/** A creation in `needs_attention` with the shipment unknown: the carrier timed out and made nothing. */
async function anUnclearCreation(carrier: 'carrier_a' | 'carrier_d' = 'carrier_a') {
  const { shop, account } = await aShopWith(carrier, carrier === 'carrier_a' ? 'a_home' : 'd_home');
  const order = await anOrderOnPlatform(shop.domain);
  await scriptFaults(account.id, [{ type: 'timeout_not_created', hold_ms: 5000 }]);
  const key = `unclear-${order.orderId}`;
  const res = await create(shop, key, { order_id: order.orderId });
  expect(res.status).toBe(202);
  expect(res.body).toMatchObject({ status: 'needs_attention', attention: { shipment_at_carrier: 'unknown' } });
  return { shop, account, order, key, creation: res.body };
}

describe('resolve not_created', () => {
  it('is refused before resolve_allowed_at, then fails the creation and releases its key and fulfillment order', async () => {
    const { shop, account, order, key, creation } = await anUnclearCreation();
    // "Before resolve_allowed_at" by the record's own instants, not by how soon this machine answered the create:
    // the API decides over the record with its clock, set here to the carrier call's time.
    app.clock.set(creation.attention.sent_at);
    const early = await resolve(shop, creation.id, { outcome: 'not_created' }).finally(() => app.clock.reset());
    expectError(
      early,
      409,
      'resolve_too_early',
      has({
        label_creation_id: creation.id,
        resolve_allowed_at: creation.attention.resolve_allowed_at,
      }),
    );
    // Retry-After: the seconds from the carrier call to resolve_allowed_at (RESOLVE_ALLOWED_AFTER, whole seconds).
    expect(early.headers.get('retry-after')).toBe(
      String((Date.parse(creation.attention.resolve_allowed_at) - Date.parse(creation.attention.sent_at)) / 1000),
    );

    await reached(creation.attention.resolve_allowed_at);
    const res = await resolve(shop, creation.id, { outcome: 'not_created', note: 'Not in the carrier portal.' });
    expect(res.status).toBe(200);
    // The answer waited for the platform hold's release: an export may start at once.
    await exportsStartAndEnd(shop, order.fulfillmentOrderIds[0]!);
    expect(res.body).toMatchObject({
      id: creation.id,
      status: 'failed',
      created: false,
      // Spec "Errors": `resolved_not_created` retries `later`; the stored error carries the pair.
      next_action: 'retry_later',
      error: {
        code: 'resolved_not_created',
        details: { label_creation_id: creation.id, retry: 'later', next_action: 'retry_later' },
      },
      attention: { reason: 'carrier_timeout', shipment_at_carrier: 'unknown' },
      resolution: {
        outcome: 'not_created',
        tracking_number: null,
        note: 'Not in the carrier portal.',
        resolved_by: shop.keyId,
        resolved_at: expect.any(String),
      },
    });
    // The same outcome again: 200, nothing changes; another outcome: already_resolved.
    const again = await resolve(shop, creation.id, { outcome: 'not_created' });
    expect(again.status).toBe(200);
    expect(again.body.resolution).toEqual(res.body.resolution);
    expectError(
      await resolve(shop, creation.id, { outcome: 'shipment_exists' }),
      409,
      'already_resolved',
      has({
        label_creation_id: creation.id,
        outcome: 'not_created',
      }),
    );
    // Key and fulfillment order are free: the same key makes a new attempt, which creates the label.
    const retry = await create(shop, key, { order_id: order.orderId });
    expect(retry.status).toBe(201);
    expect(retry.body.id).not.toBe(creation.id);
    expect(await ledger(account.id)).toHaveLength(1);
  });

  it('answers without waiting out a platform that fails the release; the release is retried and lands later', async () => {
    const { shop, order, creation } = await anUnclearCreation();
    await reached(creation.attention.resolve_allowed_at);
    // The release's first four tries fail (about 15 s of the activity's retries); the resolve waits 5 s at most.
    const faults = await control('POST', `/_control/stores/${shop.domain}/faults`, {
      faults: [{ type: 'unavailable', times: 4 }],
    });
    expect(faults.status).toBe(201);
    const res = await resolve(shop, creation.id, { outcome: 'not_created' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: creation.id, status: 'failed', error: { code: 'resolved_not_created' } });
    // Answered while the platform still held the fulfillment order for the creation ...
    expect(await exportStarts(shop, order.fulfillmentOrderIds[0]!)).toMatchObject({
      status: 409,
      body: { code: 'held_by_app' },
    });
    // ... whose release went on after the answer and landed.
    await eventually(
      async () => ((await exportStarts(shop, order.fulfillmentOrderIds[0]!)).status === 200 ? true : null),
      120,
      250,
    );
  });

  it('is refused once a late acceptance showed the shipment exists (not_resolvable); attention shows the reference', async () => {
    const { shop, account } = await aShopWith('carrier_a', 'a_home');
    const order = await anOrderOnPlatform(shop.domain);
    // The carrier makes the shipment after the dropped call; its label cannot be downloaded for now.
    await scriptFaults(account.id, [
      { type: 'late_acceptance', hold_ms: 8000, accept_after_ms: 6000 },
      { type: 'render_error', operation: 'label', times: 1000 },
    ]);
    const res = await create(shop, `late-${order.orderId}`, { order_id: order.orderId });
    expect(res.status).toBe(202);
    expect(res.body.attention).toMatchObject({ reason: 'carrier_timeout', shipment_at_carrier: 'unknown' });
    const exists = await until(shop, res.body.id, (b) => b.attention?.shipment_at_carrier === 'exists');
    expect(exists).toMatchObject({
      status: 'needs_attention',
      attention: { reason: 'carrier_timeout', carrier_reference: expect.any(String) },
      labels: [expect.objectContaining({ status: 'pending' })],
    });
    await reached(exists.attention.resolve_allowed_at);
    expectError(
      await resolve(shop, res.body.id, { outcome: 'not_created' }),
      409,
      'not_resolvable',
      has({
        label_creation_id: res.body.id,
        status: 'needs_attention',
      }),
    );
    // Exports of the fulfillment order are refused on the platform, and so is every new label for it.
    expectError(
      await create(shop, `new-${order.orderId}`, { order_id: order.orderId, on_existing: 'create_new', replaces: [] }),
      409,
      'unresolved_creation',
      has({ label_creation_id: res.body.id }),
    );
    const refusedExport = await exportStarts(shop, order.fulfillmentOrderIds[0]!);
    expect(refusedExport).toMatchObject({ status: 409, body: { code: 'held_by_app' } });
    // The label comes through once the carrier serves it: succeeded automatically, one shipment.
    await control('DELETE', `/_control/carrier-accounts/${account.id}/faults`);
    const done = await until(shop, res.body.id, (b) => b.status === 'succeeded');
    expect(done).toMatchObject({
      created: true,
      attention: null,
      labels: [
        expect.objectContaining({ status: 'ready', document: expect.objectContaining({ availability: 'available' }) }),
      ],
    });
    expect(await ledger(account.id)).toHaveLength(1);
  });
});

describe('resolve shipment_exists', () => {
  it('abandons the creation: fulfillment order released, key still bound, the pending label failed not_finalized', async () => {
    const { shop, account } = await aShopWith('carrier_b', 'b_standard');
    await control('PUT', `/_control/carrier-accounts/${account.id}/settings`, { batch_completion: 'manual' });
    const order = await anOrderOnPlatform(shop.domain);
    const key = `batch-${order.orderId}`;
    const res = await create(shop, key, { order_id: order.orderId });
    // The batch does not complete within the (shortened) 10 minutes: the shipment exists, its label does not.
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({
      status: 'needs_attention',
      attention: {
        reason: 'confirmation_missing',
        shipment_at_carrier: 'exists',
        carrier_reference: expect.any(String),
      },
      labels: [expect.objectContaining({ status: 'pending' })],
    });
    expectError(
      await resolve(shop, res.body.id, { outcome: 'not_created' }),
      409,
      'not_resolvable',
      has({
        status: 'needs_attention',
      }),
    );
    // A slow platform: the hold's release takes 1.5 s, and the answer waits for it.
    await control('POST', `/_control/stores/${shop.domain}/faults`, { faults: [{ type: 'slow', delay_ms: 1500 }] });
    const abandoned = await resolve(shop, res.body.id, { outcome: 'shipment_exists', tracking_number: 'B123' });
    expect(abandoned.status).toBe(200);
    // The answer waited for the platform hold's release: an export may start at once.
    await exportsStartAndEnd(shop, order.fulfillmentOrderIds[0]!);
    expect(abandoned.body).toMatchObject({
      status: 'abandoned',
      next_action: 'none',
      resolution: { outcome: 'shipment_exists', tracking_number: 'B123', resolved_by: shop.keyId },
      labels: [expect.objectContaining({ status: 'failed', failure_reason: 'not_finalized' })],
    });
    expect((await resolve(shop, res.body.id, { outcome: 'shipment_exists' })).status).toBe(200);
    expectError(
      await resolve(shop, res.body.id, { outcome: 'not_created' }),
      409,
      'already_resolved',
      has({
        outcome: 'shipment_exists',
      }),
    );
    // The key stays bound to the abandoned creation (spec "Idempotency of POST /labels").
    expectError(
      await create(shop, key, { order_id: order.orderId }),
      409,
      'label_exists',
      has({ reason: 'shipment_outside_globe', label_creation_id: res.body.id }),
    );
    // New labels need create_new with the creation in `replaces`.
    expectError(
      await create(shop, `other-${order.orderId}`, { order_id: order.orderId }),
      409,
      'label_exists',
      has({
        label_creation_id: res.body.id,
      }),
    );
    const replaced = await create(shop, `replace-${order.orderId}`, {
      order_id: order.orderId,
      on_existing: 'create_new',
      replaces: [res.body.id],
    });
    expect(replaced.status).toBe(202);
    // The replacement is carrier B too: complete its batch, and it succeeds.
    const batches = (await ledger(account.id)).filter(
      (s) => s.status === 'pending' && s.reference === replaced.body.id,
    );
    expect(batches).toHaveLength(1);
    await control('POST', `/_control/carrier-accounts/${account.id}/batches/${batches[0].batch_id}/complete`);
    const done = await until(shop, replaced.body.id, (b) => b.status === 'succeeded');
    expect(done.labels[0]).toMatchObject({ status: 'ready' });
  });
});

describe('needs_attention without a resolve', () => {
  it('succeeds on its own when the carrier B batch completes later: label ready, created_at unchanged', async () => {
    const { shop, account } = await aShopWith('carrier_b', 'b_standard');
    await control('PUT', `/_control/carrier-accounts/${account.id}/settings`, { batch_completion: 'manual' });
    const order = await anOrderOnPlatform(shop.domain);
    const started = await create(shop, `later-${order.orderId}`, { order_id: order.orderId }, 0);
    // Accepted into a batch: the creation waits for the carrier, then (past the shortened 10 minutes) needs attention.
    await until(shop, started.body.id, (b) => b.phase === 'waiting_for_carrier' || b.status !== 'processing');
    const res = { body: await until(shop, started.body.id, (b) => b.status === 'needs_attention') };
    expect(res.body).toMatchObject({ status: 'needs_attention', attention: { reason: 'confirmation_missing' } });
    const pending = res.body.labels[0];
    const [batch] = await ledger(account.id);
    await control('POST', `/_control/carrier-accounts/${account.id}/batches/${batch.batch_id}/complete`);
    const done = await until(shop, res.body.id, (b) => b.status === 'succeeded');
    expect(done).toMatchObject({ created: true, next_action: 'fetch_document', attention: null });
    expect(done.labels[0]).toMatchObject({ id: pending.id, status: 'ready', created_at: pending.created_at });
    expect(done.labels[0].tracking_number).toEqual(expect.any(String));
    expect(Date.parse(done.labels[0].updated_at)).toBeGreaterThanOrEqual(Date.parse(pending.updated_at));
    expectError(
      await resolve(shop, res.body.id, { outcome: 'shipment_exists' }),
      409,
      'not_resolvable',
      has({
        status: 'succeeded',
      }),
    );
  });

  it('a label the carrier does not serve yet: label_not_retrieved (shipment exists), then succeeded and fulfilled once it does', async () => {
    const { shop, account } = await aShopWith('carrier_a', 'a_home');
    const order = await anOrderOnPlatform(shop.domain);
    await scriptFaults(account.id, [{ type: 'render_error', operation: 'label', times: 1000 }]);
    const started = await create(
      shop,
      `label-${order.orderId}`,
      { order_id: order.orderId, fulfillment: 'fulfill' },
      0,
    );
    // The label download is retried for a while before the creation needs attention.
    const res = { body: await until(shop, started.body.id, (b) => b.status !== 'processing', 600) };
    expect(res.body).toMatchObject({
      status: 'needs_attention',
      attention: {
        reason: 'label_not_retrieved',
        shipment_at_carrier: 'exists',
        carrier_reference: expect.any(String),
      },
    });
    await control('DELETE', `/_control/carrier-accounts/${account.id}/faults`);
    const done = await until(shop, res.body.id, (b) => b.status === 'succeeded');
    expect(done.labels[0]).toMatchObject({
      status: 'ready',
      document: expect.objectContaining({ availability: 'available' }),
    });
    expect(await ledger(account.id)).toHaveLength(1);
    // The platform fulfils nothing on hold: the creation released the hold it placed while unclear, then fulfilled.
    expect(done.side_effects.fulfillment).toEqual({ mode: 'fulfill', status: 'succeeded' });
    const fulfilled = (await control('GET', `/_control/stores/${shop.domain}/fulfillments`)).body.fulfillments;
    expect(fulfilled.map((f: { fulfillment_order_ids: string[] }) => f.fulfillment_order_ids)).toEqual([
      order.fulfillmentOrderGids,
    ]);
  });

  it('fails when carrier B refuses the batch at import: label carrier_import_rejected, creation carrier_rejected', async () => {
    const { shop, account } = await aShopWith('carrier_b', 'b_standard');
    await control('PUT', `/_control/carrier-accounts/${account.id}/settings`, { batch_completion: 'manual' });
    await scriptFaults(account.id, [{ type: 'import_rejected' }]);
    const order = await anOrderOnPlatform(shop.domain);
    const res = await create(shop, `import-${order.orderId}`, { order_id: order.orderId });
    expect(expectStatus(res, 202)).toMatchObject({
      status: 'needs_attention',
      attention: { reason: 'confirmation_missing' },
    });
    const [batch] = await ledger(account.id);
    await control('POST', `/_control/carrier-accounts/${account.id}/batches/${batch.batch_id}/complete`);
    const failed = await until(shop, res.body.id, (b) => b.status === 'failed');
    expect(failed).toMatchObject({
      created: false,
      error: { code: 'carrier_rejected', details: { reason: 'other' } },
      labels: [expect.objectContaining({ status: 'failed', failure_reason: 'carrier_import_rejected' })],
    });
    // The key is released: the same key tries again.
    await control('POST', `/_control/carrier-accounts/${account.id}/reset`);
    const again = await create(shop, `import-${order.orderId}`, { order_id: order.orderId }, 0);
    expect(again.body.id).not.toBe(res.body.id);
  });

  it('carrier D: a found draft is printed, which makes the shipment, and the creation succeeds', async () => {
    const { shop, account } = await aShopWith('carrier_d', 'd_home');
    const order = await anOrderOnPlatform(shop.domain);
    // The create leaves a draft and drops; printing it fails for now.
    await scriptFaults(account.id, [
      { type: 'draft_left', hold_ms: 5000 },
      { type: 'render_error', operation: 'label', times: 2 },
    ]);
    const res = await create(shop, `draft-${order.orderId}`, { order_id: order.orderId });
    expect(res.status).toBe(202);
    expect(res.body.attention).toMatchObject({
      carrier_note: 'draft_until_label_printed',
      shipment_at_carrier: 'unknown',
    });
    const done = await until(shop, res.body.id, (b) => b.status === 'succeeded');
    expect(done.labels[0]).toMatchObject({ status: 'ready' });
    expect(await ledger(account.id)).toHaveLength(1);
  });
});

describe('POST /v1/label-creations/{id}/resolve: who may, and what', () => {
  it('needs label_creations:resolve with labels:write and write access; validates the body; 404 for others', async () => {
    const { shop, creation } = await anUnclearCreation();
    const { secret } = await createApiKey(app.orm.em.fork(), {
      storeId: shop.storeId,
      name: 'writer',
      scopes: ['labels:write'],
      now: new Date(),
    });
    expectError(
      await resolve(shop, creation.id, { outcome: 'shipment_exists' }, { authorization: `Bearer ${secret}` }),
      403,
      'insufficient_scope',
      has({ required_scope: 'label_creations:resolve' }),
    );
    expectError(await resolve(shop, creation.id, { outcome: 'maybe' }), 422, 'validation_error');
    expectError(
      await resolve(shop, creation.id, { outcome: 'not_created', note: 'x'.repeat(201) }),
      422,
      'validation_error',
    );
    expectError(await resolve(shop, creation.id, { outcome: 'not_created', extra: 1 }), 422, 'validation_error');
    const other = await aStoreWithKey(app.orm);
    expectError(await resolve(other, creation.id, { outcome: 'shipment_exists' }), 404, 'not_found');
    expectError(await resolve(shop, 'lcr_unknown000000000000', { outcome: 'shipment_exists' }), 404, 'not_found');
    const readOnly = await aStoreWithKey(app.orm, { gates: { writeAccess: false } });
    expectError(await resolve(readOnly, creation.id, { outcome: 'shipment_exists' }), 403, 'write_access_required');
  });

  it('refuses a creation that is not in needs_attention: not_resolvable with its status', async () => {
    const { shop } = await aShopWith('carrier_a', 'a_home');
    const order = await anOrderOnPlatform(shop.domain);
    const done = await create(shop, `done-${order.orderId}`, { order_id: order.orderId });
    expect(done.status).toBe(201);
    expectError(
      await resolve(shop, done.body.id, { outcome: 'shipment_exists' }),
      409,
      'not_resolvable',
      has({
        label_creation_id: done.body.id,
        status: 'succeeded',
      }),
    );
  });

  it('is limited to one a second per key (resolve_key_per_second)', async () => {
    const shop = await aStoreWithKey(app.orm);
    const unknown = 'lcr_000000000000000000000000';
    // Three at once fall in at most two one-second windows: at least one is refused.
    const answers = await Promise.all([1, 2, 3].map(() => resolve(shop, unknown, { outcome: 'not_created' })));
    const refused = answers.filter((r) => r.status === 429);
    expect(refused.length).toBeGreaterThanOrEqual(1);
    expectError(refused[0]!, 429, 'rate_limited', has({ bucket: 'resolve_key_per_second', scope: 'key', limit: 1 }));
    for (const answer of answers.filter((r) => r.status !== 429)) expectError(answer, 404, 'not_found');
  });
});

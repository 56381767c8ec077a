import { createCarrierProtection } from '../../src/creation/carrier-protection';
import { SPEC_PROTECTION } from '../../src/domain/carrier-protection';
import { newId } from '../../src/ids';
import { aCarrierAAccount, anOrderOnPlatform, aRule } from '../helpers/creation';
import { expectError } from '../helpers/errors';
import { labelctlJson } from '../helpers/labelctl';
import { ledger, scriptFaults } from '../helpers/sandbox';
import { aStoreWithKey } from '../helpers/stores';
import { startTestApp, type TestApp } from '../helpers/test-app';

/**
 * Carrier protection over HTTP (spec "Errors": `carrier_unavailable` `circuit_open` / `account_rejecting`,
 * `repeated_rejection`), with the worker's settings (the spec's numbers) and sandbox faults on each test's own
 * carrier account. Where a test needs time to pass, it moves the recorded outcomes back instead of waiting. A block
 * already recorded is answered on arrival, before anything is stored (decision 0120); the worker's own check, for a
 * block recorded after the arrival, is tested in creation-arrival.test.ts.
 */

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => app.close());

const MINUTE = 60_000;

async function aShop() {
  // Many creations in a row: support's overrides keep the per-second write buckets out of the way.
  const shop = await aStoreWithKey(app.orm, {
    limits: { write_key_per_second: 100, write_shop_per_minute: 1000, dry_run_key_per_second: 100 },
  });
  const account = await aCarrierAAccount(app.orm, shop.storeId);
  await aRule(app.orm, shop.storeId, { priority: 1, carrierAccountId: account.id, serviceCode: 'a_home' });
  return { shop, account };
}
type Shop = Awaited<ReturnType<typeof aShop>>['shop'];

const create = (shop: Shop, key: string, body: Record<string, unknown>) =>
  app.request('POST', '/v1/labels', {
    headers: { ...shop.auth, 'Idempotency-Key': key, Prefer: 'wait=30' },
    body,
  });
const dryRun = (shop: Shop, body: Record<string, unknown>) =>
  app.request('POST', '/v1/labels', { headers: shop.auth, body: { ...body, dry_run: true } });

/** The creations stored under an idempotency key. */
async function creationsUnder(shop: Shop, key: string) {
  const res = await app.request('GET', `/v1/label-creations?idempotency_key=${key}`, { headers: shop.auth });
  expect(res.status).toBe(200);
  return res.body.data as unknown[];
}

/** Moves every recorded outcome of the account back in time, as if `ms` had passed. */
async function letTimePass(accountId: string, ms: number) {
  await app.orm.em
    .fork()
    .execute(`update carrier_outcomes set recorded_at = recorded_at - ?::interval where carrier_account_id = ?`, [
      `${ms} milliseconds`,
      accountId,
    ]);
}

/** `n` creations, each for its own order, that the carrier answers with a server error (an unclear result). */
async function unclearCreations(shop: Shop, accountId: string, n: number) {
  await scriptFaults(accountId, [{ type: 'server_error', times: n }]);
  for (let i = 0; i < n; i += 1) {
    const order = await anOrderOnPlatform(shop.domain);
    const res = await create(shop, `unclear-${order.orderId}`, { order_id: order.orderId });
    expect(res.status).toBe(202);
    expect(res.body.attention.reason).toBe('carrier_error');
  }
}

/** A creation for a new order that the carrier refuses with `reason` (its scripted fault). */
async function refusedCreation(shop: Shop, reason: string) {
  const order = await anOrderOnPlatform(shop.domain);
  expectError(await create(shop, `refused-${order.orderId}`, { order_id: order.orderId }), 422, 'carrier_rejected', {
    reason,
    label_creation_id: expect.stringMatching(/^lcr_/),
    retry: 'after_fix',
    next_action: 'fix_and_retry',
  });
}

/**
 * A creation for a new order that carrier protection stops with 503 `carrier_unavailable` for `reason`: on arrival,
 * so nothing is stored under its key and no record is named.
 */
async function blockedCreation(shop: Shop, reason: 'circuit_open' | 'account_rejecting') {
  const order = await anOrderOnPlatform(shop.domain);
  const blocked = await create(shop, `blocked-${order.orderId}`, { order_id: order.orderId });
  expectError(blocked, 503, 'carrier_unavailable', {
    reason,
    retry_after_seconds: expect.any(Number),
    ...(reason === 'circuit_open'
      ? { retry: 'later', next_action: 'retry_later' }
      : { retry: 'after_fix', next_action: 'fix_and_retry' }),
  });
  expect(await creationsUnder(shop, `blocked-${order.orderId}`)).toEqual([]);
  return { order, blocked };
}

describe('circuit_open: several unclear results in a row on a carrier account', () => {
  it('after 5 unclear results new creations answer 503 without calling the carrier, until the open time passes', async () => {
    const { shop, account } = await aShop();
    await unclearCreations(shop, account.id, SPEC_PROTECTION.circuitThreshold);

    // The carrier would accept now (no fault left): a call would show in its ledger.
    const { order, blocked } = await blockedCreation(shop, 'circuit_open');
    const retryAfter = Number(blocked.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(300);
    expect(blocked.body.error.details.retry_after_seconds).toBe(retryAfter);
    expect(await ledger(account.id)).toEqual([]);
    // The dry run answers what a live call would get.
    const dry = await dryRun(shop, { order_id: order.orderId });
    expectError(dry, 503, 'carrier_unavailable', {
      reason: 'circuit_open',
      retry_after_seconds: expect.any(Number),
      retry: 'later',
      next_action: 'retry_later',
    });
    expect(dry.headers.get('retry-after')).toEqual(expect.any(String));

    // Five minutes later the next creation calls the carrier again; its acceptance closes the circuit.
    await letTimePass(account.id, SPEC_PROTECTION.circuitOpenMs);
    const again = await create(shop, `again-${order.orderId}`, { order_id: order.orderId });
    expect(again.status).toBe(201);
    expect(await ledger(account.id)).toHaveLength(1);
    const [status] = await labelctlJson('carrier-protection', 'show', shop.storeId);
    expect(status).toMatchObject({ carrier_account_id: account.id, circuit: 'closed', unclear_in_a_row: 0 });
  });

  it('a clear result in between resets the count; an operator can close an open circuit with labelctl', async () => {
    const { shop, account } = await aShop();
    await unclearCreations(shop, account.id, SPEC_PROTECTION.circuitThreshold - 1);
    // A refusal is a clear answer: the carrier is up.
    await scriptFaults(account.id, [{ type: 'reject', reason: 'address_invalid' }]);
    const refusedOrder = await anOrderOnPlatform(shop.domain);
    expectError(
      await create(shop, `refused-${refusedOrder.orderId}`, { order_id: refusedOrder.orderId }),
      422,
      'carrier_rejected',
    );
    await unclearCreations(shop, account.id, SPEC_PROTECTION.circuitThreshold - 1);
    const passes = await anOrderOnPlatform(shop.domain);
    expect((await create(shop, `passes-${passes.orderId}`, { order_id: passes.orderId })).status).toBe(201);

    await unclearCreations(shop, account.id, SPEC_PROTECTION.circuitThreshold);
    const [open] = await labelctlJson('carrier-protection', 'show', shop.domain);
    expect(open).toMatchObject({
      carrier_account_id: account.id,
      circuit: 'open',
      open_until: expect.any(String),
      unclear_in_a_row: SPEC_PROTECTION.circuitThreshold,
    });
    const order = await anOrderOnPlatform(shop.domain);
    expectError(await create(shop, `open-${order.orderId}`, { order_id: order.orderId }), 503, 'carrier_unavailable');
    const reset = await labelctlJson('carrier-protection', 'reset', shop.domain, '--account', account.id);
    expect(reset).toMatchObject({ store_id: shop.storeId, carrier_account_id: account.id });
    expect(reset.forgotten_outcomes).toBeGreaterThan(0);
    expect((await create(shop, `closed-${order.orderId}`, { order_id: order.orderId })).status).toBe(201);
  });
});

describe('account_rejecting: 5 refusals on the account in 10 minutes', () => {
  it('answers 503 (retry after_fix) without calling the carrier; a change to the account lifts it', async () => {
    const { shop, account } = await aShop();
    // Refusals of the account itself, as a carrier gives them: bad credentials, then an account not allowed the service.
    await scriptFaults(account.id, [
      { type: 'reject', reason: 'credentials_invalid', times: 3 },
      { type: 'reject', reason: 'account_not_permitted', times: 2 },
    ]);
    for (let i = 0; i < 5; i += 1) await refusedCreation(shop, i < 3 ? 'credentials_invalid' : 'account_not_permitted');
    const { order, blocked } = await blockedCreation(shop, 'account_rejecting');
    expect(Number(blocked.headers.get('retry-after'))).toBeLessThanOrEqual(600);
    expect(await ledger(account.id)).toEqual([]);
    expectError(await dryRun(shop, { order_id: order.orderId }), 503, 'carrier_unavailable', {
      reason: 'account_rejecting',
      retry_after_seconds: expect.any(Number),
      retry: 'after_fix',
      next_action: 'fix_and_retry',
    });

    // The merchant fixes the account (its settings change): earlier refusals no longer count.
    await app.orm.em.fork().execute('update carrier_accounts set updated_at = now() where id = ?', [account.id]);
    const fixed = await create(shop, `fixed-${order.orderId}`, { order_id: order.orderId });
    expect(fixed.status).toBe(201);
  });

  it('an accepted shipment among the 5 refusals does not lift it (spec: "5 refusals in 10 minutes")', async () => {
    const { shop, account } = await aShop();
    await scriptFaults(account.id, [{ type: 'reject', reason: 'credentials_invalid', times: 2 }]);
    await refusedCreation(shop, 'credentials_invalid');
    await refusedCreation(shop, 'credentials_invalid');
    // The carrier accepts one shipment in between.
    const accepted = await anOrderOnPlatform(shop.domain);
    expect((await create(shop, `accepted-${accepted.orderId}`, { order_id: accepted.orderId })).status).toBe(201);
    await scriptFaults(account.id, [{ type: 'reject', reason: 'account_not_permitted', times: 3 }]);
    for (let i = 0; i < 3; i += 1) await refusedCreation(shop, 'account_not_permitted');

    await blockedCreation(shop, 'account_rejecting');
    // The carrier's shipments: the accepted one only; the blocked creation never called it.
    expect(await ledger(account.id)).toEqual([expect.objectContaining({ reference: expect.stringMatching(/^lcr_/) })]);
  });
});

describe('repeated_rejection', () => {
  it('scope fingerprint: the same shipment refused 3 times in 60 minutes is not sent again; a changed one is', async () => {
    const { shop, account } = await aShop();
    const order = await anOrderOnPlatform(shop.domain);
    await scriptFaults(account.id, [{ type: 'reject', reason: 'postcode_invalid', times: 3 }]);
    const ids: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      const res = await create(shop, `same-${i}-${order.orderId}`, { order_id: order.orderId });
      expectError(res, 422, 'carrier_rejected');
      ids.push(res.body.error.details.label_creation_id);
    }
    // No fault is left: a fourth call would be accepted, so a 422 proves the carrier was not called.
    const blocked = await create(shop, `same-3-${order.orderId}`, { order_id: order.orderId });
    expectError(blocked, 422, 'repeated_rejection', {
      scope: 'fingerprint',
      blocked_until: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
      carrier_rejected: { reason: 'postcode_invalid', label_creation_id: ids[2] },
      retry: 'after_fix',
      next_action: 'fix_and_retry',
    });
    expect(await creationsUnder(shop, `same-3-${order.orderId}`)).toEqual([]);
    const blockedUntil = Date.parse(blocked.body.error.details.blocked_until);
    const retryAfter = Number(blocked.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(55 * 60);
    expect(retryAfter).toBeLessThanOrEqual(60 * 60);
    // `blocked_until` is the refusal's time plus 60 minutes, rounded up to the whole second of the wire format.
    expect(blockedUntil - Date.now()).toBeLessThanOrEqual(60 * MINUTE + 1000);
    expect(await ledger(account.id)).toEqual([]);
    expectError(await dryRun(shop, { order_id: order.orderId }), 422, 'repeated_rejection', {
      scope: 'fingerprint',
      blocked_until: blocked.body.error.details.blocked_until,
      carrier_rejected: { reason: 'postcode_invalid', label_creation_id: ids[2] },
      retry: 'after_fix',
      next_action: 'fix_and_retry',
    });

    // Anything sent to the carrier changed (the weight): a new shipment, sent and accepted.
    const changed = { order_id: order.orderId, parcels: [{ weight_grams: 1500 }] };
    expect((await dryRun(shop, changed)).status).toBe(200);
    const created = await create(shop, `changed-${order.orderId}`, changed);
    expect(created.status).toBe(201);
    expect(await ledger(account.id)).toHaveLength(1);
  });

  it('scope fulfillment_order_daily: 30 refusals for a fulfillment order in 24 hours', async () => {
    const { shop, account } = await aShop();
    const order = await anOrderOnPlatform(shop.domain);
    // 30 refusals of different shipments for the fulfillment order over the last day, recorded as the worker does.
    const em = app.orm.em.fork();
    for (let i = 0; i < 30; i += 1) {
      await em.execute(
        `insert into carrier_outcomes (label_creation_id, store_id, carrier_account_id, outcome, reason, fingerprint,
           fulfillment_order_gids, recorded_at)
         values (?, ?, ?, 'rejected', 'weight_out_of_range', ?, array[?]::text[], now() - ?::interval)`,
        [
          newId('labelCreation'),
          shop.storeId,
          account.id,
          `fp-${i}`,
          order.fulfillmentOrderGids[0],
          `${(i + 1) * 40} minutes`,
        ],
      );
    }
    const newest = await em.execute<Array<{ label_creation_id: string }>>(
      `select label_creation_id from carrier_outcomes where carrier_account_id = ? order by recorded_at desc limit 1`,
      [account.id],
    );
    const blocked = await create(shop, `daily-${order.orderId}`, { order_id: order.orderId });
    expectError(blocked, 422, 'repeated_rejection', {
      scope: 'fulfillment_order_daily',
      blocked_until: expect.any(String),
      carrier_rejected: { reason: 'weight_out_of_range', label_creation_id: newest[0]!.label_creation_id },
      retry: 'after_fix',
      next_action: 'fix_and_retry',
    });
    // The oldest of the 30 leaves the day 4 hours from now (it was 20 hours ago).
    const untilMs = Date.parse(blocked.body.error.details.blocked_until) - Date.now();
    expect(untilMs).toBeGreaterThan(4 * 60 * MINUTE - 5 * MINUTE);
    expect(untilMs).toBeLessThanOrEqual(4 * 60 * MINUTE + 1000);
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await ledger(account.id)).toEqual([]);

    // Once the oldest refusal is older than a day, the fulfillment order may be sent again.
    await letTimePass(account.id, 4 * 60 * MINUTE);
    expect((await create(shop, `daily-later-${order.orderId}`, { order_id: order.orderId })).status).toBe(201);
  });
});

describe('the outcomes are shared state in PostgreSQL', () => {
  it('parallel recordings count exactly, and a creation’s outcome counts once', async () => {
    const { shop, account } = await aShop();
    const protection = createCarrierProtection({ orm: app.orm, now: () => new Date(), settings: SPEC_PROTECTION });
    const call = {
      carrierAccountId: account.id,
      carrierCode: 'carrier_a',
      serviceCode: 'a_home',
      orderName: '#1',
      recipient: { name: 'Jana', company: null },
      address: { street: 'Dlouhá 12', city: 'Praha', postcode: '110 00', country: 'CZ' },
      phone: null,
      email: null,
      pickupPoint: null,
      weightGrams: 1000,
      cod: null,
      declaredValue: null,
      options: {},
    };
    const target = { storeId: shop.storeId, call, fulfillmentOrderGids: ['gid://shopify/FulfillmentOrder/1'] };
    const unclearIds = Array.from({ length: 12 }, () => newId('labelCreation'));
    await Promise.all(
      unclearIds.map((creationId) =>
        protection.record({ ...target, creationId, outcome: 'unclear', reason: 'carrier_timeout' }),
      ),
    );
    // A retried activity recording the same creation again changes nothing (its first outcome stands).
    await Promise.all(
      unclearIds
        .slice(0, 4)
        .map((creationId) => protection.record({ ...target, creationId, outcome: 'accepted', reason: null })),
    );
    const [afterUnclear] = await protection.status(shop.storeId);
    expect(afterUnclear).toMatchObject({ unclearInARow: 12, circuitOpenUntil: expect.any(Date) });
    expect((await protection.check(target)).kind).toBe('block');
    const refusalIds = Array.from({ length: 20 }, () => newId('labelCreation'));
    await Promise.all(
      refusalIds.map((creationId) =>
        protection.record({
          ...target,
          call: { ...call, weightGrams: 1000 + refusalIds.indexOf(creationId) },
          creationId,
          outcome: 'rejected',
          reason: 'address_invalid',
        }),
      ),
    );
    const [status] = await protection.status(shop.storeId);
    expect(status).toMatchObject({ carrierAccountId: account.id, unclearInARow: 0, recentRefusals: 20 });
    const [row] = await app.orm.em
      .fork()
      .execute<Array<{ unclear: number; accepted: number }>>(
        `select (count(*) filter (where outcome = 'unclear'))::int as unclear, (count(*) filter (where outcome = 'accepted'))::int as accepted from carrier_outcomes where carrier_account_id = ?`,
        [account.id],
      );
    expect(row).toEqual({ unclear: 12, accepted: 0 });
  });
});

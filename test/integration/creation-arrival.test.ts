import { SPEC_PROTECTION } from '../../src/domain/carrier-protection';
import { newId } from '../../src/ids';
import { createWriteLimits } from '../../src/limits/write-limits';
import { addEndpoint } from '../../src/webhooks/endpoints';
import { aCarrierAAccount, anOrderOnPlatform, aRule } from '../helpers/creation';
import { expectError } from '../helpers/errors';
import { startAppWithOwnWorker, type AppWithOwnWorker } from '../helpers/own-worker';
import { eventually, ledger } from '../helpers/sandbox';
import { aStoreWithKey } from '../helpers/stores';
import type { TestResponse } from '../helpers/test-app';
import { receiverUrl } from '../helpers/webhooks';

/**
 * The checks on arrival (spec `label_validation_failed`: "checked on arrival and again in the worker"; decision 0120).
 * A worker of this file's own holds the first step of every creation of a store the test holds, as a backlogged
 * worker would, until the test lets the store go: so an answer that depends on the worker is told apart from one
 * given on arrival, and the order can change between the two checks.
 */
const heldStores = new Map<string, { held: Promise<void>; release: () => void }>();
const holdStore = (storeId: string) => {
  let release = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  heldStores.set(storeId, { held, release });
};
const releaseStore = (storeId: string) => {
  heldStores.get(storeId)?.release();
  heldStores.delete(storeId);
};

let own: AppWithOwnWorker;
beforeAll(async () => {
  own = await startAppWithOwnWorker({
    taskQueue: `arrival-${process.pid}`,
    activities: (activities) => ({
      async prepareAndSendToCarrier(input: Parameters<typeof activities.prepareAndSendToCarrier>[0]) {
        await heldStores.get(input.storeId)?.held;
        return activities.prepareAndSendToCarrier(input);
      },
    }),
  });
});
afterAll(async () => {
  for (const storeId of [...heldStores.keys()]) releaseStore(storeId);
  await own?.stop();
});

type Shop = Awaited<ReturnType<typeof aStoreWithKey>>;
const LINE_ITEMS = [
  { id: 1, quantity: 1, total_after_discounts: { amount: '499.00', currency: 'CZK' }, weight_grams: 1200 },
];

/** A store of one carrier A account, one daily unit and one queue place, with a webhook endpoint. */
async function aShop(options: { account?: boolean } = {}) {
  const { app } = own;
  const shop = await aStoreWithKey(app.orm, { limits: { write_shop_per_day: 1, write_queue_depth: 1 } });
  await addEndpoint(app.orm.em.fork(), app.config.settingsEncryptionKey, {
    storeId: shop.storeId,
    url: receiverUrl(`arrival-${shop.storeId}`),
    topics: ['label_creation.updated'],
    now: new Date(),
  });
  if (options.account !== false) await anAccountFor(shop);
  return shop;
}

async function anAccountFor(shop: Shop) {
  const account = await aCarrierAAccount(own.app.orm, shop.storeId);
  await aRule(own.app.orm, shop.storeId, { priority: 1, carrierAccountId: account.id, serviceCode: 'a_home' });
  return account;
}

/** The sandbox order `orderId` as it is, its metafields replaced (the same fulfillment order, the same items). */
const changeMetafields = (
  shop: Shop,
  order: { orderId: string; name: string; fulfillmentOrderIds: string[] },
  metafields: Record<string, string>,
) =>
  anOrderOnPlatform(shop.domain, {
    id: order.orderId,
    name: order.name,
    metafields,
    fulfillment_orders: [{ id: order.fulfillmentOrderIds[0], line_items: LINE_ITEMS }],
  });

async function accountIdOf(shop: Shop): Promise<string> {
  const [account] = await own.app.orm.em
    .fork()
    .execute<Array<{ id: string }>>('select id from carrier_accounts where store_id = ?', [shop.storeId]);
  return account!.id;
}

const create = (shop: Shop, key: string, body: Record<string, unknown>, prefer?: string) =>
  own.app.request('POST', '/v1/labels', {
    headers: { ...shop.auth, 'Idempotency-Key': key, ...(prefer ? { Prefer: prefer } : {}) },
    body,
  });

const creations = async (shop: Shop, query = '') => {
  const res = await own.app.request('GET', `/v1/label-creations${query}`, { headers: shop.auth });
  expect(res.status).toBe(200);
  return res.body.data as Array<{ id: string; status: string; error: { code: string } | null }>;
};

async function webhookEvents(shop: Shop): Promise<Array<{ errorCode: string | null }>> {
  const rows = await own.app.orm.em
    .fork()
    .execute<Array<{ payload: string }>>('select payload from webhook_events where store_id = ?', [shop.storeId]);
  return rows.map((r) => JSON.parse(r.payload));
}

/** A refusal on arrival: the spec's error, the limits' headers (it passed them), no record named, nothing stored. */
async function expectRefusedOnArrival(shop: Shop, res: TestResponse, code: string, details: Record<string, unknown>) {
  expectError(res, 422, code, expect.objectContaining(details));
  expect(res.body.error.details.label_creation_id).toBeUndefined();
  expect(res.headers.get('x-ratelimit-bucket')).toEqual(expect.any(String));
  expect(await creations(shop)).toEqual([]);
  expect(await webhookEvents(shop)).toEqual([]);
}

describe('a request that can never succeed is refused on arrival, with Prefer: wait=0 too', () => {
  const cases: Array<[string, (shop: Shop) => Promise<Record<string, unknown>>, string, Record<string, unknown>]> = [
    [
      'an invalid service/cod_value',
      async (shop) => ({
        order_id: (await anOrderOnPlatform(shop.domain, { metafields: { 'service.cod_value': 'lots' } })).orderId,
      }),
      'label_validation_failed',
      { issues: [{ code: 'cod_metafield_invalid', field: 'service/cod_value', raw: 'lots' }] },
    ],
    [
      'a cancelled order',
      async (shop) => ({
        order_id: (await anOrderOnPlatform(shop.domain, { cancelled_at: new Date(Date.now()).toISOString() })).orderId,
      }),
      'order_not_eligible',
      { reason: 'order_cancelled' },
    ],
    [
      'an order that does not exist',
      async () => ({ order_id: '99999999999' }),
      'order_not_eligible',
      { reason: 'order_not_found' },
    ],
    [
      'a pickup-point service for an order without a pickup point',
      async (shop) => {
        const order = await anOrderOnPlatform(shop.domain);
        return { order_id: order.orderId, carrier_account_id: await accountIdOf(shop), service_code: 'a_pickup' };
      },
      'label_validation_failed',
      { issues: [{ code: 'pickup_point_required' }] },
    ],
  ];

  it.each(cases)(
    '%s: 422, no lcr_, no webhook; its daily unit and queue place stay free',
    async (_, body, code, details) => {
      const shop = await aShop();
      const res = await create(shop, `refused-${shop.storeId}`, await body(shop), 'wait=0');
      await expectRefusedOnArrival(shop, res, code, details);
      // The store's one unit and one queue place are still there: a creation that can succeed takes them.
      const order = await anOrderOnPlatform(shop.domain);
      expect((await create(shop, `next-${order.orderId}`, { order_id: order.orderId }, 'wait=30')).status).toBe(201);
    },
  );

  it('no carrier account: carrier_selection_failed; once the store has one, the same key creates', async () => {
    const shop = await aShop({ account: false });
    const order = await anOrderOnPlatform(shop.domain);
    const key = `no-account-${order.orderId}`;
    const res = await create(shop, key, { order_id: order.orderId }, 'wait=0');
    await expectRefusedOnArrival(shop, res, 'carrier_selection_failed', { reason: 'no_carrier_accounts' });
    const account = await anAccountFor(shop);
    expect((await create(shop, key, { order_id: order.orderId }, 'wait=30')).status).toBe(201);
    expect(await ledger(account.id)).toHaveLength(1);
  });
});

describe('the order of precedence (decision 0120)', () => {
  it('while the worker is backlogged, the queue is full and the day is spent, a request that can never succeed answers 422 at once', async () => {
    const shop = await aShop();
    holdStore(shop.storeId);
    try {
      const order = await anOrderOnPlatform(shop.domain);
      const first = await create(shop, `held-${order.orderId}`, { order_id: order.orderId }, 'wait=1');
      expect([first.status, first.body.status, first.body.phase]).toEqual([202, 'processing', 'queued']);
      const invalid = await anOrderOnPlatform(shop.domain, { metafields: { 'service.cod_value': 'lots' } });
      const refused = await create(shop, `invalid-${invalid.orderId}`, { order_id: invalid.orderId }, 'wait=20');
      expectError(refused, 422, 'label_validation_failed', expect.objectContaining({ retry: 'after_fix' }));
      // A request that can succeed meets the limits the first creation holds: its queue place (and day's unit).
      const valid = await anOrderOnPlatform(shop.domain);
      const limited = await create(shop, `valid-${valid.orderId}`, { order_id: valid.orderId }, 'wait=20');
      expectError(limited, 429, 'rate_limited', expect.objectContaining({ bucket: 'write_shop_per_day' }));
      expect((await creations(shop)).map((c) => c.id)).toEqual([first.body.id]);
    } finally {
      releaseStore(shop.storeId);
    }
  });

  it('a key that holds its 8 waits answers a refusal as any other request: 422 at once', async () => {
    const shop = await aShop();
    const holds = createWriteLimits({ orm: own.app.orm, now: () => new Date() }).waitHolds;
    const taken = await Promise.all(Array.from({ length: 8 }, () => holds.hold(shop.keyId, 60)));
    try {
      const order = await anOrderOnPlatform(shop.domain, { cancelled_at: new Date(Date.now()).toISOString() });
      const res = await create(shop, `waits-${order.orderId}`, { order_id: order.orderId });
      await expectRefusedOnArrival(shop, res, 'order_not_eligible', { reason: 'order_cancelled' });
      // The holds are full indeed: a creation that passes answers as with wait=0.
      holdStore(shop.storeId);
      const valid = await anOrderOnPlatform(shop.domain);
      const early = await create(shop, `waits-${valid.orderId}`, { order_id: valid.orderId });
      expect([early.status, early.headers.get('preference-applied')]).toEqual([202, 'wait=0']);
    } finally {
      releaseStore(shop.storeId);
      for (const hold of taken) await hold?.release();
    }
  });

  it('a refusal binds no key: its repeat is checked again, another body included, and creates once the order is fixed', async () => {
    const shop = await aShop();
    const order = await anOrderOnPlatform(shop.domain, { metafields: { 'service.cod_value': 'lots' } });
    const key = `fix-${order.orderId}`;
    const issues = [{ code: 'cod_metafield_invalid', field: 'service/cod_value', raw: 'lots' }];
    await expectRefusedOnArrival(
      shop,
      await create(shop, key, { order_id: order.orderId }),
      'label_validation_failed',
      {
        issues,
      },
    );
    const other = await create(shop, key, { order_id: order.orderId, client_reference: 'another body' });
    await expectRefusedOnArrival(shop, other, 'label_validation_failed', { issues });
    await changeMetafields(shop, order, { 'service.cod_value': '120.00' });
    const made = await create(shop, key, { order_id: order.orderId }, 'wait=30');
    expect(made.status).toBe(201);
    expect(made.body.resolved.cod.decided).toEqual({ amount: '120.00', currency: 'CZK', source: 'order_metafield' });
    expect((await creations(shop, `?idempotency_key=${key}`)).map((c) => c.id)).toEqual([made.body.id]);
  });
});

describe('checked again in the worker', () => {
  it('a change between arrival and the worker ends the creation failed: its record, its webhook, its unit back', async () => {
    const shop = await aShop();
    holdStore(shop.storeId);
    const order = await anOrderOnPlatform(shop.domain);
    const early = await create(shop, `changed-${order.orderId}`, { order_id: order.orderId }, 'wait=0');
    expect([early.status, early.body.status]).toEqual([202, 'processing']);
    await changeMetafields(shop, order, { 'service.cod_value': 'lots' });
    releaseStore(shop.storeId);
    const failed = await own.app.request('GET', `/v1/label-creations/${early.body.id}`, {
      headers: { ...shop.auth, Prefer: 'wait=30' },
    });
    expect(failed.status).toBe(200);
    expect(failed.body).toMatchObject({
      status: 'failed',
      created: false,
      next_action: 'fix_and_retry',
      error: {
        code: 'label_validation_failed',
        details: { issues: [{ code: 'cod_metafield_invalid', field: 'service/cod_value', raw: 'lots' }] },
      },
    });
    expect((await creations(shop)).map((c) => [c.id, c.status])).toEqual([[early.body.id, 'failed']]);
    expect(await eventually(async () => ((await webhookEvents(shop)).length > 0 ? webhookEvents(shop) : null))).toEqual(
      [expect.objectContaining({ errorCode: 'label_validation_failed' })],
    );
    // The unit came back: the store's only one creates the next label.
    const next = await anOrderOnPlatform(shop.domain);
    expect((await create(shop, `after-${next.orderId}`, { order_id: next.orderId }, 'wait=30')).status).toBe(201);
  });

  it('a request still waiting when the worker refuses gets the creation’s error, naming its failed record', async () => {
    const shop = await aShop();
    holdStore(shop.storeId);
    const order = await anOrderOnPlatform(shop.domain);
    const key = `waiting-${order.orderId}`;
    const answer = create(shop, key, { order_id: order.orderId }, 'wait=30');
    const [claimed] = await eventually(async () => {
      const found = await creations(shop, `?idempotency_key=${key}`);
      return found.length > 0 ? found : null;
    });
    await changeMetafields(shop, order, { 'service.cod_value': 'lots' });
    releaseStore(shop.storeId);
    const res = await answer;
    expectError(res, 422, 'label_validation_failed', expect.objectContaining({ label_creation_id: claimed!.id }));
  });
  it('a circuit opened between arrival and the worker fails the creation without calling the carrier', async () => {
    const shop = await aShop();
    const accountId = await accountIdOf(shop);
    holdStore(shop.storeId);
    const order = await anOrderOnPlatform(shop.domain);
    const early = await create(shop, `circuit-${order.orderId}`, { order_id: order.orderId }, 'wait=0');
    expect([early.status, early.body.status]).toEqual([202, 'processing']);
    // Meanwhile other creations' calls on the account come back unclear, as many as open its circuit.
    for (let i = 0; i < SPEC_PROTECTION.circuitThreshold; i += 1) {
      await own.app.orm.em.fork().execute(
        `insert into carrier_outcomes (label_creation_id, store_id, carrier_account_id, outcome, reason, fingerprint,
           fulfillment_order_gids, recorded_at)
         values (?, ?, ?, 'unclear', 'timeout', ?, '{}', now())`,
        [newId('labelCreation'), shop.storeId, accountId, `fp-${i}`],
      );
    }
    releaseStore(shop.storeId);
    const failed = await own.app.request('GET', `/v1/label-creations/${early.body.id}`, {
      headers: { ...shop.auth, Prefer: 'wait=30' },
    });
    expect(failed.body).toMatchObject({
      status: 'failed',
      created: false,
      error: { code: 'carrier_unavailable', details: { reason: 'circuit_open', label_creation_id: early.body.id } },
    });
    const [row] = await own.app.orm.em
      .fork()
      .execute<Array<{ sent_at: Date | null; unit: string | null }>>(
        'select c.sent_at, u.state as unit from label_creations c left join creation_units u on u.unit_id = c.id where c.id = ?',
        [early.body.id],
      );
    expect(row).toEqual({ sent_at: null, unit: 'returned' });
    expect(await ledger(accountId)).toEqual([]);
  });
});

describe('the order in an answer given before the worker read it (decision 0122)', () => {
  it.each([
    ['order_id', (o: { orderId: string }) => ({ order_id: o.orderId })],
    ['order_name', (o: { name: string }) => ({ order_name: o.name.slice(1).toLowerCase() })],
  ])('named by %s: the 202 with wait=0 and a poll name it as the checks on arrival found it', async (_, body) => {
    const shop = await aShop();
    holdStore(shop.storeId);
    try {
      const order = await anOrderOnPlatform(shop.domain);
      const named = { id: order.orderGid, legacy_id: order.orderId, name: order.name };
      const res = await create(shop, `named-${order.orderId}`, body(order), 'wait=0');
      expect(res.status).toBe(202);
      expect(res.body).toMatchObject({ status: 'processing', phase: 'queued', order: named });
      const poll = await own.app.request('GET', `/v1/label-creations/${res.body.id}`, { headers: shop.auth });
      expect(poll.body).toMatchObject({ phase: 'queued', order: named });
      releaseStore(shop.storeId);
      const done = await own.app.request('GET', `/v1/label-creations/${res.body.id}`, {
        headers: { ...shop.auth, Prefer: 'wait=30' },
      });
      expect(done.body).toMatchObject({ status: 'succeeded', order: named });
    } finally {
      releaseStore(shop.storeId);
    }
  });
});

import { inTransaction } from '../../src/db/transaction';
import { acquireLocks } from '../../src/locks/fulfillment-order-locks';
import { findHolders } from '../../src/locks/holders';
import { holdForUnresolvedCreation, releaseUnresolvedCreationHold } from '../../src/locks/platform-holds';
import { PlatformUnavailableError } from '../../src/platform/port';
import { SandboxPlatformAdapter } from '../../src/platform/sandbox-adapter';
import { aCreationRecord, anOrderOnPlatform } from '../helpers/creation';
import { aPlatformId } from '../helpers/labels';
import { control, sandboxUrl } from '../helpers/sandbox';
import { aStoreWithKey } from '../helpers/stores';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { storesOnShopify } from '../helpers/shopify';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => app.close());

const platform = new SandboxPlatformAdapter({ baseUrl: sandboxUrl(), timeoutMs: 5_000 });
const deps = () => ({ orm: app.orm, platform });
const czk = (amount: string) => ({ amount, currency: 'CZK' });
const aFulfillmentOrder = () => ({
  id: aPlatformId(),
  line_items: [{ id: 1, quantity: 1, total_after_discounts: czk('499.00'), weight_grams: 1200 }],
});

/** A store with an order of `count` open fulfillment orders on the sandbox platform. */
async function aStoreAndOrder(count: number) {
  const shop = await aStoreWithKey(app.orm);
  const order = await anOrderOnPlatform(shop.domain, {
    fulfillment_orders: Array.from({ length: count }, aFulfillmentOrder),
  });
  return { shop, order };
}

/** A creation in needs_attention holding the lock rows of the given fulfillment orders. */
async function anUnresolvedCreation(storeId: string, orderGid: string, fulfillmentOrderGids: string[]) {
  const id = await aCreationRecord(app.orm, { storeId, orderGid, fulfillmentOrderGids, status: 'needs_attention' });
  const taken = await inTransaction(app.orm, (tx) =>
    acquireLocks(tx, {
      storeId,
      orderGid,
      labelCreationId: id,
      workflowId: `wf-${id}`,
      fulfillmentOrderGids,
      staleAfterMs: 60_000,
      expectedState: '',
    }),
  );
  expect(taken).toEqual({ acquired: true });
  return id;
}

const exportStarts = (domain: string, fo: string) =>
  control('POST', `/_control/stores/${domain}/fulfillment-orders/${fo}/hold`, { reason: 'automation export' });
const holdsOf = async (domain: string, orderId: string, gid: string) =>
  (await platform.listFulfillmentOrders(domain, orderId)).find((f) => f.id === gid)!.holds;

describe('holdForUnresolvedCreation / releaseUnresolvedCreationHold', () => {
  it('holds every fulfillment order under the creation ID, so an export is refused until the release', async () => {
    const { shop, order } = await aStoreAndOrder(2);
    const creationId = await anUnresolvedCreation(shop.storeId, order.orderGid, order.fulfillmentOrderGids);
    const input = { storeId: shop.storeId, creationId, fulfillmentOrderGids: order.fulfillmentOrderGids };

    expect(await holdForUnresolvedCreation(deps(), input)).toEqual(
      order.fulfillmentOrderGids.map((gid) => ({ fulfillmentOrderId: gid, outcome: 'done' })),
    );
    // A retried activity holds again: still one hold per fulfillment order.
    await holdForUnresolvedCreation(deps(), input);
    for (const gid of order.fulfillmentOrderGids) {
      const holds = await holdsOf(shop.domain, order.orderId, gid);
      expect(holds).toEqual([{ heldBy: 'app', handle: creationId, reason: expect.stringContaining(creationId) }]);
      expect(holds[0]!.reason).toMatch(/unresolved/);
    }
    for (const fo of order.fulfillmentOrderIds) {
      const refused = await exportStarts(shop.domain, fo);
      expect(refused).toMatchObject({ status: 409, body: { code: 'held_by_app' } });
      expect(refused.body.errors).toContain(creationId);
    }

    expect(await releaseUnresolvedCreationHold(deps(), input)).toEqual(
      order.fulfillmentOrderGids.map((gid) => ({ fulfillmentOrderId: gid, outcome: 'done' })),
    );
    await releaseUnresolvedCreationHold(deps(), input);
    for (const fo of order.fulfillmentOrderIds) expect((await exportStarts(shop.domain, fo)).status).toBe(200);
  });

  it('releases only its own hold: another creation holding the same fulfillment order keeps exports off', async () => {
    const { shop, order } = await aStoreAndOrder(1);
    const gids = order.fulfillmentOrderGids;
    const first = { storeId: shop.storeId, creationId: 'lcr_first0000000001', fulfillmentOrderGids: gids };
    const second = { storeId: shop.storeId, creationId: 'lcr_second000000001', fulfillmentOrderGids: gids };
    await holdForUnresolvedCreation(deps(), first);
    await holdForUnresolvedCreation(deps(), second);
    await releaseUnresolvedCreationHold(deps(), first);
    expect((await holdsOf(shop.domain, order.orderId, gids[0]!)).map((h) => h.heldBy === 'app' && h.handle)).toEqual([
      second.creationId,
    ]);
    expect((await exportStarts(shop.domain, order.fulfillmentOrderIds[0]!)).status).toBe(409);
    await releaseUnresolvedCreationHold(deps(), second);
    expect((await exportStarts(shop.domain, order.fulfillmentOrderIds[0]!)).status).toBe(200);
  });

  it('ignores a fulfillment order the platform no longer has; throws while the platform is unavailable', async () => {
    const { shop, order } = await aStoreAndOrder(1);
    const gone = `gid://shopify/FulfillmentOrder/${aPlatformId()}`;
    const input = {
      storeId: shop.storeId,
      creationId: 'lcr_unavailable00001',
      fulfillmentOrderGids: [gone, ...order.fulfillmentOrderGids],
    };
    await control('POST', `/_control/stores/${shop.domain}/faults`, { faults: [{ type: 'unavailable' }] });
    await expect(holdForUnresolvedCreation(deps(), input)).rejects.toBeInstanceOf(PlatformUnavailableError);
    expect(await holdForUnresolvedCreation(deps(), input)).toEqual([
      { fulfillmentOrderId: gone, outcome: 'not_found' },
      { fulfillmentOrderId: order.fulfillmentOrderGids[0], outcome: 'done' },
    ]);
    await control('POST', `/_control/stores/${shop.domain}/faults`, { faults: [{ type: 'throttled' }] });
    await expect(releaseUnresolvedCreationHold(deps(), input)).rejects.toMatchObject({
      name: 'PlatformUnavailableError',
      throttled: true,
    });
    expect(await releaseUnresolvedCreationHold(deps(), input)).toEqual([
      { fulfillmentOrderId: gone, outcome: 'not_found' },
      { fulfillmentOrderId: order.fulfillmentOrderGids[0], outcome: 'done' },
    ]);
    expect(await holdsOf(shop.domain, order.orderId, order.fulfillmentOrderGids[0]!)).toEqual([]);
  });

  it('does not call the platform for a creation without fulfillment orders', async () => {
    const { shop } = await aStoreAndOrder(1);
    await control('POST', `/_control/stores/${shop.domain}/faults`, { faults: [{ type: 'unavailable' }] });
    const input = { storeId: shop.storeId, creationId: 'lcr_nofulfillment001', fulfillmentOrderGids: [] };
    expect(await holdForUnresolvedCreation(deps(), input)).toEqual([]);
    expect(await releaseUnresolvedCreationHold(deps(), input)).toEqual([]);
    // The scripted fault is still waiting for the first platform call.
    await expect(platform.getOrder(shop.domain, '1')).rejects.toBeInstanceOf(PlatformUnavailableError);
  });
});

describe('findHolders with app holds', () => {
  it('reports export holds and creations, never the service’s own app holds', async () => {
    const { shop, order } = await aStoreAndOrder(4);
    const [appOnly, exportAndApp, unresolved, free] = order.fulfillmentOrderGids as [string, string, string, string];
    const creationId = await anUnresolvedCreation(shop.storeId, order.orderGid, [unresolved]);
    await holdForUnresolvedCreation(deps(), { storeId: shop.storeId, creationId, fulfillmentOrderGids: [unresolved] });
    await platform.holdFulfillmentOrders(shop.domain, [appOnly], { reason: 'label creation unresolved', handle: 'x' });
    await exportStarts(shop.domain, order.fulfillmentOrderIds[1]!);
    await platform.holdFulfillmentOrders(shop.domain, [exportAndApp], { reason: 'unresolved', handle: 'y' });

    const holders = await findHolders(app.orm.em.fork(), {
      storeId: shop.storeId,
      fulfillmentOrders: await platform.listFulfillmentOrders(shop.domain, order.orderId),
    });
    expect(holders).toEqual([
      { fulfillmentOrderGid: exportAndApp, heldBy: 'export', labelCreationId: null, workflowId: null },
      {
        fulfillmentOrderGid: unresolved,
        heldBy: 'creation',
        labelCreationId: creationId,
        workflowId: `wf-${creationId}`,
      },
    ]);

    // The order endpoint shows the same holders over HTTP.
    const res = await app.request('GET', `/v1/orders/${order.orderId}`, { headers: shop.auth });
    expect(res.status).toBe(200);
    const heldBy = new Map(
      (
        res.body.delivery.fulfillment_orders as Array<{ id: string; held_by: string | null; label_creation_id: string }>
      ).map((fo) => [fo.id, [fo.held_by, fo.label_creation_id]]),
    );
    expect(heldBy.get(appOnly)).toEqual([null, null]);
    // Shopify tells only that a hold is not this app's (decision 0705).
    expect(heldBy.get(exportAndApp)).toEqual([storesOnShopify() ? 'unknown' : 'export', null]);
    expect(heldBy.get(unresolved)).toEqual(['creation', creationId]);
    expect(heldBy.get(free)).toEqual([null, null]);
  });
});

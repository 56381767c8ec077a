import { randomToken } from '../../src/ids';
import { PlatformUnavailableError, type FulfillRequest } from '../../src/platform/port';
import { SandboxPlatformAdapter } from '../../src/platform/sandbox-adapter';
import { control, sandboxUrl } from '../helpers/sandbox';

const aDomain = () => `test-${randomToken(10).toLowerCase()}.myshopify.com`;
const czk = (amount: string) => ({ amount, currency: 'CZK' });
const foGid = (id: string) => `gid://shopify/FulfillmentOrder/${id}`;

async function aStoreWithOrder(fulfillmentOrders: Array<Record<string, unknown>> = [{ id: 501 }, { id: 502 }]) {
  const domain = aDomain();
  const res = await control('PUT', `/_control/stores/${domain}/orders`, {
    id: 1001,
    name: '#1001',
    total_price: czk('499.00'),
    fulfillment_orders: fulfillmentOrders.map((fo) => ({
      line_items: [{ id: 1, quantity: 1, total_after_discounts: czk('499.00') }],
      ...fo,
    })),
  });
  if (res.status !== 200) throw new Error(`sandbox refused the order: ${JSON.stringify(res.body)}`);
  return domain;
}

const exportStarts = (domain: string, fo: string) =>
  control('POST', `/_control/stores/${domain}/fulfillment-orders/${fo}/hold`, { reason: 'automation export' });
const exportEnds = (domain: string, fo: string) =>
  control('POST', `/_control/stores/${domain}/fulfillment-orders/${fo}/release`);
const fulfilment = (ids: string[]): FulfillRequest => ({
  fulfillmentOrderIds: ids,
  trackingNumber: 'Z1',
  trackingUrl: null,
  carrierName: 'Carrier A',
  notifyCustomer: false,
});

describe('store-platform sandbox: app holds on fulfillment orders', () => {
  const platform = new SandboxPlatformAdapter({ baseUrl: sandboxUrl(), timeoutMs: 5_000 });
  const holdsOf = async (domain: string, legacyId: string) =>
    (await platform.listFulfillmentOrders(domain, '1001')).find((f) => f.legacyId === legacyId)!.holds;

  it('holds by handle idempotently; handles coexist and a release removes only its own', async () => {
    const domain = await aStoreWithOrder();
    const ids = [foGid('501'), '502'];
    expect(await platform.holdFulfillmentOrders(domain, ids, { reason: 'first', handle: 'lcr_a' })).toEqual([
      { fulfillmentOrderId: foGid('501'), outcome: 'done' },
      { fulfillmentOrderId: '502', outcome: 'done' },
    ]);
    await platform.holdFulfillmentOrders(domain, ids, { reason: 'again', handle: 'lcr_a' });
    expect(await holdsOf(domain, '501')).toEqual([{ heldBy: 'app', reason: 'again', handle: 'lcr_a' }]);

    await platform.holdFulfillmentOrders(domain, ['501'], { reason: 'other', handle: 'lcr_b' });
    expect(await holdsOf(domain, '501')).toEqual([
      { heldBy: 'app', reason: 'again', handle: 'lcr_a' },
      { heldBy: 'app', reason: 'other', handle: 'lcr_b' },
    ]);

    expect(await platform.releaseFulfillmentOrderHolds(domain, ids, 'lcr_a')).toEqual([
      { fulfillmentOrderId: foGid('501'), outcome: 'done' },
      { fulfillmentOrderId: '502', outcome: 'done' },
    ]);
    expect(await holdsOf(domain, '501')).toEqual([{ heldBy: 'app', reason: 'other', handle: 'lcr_b' }]);
    expect(await holdsOf(domain, '502')).toEqual([]);
    // Releasing a hold that is gone succeeds.
    expect(await platform.releaseFulfillmentOrderHolds(domain, ids, 'lcr_a')).toEqual([
      { fulfillmentOrderId: foGid('501'), outcome: 'done' },
      { fulfillmentOrderId: '502', outcome: 'done' },
    ]);
    expect(await holdsOf(domain, '501')).toEqual([{ heldBy: 'app', reason: 'other', handle: 'lcr_b' }]);
  });

  it('an export cannot start (409 held_by_app) while any app hold is on it, and can after the last release', async () => {
    const domain = await aStoreWithOrder();
    await platform.holdFulfillmentOrders(domain, ['501'], {
      reason: 'label creation lcr_a is unresolved',
      handle: 'a',
    });
    await platform.holdFulfillmentOrders(domain, ['501'], {
      reason: 'label creation lcr_b is unresolved',
      handle: 'b',
    });

    const refused = await exportStarts(domain, '501');
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ code: 'held_by_app' });
    expect(refused.body.errors).toMatch(/on hold by an app \(label creation lcr_a is unresolved\)/);
    expect((await exportStarts(domain, '502')).status).toBe(200);

    await platform.releaseFulfillmentOrderHolds(domain, ['501'], 'a');
    expect((await exportStarts(domain, '501')).status).toBe(409);
    await platform.releaseFulfillmentOrderHolds(domain, ['501'], 'b');
    const started = await exportStarts(domain, '501');
    expect(started.status).toBe(200);
    expect(started.body.fulfillment_order.holds).toEqual([{ held_by: 'export', reason: 'automation export' }]);
  });

  it('an app hold joins a running export; ending the export leaves the app hold', async () => {
    const domain = await aStoreWithOrder();
    await exportStarts(domain, '501');
    await platform.holdFulfillmentOrders(domain, ['501'], { reason: 'unresolved', handle: 'lcr_a' });
    expect(await holdsOf(domain, '501')).toEqual([
      { heldBy: 'export', reason: 'automation export' },
      { heldBy: 'app', reason: 'unresolved', handle: 'lcr_a' },
    ]);
    await exportEnds(domain, '501');
    expect(await holdsOf(domain, '501')).toEqual([{ heldBy: 'app', reason: 'unresolved', handle: 'lcr_a' }]);
  });

  it('refuses to fulfil while an app hold is on it; the owner fulfils after releasing', async () => {
    const domain = await aStoreWithOrder();
    await platform.holdFulfillmentOrders(domain, ['501'], { reason: 'unresolved', handle: 'lcr_a' });
    await expect(platform.fulfill(domain, fulfilment(['501']))).rejects.toMatchObject({
      name: 'PlatformRequestError',
      code: 'on_hold',
    });
    await platform.releaseFulfillmentOrderHolds(domain, ['501'], 'lcr_a');
    await expect(platform.fulfill(domain, fulfilment(['501']))).resolves.toMatchObject({
      fulfillmentOrderIds: [foGid('501')],
    });
  });

  it('reports unknown fulfillment orders as not_found and closed or cancelled ones as closed', async () => {
    const domain = await aStoreWithOrder([
      { id: 501 },
      { id: 502, status: 'closed' },
      { id: 503, status: 'cancelled' },
    ]);
    expect(
      await platform.holdFulfillmentOrders(domain, ['501', '502', '503', '999'], { reason: 'r', handle: 'lcr_a' }),
    ).toEqual([
      { fulfillmentOrderId: '501', outcome: 'done' },
      { fulfillmentOrderId: '502', outcome: 'closed' },
      { fulfillmentOrderId: '503', outcome: 'closed' },
      { fulfillmentOrderId: '999', outcome: 'not_found' },
    ]);
    expect(await holdsOf(domain, '502')).toEqual([]);
    expect(await platform.releaseFulfillmentOrderHolds(domain, ['501', '502', '999'], 'lcr_a')).toEqual([
      { fulfillmentOrderId: '501', outcome: 'done' },
      { fulfillmentOrderId: '502', outcome: 'done' },
      { fulfillmentOrderId: '999', outcome: 'not_found' },
    ]);
  });

  it('scripted platform faults apply to hold and release like other API calls', async () => {
    const domain = await aStoreWithOrder();
    await control('POST', `/_control/stores/${domain}/faults`, {
      faults: [{ type: 'throttled', retry_after_seconds: 4 }, { type: 'unavailable' }, { type: 'unauthorized' }],
    });
    const hold = () => platform.holdFulfillmentOrders(domain, ['501'], { reason: 'r', handle: 'h' });
    await expect(hold()).rejects.toMatchObject({
      name: 'PlatformUnavailableError',
      throttled: true,
      retryAfterSeconds: 4,
    });
    await expect(hold()).rejects.toMatchObject({ name: 'PlatformUnavailableError', throttled: false });
    await expect(hold()).rejects.toMatchObject({ name: 'PlatformUnavailableError', throttled: false });
    expect(await holdsOf(domain, '501')).toEqual([]);
    await hold();
    await control('POST', `/_control/stores/${domain}/faults`, { faults: [{ type: 'unavailable' }] });
    await expect(platform.releaseFulfillmentOrderHolds(domain, ['501'], 'h')).rejects.toBeInstanceOf(
      PlatformUnavailableError,
    );
    expect(await holdsOf(domain, '501')).toEqual([{ heldBy: 'app', reason: 'r', handle: 'h' }]);
    await platform.releaseFulfillmentOrderHolds(domain, ['501'], 'h');
    expect(await holdsOf(domain, '501')).toEqual([]);
  });

  it('answers the raw API: 400 for a hold without a handle, 404 for an unknown fulfillment order', async () => {
    const domain = await aStoreWithOrder();
    const api = `/platform/stores/${domain}/fulfillment-orders`;
    expect((await control('POST', `${api}/501/holds`, { reason: 'r' })).status).toBe(400);
    expect((await control('POST', `${api}/999/holds`, { reason: 'r', handle: 'h' })).status).toBe(404);
    expect((await control('DELETE', `${api}/999/holds/h`)).status).toBe(404);
    const held = await control('POST', `${api}/${encodeURIComponent(foGid('501'))}/holds`, {
      reason: 'r',
      handle: 'h',
    });
    expect(held).toMatchObject({
      status: 200,
      body: { fulfillment_order: { id: foGid('501'), holds: [{ held_by: 'app', reason: 'r', handle: 'h' }] } },
    });
    expect(await control('DELETE', `${api}/501/holds/h`)).toMatchObject({
      status: 200,
      body: { fulfillment_order: { holds: [] } },
    });
  });
});

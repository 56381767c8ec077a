import { markSent } from '../../src/creation/transitions';
import { inTransaction } from '../../src/db/transaction';
import { createCreationUnits } from '../../src/limits/creation-units';
import { acquireLocks } from '../../src/locks/fulfillment-order-locks';
import { aCreationRecord } from '../helpers/creation';
import { aStoreWithKey } from '../helpers/stores';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { MINUTE, secondAligned } from '../helpers/time';

// `markSent` is the fence before the one carrier call (docs/decisions/1010-prepare-in-the-carrier-call.md): the creation
// is marked sent, and its daily unit confirmed (spec "Limits"), only while it is `processing`, not marked yet, and
// holds every lock on its fulfillment orders. The first step relies on its answer instead of reading the record first.
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => app.close());

const ORDER = 'gid://shopify/Order/1';
const fo = (n: number) => `gid://shopify/FulfillmentOrder/${n}`;

async function aLockedCreation(gids: string[], lockOnly = gids) {
  const shop = await aStoreWithKey(app.orm);
  const id = await aCreationRecord(app.orm, {
    storeId: shop.storeId,
    orderGid: ORDER,
    fulfillmentOrderGids: gids,
    status: 'processing',
  });
  const locked = await inTransaction(app.orm, (tx) =>
    acquireLocks(tx, {
      storeId: shop.storeId,
      orderGid: ORDER,
      labelCreationId: id,
      workflowId: `wf-${id}`,
      fulfillmentOrderGids: lockOnly,
      staleAfterMs: 60_000,
      expectedState: '',
    }),
  );
  expect(locked.acquired).toBe(true);
  const units = createCreationUnits({ orm: app.orm, now: () => new Date(), leaseMs: 600_000 });
  await units.reserve({ storeId: shop.storeId, unitId: id, createNew: false });
  return { storeId: shop.storeId, id, units };
}

async function stateOf(id: string) {
  const [row] = await app.orm.em
    .fork()
    .execute<Array<{ sent_at: string | null; send_plan: unknown; phase: string | null; unit: string | null }>>(
      `select c.sent_at, c.send_plan, c.phase, (select state from creation_units where unit_id = c.id) as unit
         from label_creations c where c.id = ?`,
      [id],
    );
  return row!;
}

describe('markSent, the fence before the carrier call', () => {
  it('marks a processing creation holding its locks once: sent_at, the plan and the confirmed unit together', async () => {
    const { storeId, id } = await aLockedCreation([fo(1), fo(2)]);
    const sentAt = new Date(secondAligned(Date.now()));
    const plan = { decision: { kind: 'create' } };
    expect(await markSent(app.orm.em.fork(), { id, storeId, fulfillmentOrderGids: [fo(1), fo(2)], sentAt, plan })).toBe(
      true,
    );
    const marked = await stateOf(id);
    expect(marked).toMatchObject({ send_plan: plan, phase: 'sending_to_carrier', unit: 'confirmed' });
    expect(new Date(marked.sent_at!).toISOString()).toBe(sentAt.toISOString());
    // A second mark (a late duplicate of the attempt) marks nothing and keeps the first moment and plan.
    const later = new Date(sentAt.getTime() + 5 * MINUTE);
    expect(
      await markSent(app.orm.em.fork(), { id, storeId, fulfillmentOrderGids: [fo(1)], sentAt: later, plan: {} }),
    ).toBe(false);
    const again = await stateOf(id);
    expect(new Date(again.sent_at!).toISOString()).toBe(sentAt.toISOString());
    expect(again.send_plan).toEqual(plan);
  });

  it('marks nothing and confirms nothing when a lock is not held: the carrier is never called', async () => {
    // The creation holds fo(1) only (another took over fo(2), or it was released).
    const { storeId, id } = await aLockedCreation([fo(1), fo(2)], [fo(1)]);
    const sentAt = new Date();
    expect(await markSent(app.orm.em.fork(), { id, storeId, fulfillmentOrderGids: [fo(1), fo(2)], sentAt })).toBe(
      false,
    );
    expect(await stateOf(id)).toMatchObject({ sent_at: null, send_plan: null, unit: 'reserved' });
  });

  it('marks nothing and confirms nothing once the creation left processing', async () => {
    const { storeId, id, units } = await aLockedCreation([fo(3)]);
    await app.orm.em.fork().execute(`update label_creations set status = 'failed' where id = ?`, [id]);
    expect(await markSent(app.orm.em.fork(), { id, storeId, fulfillmentOrderGids: [fo(3)], sentAt: new Date() })).toBe(
      false,
    );
    expect(await stateOf(id)).toMatchObject({ sent_at: null, unit: 'reserved' });
    // Its unit can still be given back, as a creation that never called the carrier.
    expect(await units.returnUnit(id)).toBe(true);
  });
});

import { FakeFeed, startFakeFeedServer } from '../../src/carriers/packeta/feed/fake-feed';
import { noCounts } from '../../src/carriers/packeta/feed/diff';
import { FeedImportError } from '../../src/carriers/packeta/feed/import';
import { openOrm, type Orm } from '../../src/db/orm';
import { packetaPointsStore, type PacketaPointsStore } from '../../src/db/packeta-pickup-points';
import { aDatabaseOfItsOwn } from '../helpers/own-database';
import { importFeedFrom } from '../helpers/packeta-feed';
import { sandboxUrl } from '../helpers/sandbox';
import { FAKE_BRANCHES, FAKE_POINTS } from '../../src/carriers/packeta/fake/network';
import { packetaPickupNetwork } from '../../src/carriers/packeta/feed/network';
import type { CarrierAccountSettings } from '../../src/carriers/port';

// Decision 1220: the import of Packeta's pickup-point feed into PostgreSQL, against the fake feed served over HTTP the
// way Packeta serves it. The points table holds one network for the whole service, so this file has a database of its
// own and empties it before each test.

const KEY = 'abcdef0123456789';
let db: Awaited<ReturnType<typeof aDatabaseOfItsOwn>>;
let orm: Orm;
let store: PacketaPointsStore;
let feed: FakeFeed;
let server: Awaited<ReturnType<typeof startFakeFeedServer>>;

beforeAll(async () => {
  db = await aDatabaseOfItsOwn();
  orm = await openOrm(db.url);
  store = packetaPointsStore(orm.em);
});
afterAll(async () => {
  await orm?.close();
  await db?.drop();
});
beforeEach(async () => {
  await orm.em.fork().execute('truncate packeta_pickup_points, packeta_feed_files');
  feed = new FakeFeed(new Set([KEY]));
  server = await startFakeFeedServer(feed);
});
afterEach(async () => server.close());

const runImport = (options: { apiKey?: string; maxVanishedShare?: number; baseUrl?: string } = {}) =>
  importFeedFrom(store, options.baseUrl ?? server.baseUrl, options.apiKey ?? KEY, options.maxVanishedShare ?? 0.5);

/** A point of Packeta's branch or box feed as it writes one: every value a string. */
const aPoint = (id: number, overrides: Record<string, unknown> = {}) => ({
  id: String(id),
  name: `Praha ${id}, Dlouhá ${id}`,
  place: 'Trafika',
  street: `Dlouhá ${id}`,
  city: 'Praha',
  zip: '110 00',
  country: 'cz',
  currency: 'CZK',
  status: { statusId: '1', description: 'In operation' },
  displayFrontend: '1',
  latitude: (50.08 + id / 10_000).toFixed(5),
  longitude: '14.43000',
  maxWeight: '10',
  photos: [],
  openingHours: { regular: { monday: '08:00–18:00' }, exceptions: {} },
  ...overrides,
});
const aBoxPoint = (id: number) => aPoint(id, { type: 'zbox', place: 'Z-BOX', codAllowed: '1' });

const publish = (branches: unknown[], boxes: unknown[] = [aBoxPoint(900)], at = new Date()) => {
  feed.publishPoints('branch', branches, at);
  feed.publishPoints('box', boxes, at);
};

interface Row {
  id: string;
  name: string;
  in_feed: boolean;
  feed_file: string;
  vanished_at: string | null;
  changed_at: string;
}
const rows = async () =>
  orm.em
    .fork()
    .execute<Row[]>(
      'select id::text as id, name, in_feed, feed_file, vanished_at, changed_at from packeta_pickup_points order by id',
    );
const time = (value: string) => new Date(value).getTime();
const fileStates = async () => new Map((await store.fileStates()).map((s) => [s.feedFile, s]));

describe('importing the feed', () => {
  it('stores new points of both files, with each file’s version', async () => {
    publish([aPoint(1), aPoint(2), aPoint(3)], [aBoxPoint(900)]);
    const result = await runImport();
    expect(result).toEqual([
      expect.objectContaining({
        file: 'branch',
        outcome: 'applied',
        points: 3,
        counts: expect.objectContaining({ new: 3 }),
      }),
      expect.objectContaining({
        file: 'box',
        outcome: 'applied',
        points: 1,
        counts: expect.objectContaining({ new: 1 }),
      }),
    ]);
    expect((await rows()).map((r) => [r.id, r.feed_file, r.in_feed])).toEqual([
      ['1', 'branch', true],
      ['2', 'branch', true],
      ['3', 'branch', true],
      ['900', 'box', true],
    ]);
    const branch = (await fileStates()).get('branch')!;
    expect(branch).toMatchObject({ points: 3, failuresInARow: 0, lastError: null, etag: expect.stringMatching(/^"/) });
    expect(branch.digest).toMatch(/^[\w-]{43}$/);
    expect(branch.checkedAt).toEqual(branch.changedAt);
    // The index holds each point on the Earth's surface where the feed put it.
    const [located] = await orm.em
      .fork()
      .execute<Array<{ km: number }>>(
        `select earth_distance(location::earth, ll_to_earth(50.0801, 14.43)) / 1000 as km from packeta_pickup_points where id = 1`,
      );
    expect(located!.km).toBeLessThan(0.01);
  });

  it('asks again with the validators it kept: a 304 writes nothing but the time of the check', async () => {
    publish([aPoint(1), aPoint(2)]);
    await runImport();
    const before = await rows();
    const checked = (await fileStates()).get('branch')!.checkedAt!;
    feed.requests.length = 0;
    const again = await runImport();
    expect(again.map((f) => [f.file, f.outcome, f.points])).toEqual([
      ['branch', 'not_modified', null],
      ['box', 'not_modified', null],
    ]);
    expect(feed.requests.map((r) => [r.file, r.conditional, r.status])).toEqual([
      ['branch', true, 304],
      ['box', true, 304],
    ]);
    expect(await rows()).toEqual(before);
    const branch = (await fileStates()).get('branch')!;
    expect(branch.checkedAt!.getTime()).toBeGreaterThan(checked.getTime());
    expect(branch.changedAt).toEqual(checked);
    expect(branch.points).toBe(2);
  });

  it('tells an unchanged file by its digest when the server sends no validators, and reads no point of it', async () => {
    feed.validators = false;
    publish([aPoint(1), aPoint(2)]);
    await runImport();
    const before = await rows();
    const changed = (await fileStates()).get('branch')!.changedAt;
    // Exported again: the same body, a new version as far as the server can tell.
    publish([aPoint(1), aPoint(2)]);
    const again = await runImport();
    expect(again.map((f) => [f.file, f.outcome, f.points, f.counts])).toEqual([
      ['branch', 'unchanged', 2, noCounts()],
      ['box', 'unchanged', 1, noCounts()],
    ]);
    expect(feed.requests.every((r) => !r.conditional && r.status === 200)).toBe(true);
    expect(await rows()).toEqual(before);
    expect((await fileStates()).get('branch')!.changedAt).toEqual(changed);

    // Another text of the same points (other whitespace): read whole, and still nothing written.
    feed.publish('branch', JSON.stringify([aPoint(1), aPoint(2)], null, 2), new Date());
    const reread = await runImport();
    expect(reread[0]).toMatchObject({ outcome: 'unchanged', points: 2, counts: { unchanged: 2, new: 0, changed: 0 } });
    expect(await rows()).toEqual(before);
  });

  it('rewrites changed points only, marks vanished points unavailable without deleting them, and takes them back', async () => {
    publish([aPoint(1), aPoint(2), aPoint(3)]);
    await runImport();
    const first = await rows();
    publish([aPoint(1, { name: 'Praha 1, renamed' }), aPoint(2)]);
    const second = await runImport();
    expect(second[0]).toMatchObject({
      outcome: 'applied',
      points: 2,
      counts: { new: 0, changed: 1, unchanged: 1, vanished: 1, returned: 0, refused: 0 },
    });
    const after = await rows();
    expect(after.map((r) => [r.id, r.name, r.in_feed])).toEqual([
      ['1', 'Praha 1, renamed', true],
      ['2', 'Praha 2, Dlouhá 2', true],
      ['3', 'Praha 3, Dlouhá 3', false],
      ['900', 'Praha 900, Dlouhá 900', true],
    ]);
    expect(time(after[0]!.changed_at)).toBeGreaterThan(time(first[0]!.changed_at));
    expect(after[1]!.changed_at).toEqual(first[1]!.changed_at);
    expect(after[2]!.vanished_at).not.toBeNull();

    publish([aPoint(1, { name: 'Praha 1, renamed' }), aPoint(2), aPoint(3)]);
    const third = await runImport();
    expect(third[0]!.counts).toMatchObject({ returned: 1, unchanged: 2, vanished: 0 });
    expect((await rows())[2]).toMatchObject({ id: '3', in_feed: true, vanished_at: null });
  });

  it('keeps a point that moves from the box file to the branch file', async () => {
    publish([aPoint(1)], [aBoxPoint(900), aBoxPoint(901)]);
    await runImport();
    publish([aPoint(1), aPoint(901)], [aBoxPoint(900)]);
    const result = await runImport();
    expect(result.map((f) => f.counts.vanished)).toEqual([0, 0]);
    expect((await rows()).find((r) => r.id === '901')).toMatchObject({ feed_file: 'branch', in_feed: true });
  });

  it('keeps a listed point it cannot read as it was, and counts it refused', async () => {
    publish([aPoint(1), aPoint(2)]);
    await runImport();
    publish([aPoint(1), aPoint(2, { latitude: '' }), { name: 'no id' }]);
    const [branch] = await runImport();
    expect(branch!.counts).toMatchObject({ unchanged: 1, refused: 2, vanished: 0 });
    expect((await rows()).map((r) => [r.id, r.in_feed])).toEqual([
      ['1', true],
      ['2', true],
      ['900', true],
    ]);
  });
});

describe("the sandbox's feed (npm run dev -- --packeta)", () => {
  it('is the fake Packeta’s network: imported once, then answered 304', async () => {
    const baseUrl = `${sandboxUrl()}/packeta-feed/v5`;
    const first = await runImport({ baseUrl, apiKey: 'sandboxfeedkey' });
    expect(first.map((f) => f.outcome)).toEqual(['applied', 'applied']);
    expect(first.reduce((sum, f) => sum + f.points!, 0)).toBe(FAKE_BRANCHES.length);
    // The points the fake takes packets to are offered; the ones that ended their cooperation are kept, not offered.
    const network = packetaPickupNetwork(store);
    const account = { carrierCode: 'carrier_a', accountId: 'ca_demo_a' } as CarrierAccountSettings;
    expect(await network.findPickupPoint(account, FAKE_POINTS.prahaPoint)).toMatchObject({ type: 'pickup_point' });
    expect(await network.findPickupPoint(account, FAKE_POINTS.prahaBoxWithCod)).toMatchObject({ type: 'locker' });
    expect(await network.findPickupPoint(account, FAKE_POINTS.prahaEnded)).toBeNull();
    expect(first.every((f) => f.counts.refused === 0 && f.warnings === 0)).toBe(true);
    const again = await runImport({ baseUrl, apiKey: 'sandboxfeedkey' });
    expect(again.map((f) => f.outcome)).toEqual(['not_modified', 'not_modified']);
  });
});

describe('when the feed fails', () => {
  it('keeps every point offered after a download that breaks off, records it, and recovers on the next run', async () => {
    publish([aPoint(1), aPoint(2), aPoint(3)]);
    await runImport();
    feed.validators = false;
    publish(Array.from({ length: 400 }, (_, i) => aPoint(i + 1)));
    feed.failNext({ kind: 'cut' });
    const failed = await runImport().catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(FeedImportError);
    expect(failed).toMatchObject({ retryable: true, message: expect.stringMatching(/^branch\.json: /) });
    // The box file imported on its own.
    expect((failed as FeedImportError).imported.map((f) => f.file)).toEqual(['box']);
    expect((await rows()).every((r) => r.in_feed)).toBe(true);
    expect((await fileStates()).get('branch')).toMatchObject({ failuresInARow: 1, lastError: expect.any(String) });

    const recovered = await runImport();
    expect(recovered[0]).toMatchObject({ outcome: 'applied', points: 400 });
    expect((await fileStates()).get('branch')).toMatchObject({ failuresInARow: 0, lastError: null, points: 400 });
  });

  it.each([
    ['a server error', { kind: 'status', status: 503 } as const, true, /HTTP 503/],
    ['a key the server refuses', null, false, /HTTP 401 \(is PACKETA_FEED_API_KEY right\?\)/],
  ])('fails on %s, recorded on each file, the key never in the message', async (_name, fault, retryable, message) => {
    publish([aPoint(1)]);
    if (fault) feed.failNext(fault, fault);
    const error = await runImport(fault ? {} : { apiKey: 'wrongkey00000000' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FeedImportError);
    expect(error).toMatchObject({ retryable, message: expect.stringMatching(message) });
    expect((error as Error).message).not.toContain(KEY);
    expect((error as Error).message).not.toContain('wrongkey');
    const states = await fileStates();
    expect([...states.values()].map((s) => [s.feedFile, s.failuresInARow, s.checkedAt])).toEqual([
      ['box', 1, null],
      ['branch', 1, null],
    ]);
    expect(await store.everImported()).toBe(false);
  });

  it('does not believe a reading that would remove too large a share of the network, nor an empty one', async () => {
    publish(Array.from({ length: 10 }, (_, i) => aPoint(i + 1)));
    await runImport();
    feed.validators = false;
    publish(Array.from({ length: 4 }, (_, i) => aPoint(i + 1)));
    const shrunk = await runImport().catch((e: unknown) => e);
    expect(shrunk).toMatchObject({ retryable: false, message: expect.stringMatching(/remove 6 of 10 points/) });
    publish([]);
    const empty = await runImport().catch((e: unknown) => e);
    expect(empty).toMatchObject({ retryable: false, message: expect.stringMatching(/lists no points/) });
    expect((await rows()).filter((r) => r.in_feed)).toHaveLength(11);
    expect((await fileStates()).get('branch')).toMatchObject({ failuresInARow: 2, points: 10 });
    // An operator who knows the network did shrink lets one reading through with a larger share.
    publish(Array.from({ length: 4 }, (_, i) => aPoint(i + 1)));
    const allowed = await runImport({ maxVanishedShare: 1 });
    expect(allowed[0]!.counts.vanished).toBe(6);
  });
});

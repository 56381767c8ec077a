import { ScheduleNotFoundError, WorkflowFailedError } from '@temporalio/client';
import { FakeFeed, startFakeFeedServer } from '../../src/carriers/packeta/feed/fake-feed';
import { packetaPointsStore } from '../../src/db/packeta-pickup-points';
import { ensurePacketaFeedSchedule, PACKETA_FEED_SCHEDULE_ID } from '../../src/temporal/schedules';
import { FEED_REFUSED } from '../../activities/pickup-feed';
import { aDatabaseOfItsOwn } from '../helpers/own-database';
import { startAppWithOwnWorker, type AppWithOwnWorker } from '../helpers/own-worker';
import { labelctlJsonWith, labelctlWith } from '../helpers/labelctl';
import { sampleValue } from '../helpers/prometheus';
import { eventually } from '../helpers/sandbox';

// Decision 1220: the feed is imported by a Temporal Schedule (`packeta-pickup-feed`) that the worker creates at boot
// when PACKETA_FEED_API_KEY is set. Here a worker of this file's own, on its own task queue and database, imports the
// fake feed; the Schedule is this file's alone on the run's Temporal server.

const KEY = 'abcdef0123456789';
const keys = new Set([KEY]);
const feed = new FakeFeed(keys);
let server: Awaited<ReturnType<typeof startFakeFeedServer>>;
let db: Awaited<ReturnType<typeof aDatabaseOfItsOwn>>;
let own: AppWithOwnWorker;

const aPoint = (id: number) => ({
  id: String(id),
  name: `Brno ${id}`,
  place: 'Trafika',
  street: `Masarykova ${id}`,
  city: 'Brno',
  zip: '602 00',
  country: 'cz',
  status: { statusId: '1' },
  displayFrontend: '1',
  latitude: '49.19510',
  longitude: (16.6 + id / 10_000).toFixed(5),
  openingHours: { regular: {} },
});

beforeAll(async () => {
  feed.publishPoints('branch', [aPoint(1), aPoint(2)], new Date());
  feed.publishPoints('box', [{ ...aPoint(3), type: 'zbox' }], new Date());
  server = await startFakeFeedServer(feed);
  db = await aDatabaseOfItsOwn();
  labelctlHere.DATABASE_URL = db.url;
  own = await startAppWithOwnWorker({
    taskQueue: `packeta-feed-${process.pid}`,
    env: {
      DATABASE_URL: db.url,
      PACKETA_FEED_API_KEY: KEY,
      PACKETA_FEED_URL: server.baseUrl,
      PACKETA_FEED_INTERVAL: '1h',
      // A network of two points loses half of it when one goes.
      PACKETA_FEED_MAX_VANISHED_SHARE: '0.5',
    },
  });
});
afterAll(async () => {
  await own?.app.temporal.schedule
    .getHandle(PACKETA_FEED_SCHEDULE_ID)
    .delete()
    .catch(() => undefined);
  await own?.stop();
  await db?.drop();
  await server?.close();
});

const schedule = () => own.app.temporal.schedule.getHandle(PACKETA_FEED_SCHEDULE_ID);
const files = () => packetaPointsStore(own.app.orm.em).fileStates();
const points = () =>
  own.app.orm.em
    .fork()
    .execute<Array<{ id: string }>>('select id::text as id from packeta_pickup_points where in_feed order by id');

/** The API's gauges of the feed, read from this file's database when scraped. */
async function feedGauges(file: 'branch' | 'box') {
  const res = await own.app.request('GET', '/metrics');
  expect(res.status).toBe(200);
  const gauge = (name: string) => sampleValue(res.text, `shipping_label_packeta_feed_${name}`, { file });
  return { age: gauge('age_seconds'), failures: gauge('failures_in_a_row'), points: gauge('points') };
}

/** `labelctl` on this file's database. */
const labelctlHere = { DATABASE_URL: '' };

/** The result of the Schedule's latest run, once it has one this many runs in. */
async function latestRun(runs: number) {
  const description = await eventually(
    async () => {
      const d = await schedule().describe();
      return d.info.recentActions.length >= runs ? d : null;
    },
    300,
    100,
  );
  const workflowId = description.info.recentActions.at(-1)!.action.workflow.workflowId;
  return own.app.temporal.workflow.getHandle(workflowId);
}

it('is created with the configured interval, runs at once, and imports the feed on the worker', async () => {
  await ensurePacketaFeedSchedule(own.app.temporal, own.app.config);
  const description = await schedule().describe();
  expect(description.spec.intervals).toMatchObject([{ every: 3_600_000 }]);
  expect(description.action).toMatchObject({
    type: 'startWorkflow',
    workflowType: 'importPacketaFeedWorkflow',
    taskQueue: `packeta-feed-${process.pid}`,
  });
  expect(description.policies.overlap).toBe('SKIP');
  const run = await latestRun(1);
  expect(await run.result()).toMatchObject({
    configured: true,
    files: [
      { file: 'branch', outcome: 'applied', points: 2 },
      { file: 'box', outcome: 'applied', points: 1 },
    ],
  });
  expect((await points()).map((p) => p.id)).toEqual(['1', '2', '3']);
  // The API key is in no workflow's history (the activity reads it from the worker's configuration).
  const history = JSON.stringify(await run.fetchHistory());
  expect(history).not.toContain(KEY);

  // What an operator watches: the API's gauges and labelctl (docs/operators.md, "Packeta pickup-point feed").
  const branch = await feedGauges('branch');
  expect(branch).toMatchObject({ failures: 0, points: 2 });
  expect(branch.age).toBeGreaterThanOrEqual(0);
  expect(branch.age).toBeLessThan(3600);
  const status = await labelctlJsonWith(labelctlHere, 'pickup-points', 'packeta-feed');
  expect(status).toMatchObject({
    files: [
      { file: 'box', points: 1, failures_in_a_row: 0 },
      { file: 'branch', points: 2, failures_in_a_row: 0 },
    ],
    points: { in_feed: 3, offerable_today: 3, vanished: 0 },
  });
  const near = await labelctlJsonWith(
    labelctlHere,
    ...['pickup-points', 'packeta-feed', '--lat', '49.1951', '--lng', '16.6001', '--country', 'CZ', '--limit', '2'],
  );
  expect(near.nearest.map((p: { id: string; type: string }) => [p.id, p.type])).toEqual([
    ['1', 'pickup_point'],
    ['2', 'pickup_point'],
  ]);
});

it('brings the next version of the feed when it runs again, and is left as it is by the worker’s next boot', async () => {
  feed.publishPoints('branch', [aPoint(1), aPoint(4)], new Date());
  await ensurePacketaFeedSchedule(own.app.temporal, own.app.config);
  await schedule().trigger();
  const run = await latestRun(2);
  expect(await run.result()).toMatchObject({
    files: [
      { file: 'branch', outcome: 'applied', counts: expect.objectContaining({ new: 1, vanished: 1 }) },
      { file: 'box', outcome: 'not_modified' },
    ],
  });
  expect((await points()).map((p) => p.id)).toEqual(['1', '3', '4']);
  // The update at boot started nothing: the one run since the first is the trigger's.
  expect((await schedule().describe()).info.recentActions).toHaveLength(2);
  expect((await files()).map((f) => [f.feedFile, f.failuresInARow])).toEqual([
    ['box', 0],
    ['branch', 0],
  ]);
});

it('fails a run at once when the feed refuses the key, and records it on the files', async () => {
  keys.delete(KEY);
  try {
    await schedule().trigger();
    const run = await latestRun(3);
    const failure = await run.result().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(WorkflowFailedError);
    expect((failure as WorkflowFailedError).cause?.cause).toMatchObject({ type: FEED_REFUSED });
    expect((await files()).map((f) => [f.feedFile, f.failuresInARow, f.lastError])).toEqual([
      ['box', 1, expect.stringMatching(/HTTP 401/)],
      ['branch', 1, expect.stringMatching(/HTTP 401/)],
    ]);
    expect((await points()).map((p) => p.id)).toEqual(['1', '3', '4']);
    expect(await feedGauges('branch')).toMatchObject({ failures: 1, points: 2 });
    const shown = await labelctlWith(labelctlHere, 'pickup-points', 'packeta-feed');
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(/^branch +2 .+ 1 +branch\.json: HTTP 401/m);
    expect(shown.stdout).not.toContain(KEY);
  } finally {
    keys.add(KEY);
  }
});

it('goes when the worker boots without an API key', async () => {
  await ensurePacketaFeedSchedule(own.app.temporal, { ...own.app.config, packetaFeed: null });
  await expect(schedule().describe()).rejects.toBeInstanceOf(ScheduleNotFoundError);
  // And again: nothing to remove is no error.
  await ensurePacketaFeedSchedule(own.app.temporal, { ...own.app.config, packetaFeed: null });
});

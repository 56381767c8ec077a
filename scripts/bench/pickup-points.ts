import { downloadFeedFile } from '../../src/carriers/packeta/feed/download';
import { FakeFeed, startFakeFeedServer } from '../../src/carriers/packeta/feed/fake-feed';
import {
  generatedFeedTexts,
  generatedPoint,
  type GenerationOptions,
} from '../../src/carriers/packeta/feed/generated-feed';
import { importPacketaFeed, type FileImport } from '../../src/carriers/packeta/feed/import';
import { packetaDay, packetaPickupNetwork } from '../../src/carriers/packeta/feed/network';
import type { CarrierAccountSettings } from '../../src/carriers/port';
import type { Orm } from '../../src/db/orm';
import { packetaPointsStore } from '../../src/db/packeta-pickup-points';
import { inTransaction } from '../../src/db/transaction';
import { createLogger } from '../../src/logger';
import { quantile } from './median';

/**
 * `npm run bench -- pickup-points` (decisions 1220 to 1222): Packeta's pickup-point network at its real size, a
 * generated feed of BENCH_PICKUP_POINTS (100,000) points over CZ, SK, HU, PL, RO and DE served by the fake feed over
 * HTTP (gzip). Import time: a first import into an empty table, the same feed again (304, then without validators: the
 * whole file downloaded, nothing read), and a later version with 1 % of the points changed and 0.5 % gone. Search:
 * the nearest 50 through the pickup-network port (`searchPickupPoints`: the statement, its rows and the mapping to
 * PickupPoint) against the bare statement of the same index (`select id ... order by location <-> ... limit 50`),
 * with the port's own statement between them, one of each in turn at BENCH_PICKUP_RUNS places across the network;
 * and, for scale, the bare statement without its index.
 */
const POINTS = Number(process.env.BENCH_PICKUP_POINTS ?? 100_000);
const RUNS = Number(process.env.BENCH_PICKUP_RUNS ?? 2_000);
const KEY = 'benchfeedkey0000';
const account = { carrierCode: 'carrier_a', accountId: 'ca_bench' } as CarrierAccountSettings;

const ms = (n: number) => `${n.toFixed(2)} ms`;
const since = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e6;

/** A place to search from: near a generated point (the network's own density), in its country. */
function origins(count: number): Array<{ latitude: number; longitude: number; country: string }> {
  const places = [];
  for (let i = 0; i < count; i += 1) {
    const point = generatedPoint((i * 7_919) % POINTS)!;
    const jitter = ((i % 13) - 6) / 1000;
    places.push({
      latitude: Number(point.raw.latitude) + jitter,
      longitude: Number(point.raw.longitude) - jitter,
      country: String(point.raw.country).toUpperCase(),
    });
  }
  return places;
}

async function timedImport(orm: Orm, baseUrl: string, label: string): Promise<void> {
  const start = process.hrtime.bigint();
  const files: FileImport[] = await importPacketaFeed({
    store: packetaPointsStore(orm.em),
    download: (file, validators) => downloadFeedFile({ baseUrl, apiKey: KEY, timeoutMs: 600_000 }, file, validators),
    now: () => new Date(),
    logger: createLogger('silent'),
    maxVanishedShare: 0.2,
  });
  const seconds = since(start) / 1000;
  const counts = files
    .map((f) => {
      const c = f.counts;
      return `${f.file} ${f.outcome} (${f.points ?? '-'} points: new ${c.new}, changed ${c.changed}, vanished ${c.vanished})`;
    })
    .join('; ');
  console.log(`  ${label.padEnd(44)} ${seconds.toFixed(2).padStart(7)} s   ${counts}`);
}

function publish(feed: FakeFeed, options: GenerationOptions): number {
  const texts = generatedFeedTexts(POINTS, options);
  const at = new Date();
  feed.publish('branch', texts.branch, at);
  feed.publish('box', texts.box, at);
  return texts.branch.length + texts.box.length;
}

async function imports(orm: Orm, feed: FakeFeed, baseUrl: string): Promise<void> {
  const size = publish(feed, {});
  console.log(`  feed: ${POINTS.toLocaleString('en')} points, ${(size / 1e6).toFixed(0)} MB of JSON (served gzipped)`);
  await orm.em.fork().execute('truncate packeta_pickup_points, packeta_feed_files');
  await timedImport(orm, baseUrl, 'first import (empty table)');
  await orm.em.fork().execute('analyze packeta_pickup_points');
  const [stored] = await orm.em.fork().execute<Array<{ table: string; index: string }>>(
    `select pg_size_pretty(pg_total_relation_size('packeta_pickup_points')) as table,
       pg_size_pretty(pg_relation_size('packeta_pickup_points_nearest_idx')) as index`,
  );
  console.log(`  ${'table with its indexes'.padEnd(44)} ${stored!.table} (the nearest-point index ${stored!.index})`);
  await timedImport(orm, baseUrl, 'the same feed again (304)');
  feed.validators = false;
  await timedImport(orm, baseUrl, 'the same feed without validators (digest)');
  publish(feed, { changedEvery: 100, droppedEvery: 200 });
  await timedImport(orm, baseUrl, 'a later version (1 % changed, 0.5 % gone)');
  feed.validators = true;
}

const BARE = `select id from packeta_pickup_points
  where country = ? and in_feed and status_id = 1 and display_frontend
  order by location <-> ll_to_earth(?, ?)::cube limit 50`;

type Place = ReturnType<typeof origins>[number];

/** Each search at every place, the three in turn, starting with another each time: the machine's drift hits all alike. */
async function timeInTurn(places: Place[], searches: Record<string, (p: Place) => Promise<unknown[]>>) {
  const names = Object.keys(searches);
  const times = new Map(names.map((name): [string, number[]] => [name, []]));
  for (const p of places.slice(0, 100)) for (const name of names) await searches[name]!(p);
  for (const [i, p] of places.entries()) {
    for (let k = 0; k < names.length; k += 1) {
      const name = names[(i + k) % names.length]!;
      const start = process.hrtime.bigint();
      const found = await searches[name]!(p);
      times.get(name)!.push(since(start));
      if (found.length !== 50) throw new Error(`${name} found ${found.length} points near ${JSON.stringify(p)}`);
    }
  }
  return times;
}

async function withoutIndex(orm: Orm, places: Place[]): Promise<number[]> {
  const times: number[] = [];
  for (const p of places) {
    await inTransaction(orm, async (tx) => {
      await tx.execute('set local enable_indexscan = off');
      await tx.execute('set local enable_bitmapscan = off');
      const start = process.hrtime.bigint();
      await tx.execute(BARE, [p.country, p.latitude, p.longitude]);
      times.push(since(start));
    });
  }
  return times;
}

async function searches(orm: Orm): Promise<void> {
  const store = packetaPointsStore(orm.em);
  const network = packetaPickupNetwork(store);
  const places = origins(RUNS);
  const day = packetaDay(new Date());
  const times = await timeInTurn(places, {
    port: (p) => network.searchPickupPoints(account, { ...p, countryCode: p.country, limit: 50 }),
    store: (p) => store.nearest({ ...p, limit: 50, day }),
    bare: (p) => orm.em.fork().execute(BARE, [p.country, p.latitude, p.longitude]),
  });
  const unindexed = await withoutIndex(orm, places.slice(0, 20));
  const [port, statement, bare] = [times.get('port')!, times.get('store')!, times.get('bare')!];
  const row = (name: string, t: number[]) =>
    console.log(
      `  ${name.padEnd(58)} p50 ${ms(quantile(t, 0.5)).padStart(9)}  p99 ${ms(quantile(t, 0.99)).padStart(9)}`,
    );
  const ratio = (a: number[], b: number[]) =>
    `p50 ${(quantile(a, 0.5) / quantile(b, 0.5)).toFixed(2)}, p99 ${(quantile(a, 0.99) / quantile(b, 0.99)).toFixed(2)}`;
  console.log(`\n  nearest 50, ${RUNS} searches at places across the network, each of the three in turn:`);
  row('searchPickupPoints (the port: statement, rows, PickupPoint)', port);
  row("the port's statement alone (its columns and date rules)", statement);
  row('the bare statement of the same index (ids only)', bare);
  row('the bare statement without the index (20 searches)', unindexed);
  console.log(`  port / bare statement: ${ratio(port, bare)}`);
  console.log(
    `  port's statement / bare statement: ${ratio(statement, bare)}; port / its statement: ${ratio(port, statement)}`,
  );
  console.log(
    `  the index: the bare statement ${(quantile(unindexed, 0.5) / quantile(bare, 0.5)).toFixed(0)}x faster with it`,
  );
}

export async function pickupPointsBench(orm: Orm): Promise<void> {
  console.log(`\nPacketa pickup points: ${POINTS.toLocaleString('en')} points`);
  const feed = new FakeFeed(new Set([KEY]));
  const server = await startFakeFeedServer(feed);
  try {
    await imports(orm, feed, server.baseUrl);
    await searches(orm);
  } finally {
    await server.close();
  }
}

import { downloadFeedFile } from '../../src/carriers/packeta/feed/download';
import { FakeFeed, startFakeFeedServer } from '../../src/carriers/packeta/feed/fake-feed';
import {
  generatedFeedTexts,
  generatedPoint,
  type GenerationOptions,
} from '../../src/carriers/packeta/feed/generated-feed';
import { importPacketaFeed, type FileImport } from '../../src/carriers/packeta/feed/import';
import { packetaPickupNetwork } from '../../src/carriers/packeta/feed/network';
import type { CarrierAccountSettings } from '../../src/carriers/port';
import type { Orm } from '../../src/db/orm';
import { packetaPointsStore } from '../../src/db/packeta-pickup-points';
import { inTransaction } from '../../src/db/transaction';
import { createLogger } from '../../src/logger';

/**
 * `npm run bench -- pickup-points` (decisions 1220 to 1222): Packeta's pickup-point network at its real size, a
 * generated feed of BENCH_PICKUP_POINTS (100,000) points over CZ, SK, HU, PL, RO and DE served by the fake feed over
 * HTTP (gzip). Import time: a first import into an empty table, the same feed again (304, then without validators: the
 * whole file read, nothing written), and a later version with 1 % of the points changed and 0.5 % gone. Search: the
 * nearest 50 through the pickup-network port (`searchPickupPoints`: the statement, its rows and the mapping to
 * PickupPoint) against the bare statement of the same index (`select id ... order by location <-> ... limit 50`), a
 * query of each in turn at BENCH_PICKUP_RUNS random places of the network; and, for scale, the same bare statement
 * without its index.
 */
const POINTS = Number(process.env.BENCH_PICKUP_POINTS ?? 100_000);
const RUNS = Number(process.env.BENCH_PICKUP_RUNS ?? 2_000);
const KEY = 'benchfeedkey0000';
const account = { carrierCode: 'carrier_a', accountId: 'ca_bench' } as CarrierAccountSettings;

const quantile = (values: readonly number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
};
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
  await timedImport(orm, baseUrl, 'the same feed again (304)');
  feed.validators = false;
  await timedImport(orm, baseUrl, 'the same feed without validators (read whole)');
  publish(feed, { changedEvery: 100, droppedEvery: 200 });
  await timedImport(orm, baseUrl, 'a later version (1 % changed, 0.5 % gone)');
  feed.validators = true;
}

const BARE = `select id from packeta_pickup_points
  where country = ? and in_feed and status_id = 1 and display_frontend
  order by location <-> ll_to_earth(?, ?)::cube limit 50`;

async function searches(orm: Orm): Promise<void> {
  const network = packetaPickupNetwork(packetaPointsStore(orm.em));
  const places = origins(RUNS);
  const port: number[] = [];
  const bare: number[] = [];
  const search = (p: (typeof places)[number]) =>
    network.searchPickupPoints(account, { ...p, countryCode: p.country, limit: 50 });
  const bareQuery = (p: (typeof places)[number]) => orm.em.fork().execute(BARE, [p.country, p.latitude, p.longitude]);
  for (const p of places.slice(0, 100)) await Promise.all([search(p), bareQuery(p)]);
  for (const [i, p] of places.entries()) {
    // Each in turn, starting with the other every time: whatever the machine does meanwhile hits both alike.
    for (const which of i % 2 === 0 ? ['port', 'bare'] : ['bare', 'port']) {
      const start = process.hrtime.bigint();
      const found = which === 'port' ? await search(p) : await bareQuery(p);
      if (found.length !== 50) throw new Error(`${which} found ${found.length} points near ${JSON.stringify(p)}`);
      (which === 'port' ? port : bare).push(since(start));
    }
  }
  const unindexed: number[] = [];
  for (const p of places.slice(0, 20)) {
    await inTransaction(orm, async (tx) => {
      await tx.execute('set local enable_indexscan = off');
      await tx.execute('set local enable_bitmapscan = off');
      const start = process.hrtime.bigint();
      await tx.execute(BARE, [p.country, p.latitude, p.longitude]);
      unindexed.push(since(start));
    });
  }
  const row = (name: string, t: number[]) =>
    console.log(
      `  ${name.padEnd(44)} p50 ${ms(quantile(t, 0.5)).padStart(9)}  p99 ${ms(quantile(t, 0.99)).padStart(9)}`,
    );
  console.log(`\n  nearest 50, ${RUNS} searches at places across the network:`);
  row('searchPickupPoints (the port)', port);
  row('the bare statement, same index', bare);
  row('the bare statement without the index (20)', unindexed);
  console.log(
    `  ratio port / bare statement: p50 ${(quantile(port, 0.5) / quantile(bare, 0.5)).toFixed(2)}, p99 ${(
      quantile(port, 0.99) / quantile(bare, 0.99)
    ).toFixed(
      2,
    )}; index: the bare statement ${(quantile(unindexed, 0.5) / quantile(bare, 0.5)).toFixed(0)}x faster with it`,
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

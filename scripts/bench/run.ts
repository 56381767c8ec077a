import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { createApiKey, revokeApiKey } from '../../src/access/api-keys';
import { createStore } from '../../src/access/stores';
import { createApp } from '../../src/app';
import { PAGE_SIZES } from '../../src/domain/carrier-catalog';
import { loadConfig } from '../../src/config';
import { openOrm, type Orm } from '../../src/db/orm';
import { createLogger } from '../../src/logger';
import { openAppDeps } from '../../src/dependencies';
import { mergePdfs } from '../../src/pdf/merge';
import autocannon from 'autocannon';
import { serializeLabel } from '../../src/api/labels/serializer';
import { readLabelView } from '../../src/db/labels-query';
import { setLimitOverride } from '../../src/limits/overrides';
import { measureLatency } from './latency';
import { creationBench } from './creation';
import { memoryBench } from './memory';
import { cpuSince, formatCpu, sampleCpu } from './cpu-sample';
import { median } from './median';
import { tracingCost } from './tracing-cost';
import { scaleBench } from './scale';
import { pickupPointsBench } from './pickup-points';
import { aCreationRecord } from '../../test/helpers/creation';

const LABELS = Number(process.env.BENCH_LABELS ?? 200_000);
const RUNS = 30;
/** Sections to run: `npm run bench -- read` runs one (`read` includes `limiter`); none given runs all. */
const SECTIONS = new Set(process.argv.slice(2));
// `scale` runs only when named (`npm run bench -- scale`): it builds stores of millions of labels (scripts/bench/scale.ts).
const wanted = (section: string) => (SECTIONS.size === 0 && section !== 'scale') || SECTIONS.has(section);
const READ_CONNECTIONS = 20;
const READ_SECONDS = Number(process.env.BENCH_READ_SECONDS ?? 10);
/** Alternating runs with and without the rate limiter, so machine noise hits both alike. */
const LIMITER_ROUNDS = Number(process.env.BENCH_LIMITER_ROUNDS ?? 3);

const ms = (n: number) => `${n.toFixed(2)} ms`;

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

async function seedLabels(orm: Orm, storeId: string, count: number): Promise<void> {
  // Set-based insert: the bench measures reads, not the loader. One label per order, all outbound shipments.
  await orm.em.fork().execute(
    `insert into labels (id, store_id, order_gid, order_legacy_id, order_name, order_name_key, direction, kind, status,
       carrier_code, carrier_name, source, tracking_number, created_at, updated_at, current)
     select 'lbl_bench' || lpad(g::text, 15, '0'), ?, 'gid://shopify/Order/' || (100000 + g), (100000 + g)::text,
       '#' || (100000 + g), (100000 + g)::text, 'outbound', 'shipment', 'ready', 'carrier_a', 'Carrier A', 'admin',
       'TN' || g, date_trunc('second', now() - interval '30 days') + (g || ' seconds')::interval, null, true
     from generate_series(1, ?) g`,
    [storeId, count],
  );
  await orm.em.fork().execute('analyze labels');
}

async function samplePdf(label: number): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const page = doc.addPage([PAGE_SIZES.A6.width, PAGE_SIZES.A6.height]);
  page.drawText(`Label ${label}`, { x: 20, y: 380, size: 18, font });
  for (let i = 0; i < 60; i += 1) page.drawRectangle({ x: 20 + i * 4, y: 300, width: i % 3 === 0 ? 3 : 1, height: 50 });
  return doc.save();
}

function timeProcess(command: string, args: string[]): { seconds: number; kilobytes: number } {
  const result = spawnSync('/usr/bin/time', ['-f', '%e %M', command, ...args], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${command} failed: ${result.stderr}`);
  const [seconds, kilobytes] = result.stderr.trim().split('\n').pop()!.split(' ').map(Number);
  return { seconds: seconds!, kilobytes: kilobytes! };
}

/** A process's resident memory now and its peak (`VmRSS`, `VmHWM` of /proc/<pid>/status), in MiB. */
function memoryOf(pid: number): { rssMiB: number; peakMiB: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rssMiB: Math.round(kib('VmRSS') / 1024), peakMiB: Math.round(kib('VmHWM') / 1024) };
}

/** Starts scripts/bench/read-server.ts in its own process (the load generator must not share its event loop). */
function startReadServer(
  mode: 'bare' | 'floor' | 'api' | 'api-unlimited' | 'api-untaken' | 'api-round-trip',
  env: NodeJS.ProcessEnv,
): Promise<{ port: number; pid: number; stop: () => void }> {
  return new Promise((resolve, reject) => {
    // BENCH_CPU_PROF=<dir> writes a V8 CPU profile of each server process there (open it in Chrome DevTools).
    // BENCH_CPU_PROF_ONLY=<mode>: that server's only (the load generator and the others run unprofiled).
    const profiled = process.env.BENCH_CPU_PROF && (process.env.BENCH_CPU_PROF_ONLY ?? mode) === mode;
    const profile = profiled ? ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_CPU_PROF!] : [];
    const child = spawn(process.execPath, [...profile, '--import', 'tsx', join(__dirname, 'read-server.ts'), mode], {
      env,
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    child.once('exit', (code) => reject(new Error(`${mode} server exited with ${code}`)));
    child.on('message', (message: { type?: string; port?: number }) => {
      // SIGINT lets a profiled process write its profile; read-server exits on it.
      if (message.type === 'ready')
        resolve({
          port: message.port!,
          pid: child.pid!,
          stop: () => child.kill(profile.length ? 'SIGINT' : 'SIGKILL'),
        });
    });
  });
}

interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  /** Requests answered, warm-up included (the read loads). */
  requests?: number;
}

/** The medians of several rounds of one load (non-2xx answers summed). */
function medianLoad(rounds: readonly LoadResult[]): LoadResult {
  return {
    rps: median(rounds.map((x) => x.rps)),
    p50: median(rounds.map((x) => x.p50)),
    p99: median(rounds.map((x) => x.p99)),
    non2xx: rounds.reduce((n, x) => n + x.non2xx, 0),
  };
}

/** 2 s of warm-up, then READ_SECONDS at READ_CONNECTIONS connections. */
async function load(url: string, headers: Record<string, string> = {}): Promise<LoadResult> {
  const warmUp = await autocannon({ url, connections: READ_CONNECTIONS, duration: 2, headers });
  const result = await autocannon({ url, connections: READ_CONNECTIONS, duration: READ_SECONDS, headers });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    // The warm-up's requests too: the CPU samples span both runs.
    requests: result.requests.total + warmUp.requests.total,
  };
}

/** `BENCH_READ_CPU=1`: where each read load's CPU goes (the server, PostgreSQL, the load generator), per request. */
const READ_CPU = process.env.BENCH_READ_CPU === '1';

interface CpuOfLoad {
  used: Map<string, number>;
  requests: number;
}

function printCpu(cpu: Map<string, CpuOfLoad>): void {
  console.log('  CPU per request by process, over every round (BENCH_READ_CPU=1):');
  for (const [name, { used, requests }] of cpu) {
    console.log(`  ${name}\n${formatCpu(used, requests / 1000, 'thousand requests').join('\n')}`);
  }
}

function addCpu(cpu: Map<string, CpuOfLoad>, name: string, used: Map<string, number>, requests: number): void {
  const entry = cpu.get(name) ?? { used: new Map<string, number>(), requests: 0 };
  for (const [role, ms] of used) entry.used.set(role, (entry.used.get(role) ?? 0) + ms);
  entry.requests += requests;
  cpu.set(name, entry);
}

async function seedReadLabels(orm: Orm, storeId: string): Promise<string> {
  // Labels as API reads see them: one fulfillment order each and a stored copy.
  await orm.em.fork().execute(
    `insert into label_fulfillment_orders (label_id, fulfillment_order_gid, fulfillment_order_legacy_id, store_id)
     select id, 'gid://shopify/FulfillmentOrder/' || order_legacy_id, order_legacy_id, store_id
       from labels where store_id = ? order by created_at desc limit 200`,
    [storeId],
  );
  await orm.em.fork().execute(
    `insert into label_documents (label_id, pdf, page_size, page_count, byte_size)
     select id, '\\x255044462d312e370a2525454f460a'::bytea, 'A6', 1, 15
       from labels where store_id = ? order by created_at desc limit 200`,
    [storeId],
  );
  const [row] = await orm.em
    .fork()
    .execute<Array<{ id: string }>>('select id from labels where store_id = ? order by created_at desc limit 1', [
      storeId,
    ]);
  return row!.id;
}

/** Rounds of the read path: every server's loads once per round, so machine noise hits ceiling and API alike. */
const READ_ROUNDS = Number(process.env.BENCH_READ_ROUNDS ?? 3);
/** Seconds of load each read server gets under each of its loads before the first round, not measured. */
const READ_WARM_SECONDS = Number(process.env.BENCH_READ_WARM_SECONDS ?? 5);
/** `BENCH_READ_TRACING=0` leaves out tracing's cost (the traced servers beside untraced ones, scripts/bench/tracing-cost.ts). */
const READ_TRACING = process.env.BENCH_READ_TRACING !== '0';

/**
 * Creations as a client polls them: `processing`, each on an order of its own, newest last (the list reads newest
 * first). The records only: nothing runs them.
 */
async function seedReadCreations(orm: Orm, storeId: string): Promise<string> {
  const ids: string[] = [];
  for (let i = 0; i < 60; i += 1) {
    const order = `gid://shopify/Order/${900000 + i}`;
    ids.push(
      await aCreationRecord(orm, {
        storeId,
        orderGid: order,
        fulfillmentOrderGids: [`gid://shopify/FulfillmentOrder/${900000 + i}`],
        status: 'processing',
      }),
    );
  }
  return ids.at(-1)!;
}

async function readPath(orm: Orm, storeId: string, secret: string, writeSecret: string): Promise<void> {
  console.log(
    `\nRead path: ${READ_CONNECTIONS} connections, ${READ_SECONDS} s each, ${READ_ROUNDS} rounds alternating, medians; servers in their own processes, Node ${process.version}`,
  );
  const labelId = await seedReadLabels(orm, storeId);
  const view = await readLabelView(orm.em.fork(), storeId, labelId);
  const wire = serializeLabel(view!, { baseUrl: 'http://127.0.0.1', now: new Date() });
  const env = { ...process.env, BENCH_LABEL_JSON: JSON.stringify(wire), LOG_LEVEL: 'info' };
  const auth = { authorization: `Bearer ${secret}` };
  // Creations are read with a key that may create labels (`labels:write`), as the client that made them.
  const creationId = await seedReadCreations(orm, storeId);
  const writeAuth = { authorization: `Bearer ${writeSecret}` };
  const bare = await startReadServer('bare', env);
  const floor = await startReadServer('floor', env);
  const api = await startReadServer('api', env);
  const apiIdle = memoryOf(api.pid);
  // The same app keeping the JSON of one label only: every label of a page is read in full (decision 0020's misses).
  const uncached = await startReadServer('api', { ...env, LABEL_JSON_CACHE_ENTRIES: '1' });
  const firstPage = await fetch(`http://127.0.0.1:${api.port}/v1/labels?limit=50`, { headers: auth });
  const { next_cursor: cursor } = (await firstPage.json()) as { next_cursor: string };
  const loads: Array<[string, string, Record<string, string>]> = [
    ['bare Koa + router, fixed label JSON (ceiling)', `http://127.0.0.1:${bare.port}/v1/labels/${labelId}`, {}],
    ['bare Koa + router, fixed list of 50', `http://127.0.0.1:${bare.port}/v1/labels`, {}],
    ['floor: one statement (key, counter, label row)', `http://127.0.0.1:${floor.port}/v1/labels/${labelId}`, auth],
    ['GET /v1/labels/{id}', `http://127.0.0.1:${api.port}/v1/labels/${labelId}`, auth],
    ['GET /v1/labels?limit=50', `http://127.0.0.1:${api.port}/v1/labels?limit=50`, auth],
    [
      'GET /v1/labels?limit=50&cursor= (full rows)',
      `http://127.0.0.1:${api.port}/v1/labels?limit=50&cursor=${encodeURIComponent(cursor)}`,
      auth,
    ],
    ['GET /v1/labels?limit=50, none in memory', `http://127.0.0.1:${uncached.port}/v1/labels?limit=50`, auth],
    ['GET /v1/shop', `http://127.0.0.1:${api.port}/v1/shop`, auth],
    ['GET /v1/label-creations/{id}', `http://127.0.0.1:${api.port}/v1/label-creations/${creationId}`, writeAuth],
    ['GET /v1/label-creations?limit=50', `http://127.0.0.1:${api.port}/v1/label-creations?limit=50`, writeAuth],
  ];
  // BENCH_READ_ONLY=<regex>: only the loads whose names match (a profile of one load, a quick look).
  const only = process.env.BENCH_READ_ONLY ? new RegExp(process.env.BENCH_READ_ONLY) : null;
  if (only) loads.splice(0, loads.length, ...loads.filter(([name]) => only.test(name)));
  const runs = new Map<string, LoadResult[]>();
  const cpu = READ_CPU ? new Map<string, CpuOfLoad>() : null;
  // Every server once under each of its loads before the rounds: a long-running service's code is optimised and its
  // heap grown; the first measured round otherwise pays for that.
  for (const [, url, headers] of loads)
    await autocannon({ url, connections: READ_CONNECTIONS, duration: READ_WARM_SECONDS, headers });
  for (let round = 0; round < READ_ROUNDS; round += 1) {
    // Odd rounds run the loads backwards: a machine that drifts during a round favours neither of two neighbours.
    for (const [name, url, headers] of round % 2 === 0 ? loads : [...loads].reverse()) {
      const before = cpu && sampleCpu();
      const result = await load(url, headers);
      runs.set(name, [...(runs.get(name) ?? []), result]);
      if (cpu && before) addCpu(cpu, name, cpuSince(before), result.requests ?? 0);
    }
  }
  const apiLoaded = memoryOf(api.pid);
  bare.stop();
  floor.stop();
  api.stop();
  uncached.stop();
  const result = (name: string) => medianLoad(runs.get(name)!);
  for (const [name] of loads) {
    const r = result(name);
    const each = runs
      .get(name)!
      .map((x) => x.rps.toFixed(0))
      .join(', ');
    console.log(
      `  ${name.padEnd(48)} ${r.rps.toFixed(0).padStart(6)} req/s  p50 ${r.p50.toFixed(1).padStart(5)} ms  p99 ${r.p99.toFixed(1).padStart(5)} ms  (rounds: ${each})${r.non2xx ? `  (${r.non2xx} non-2xx!)` : ''}`,
    );
  }
  if (cpu) printCpu(cpu);
  if (READ_TRACING) {
    await tracingCost({
      start: (serverEnv) => startReadServer('api', serverEnv),
      env,
      paths: { '/v1/labels/{id}': `/v1/labels/${labelId}`, '/v1/labels?limit=50': '/v1/labels?limit=50' },
      headers: auth,
      connections: READ_CONNECTIONS,
      seconds: READ_SECONDS,
      warmSeconds: READ_WARM_SECONDS,
      rounds: READ_ROUNDS,
      only,
    });
  }
  const has = (name: string) => runs.has(name);
  if (
    ![
      'bare Koa + router, fixed label JSON (ceiling)',
      'floor: one statement (key, counter, label row)',
      'GET /v1/labels/{id}',
      'GET /v1/labels?limit=50',
      'GET /v1/shop',
      'bare Koa + router, fixed list of 50',
    ].every(has)
  ) {
    console.log('  (some loads left out by BENCH_READ_ONLY: no ratios)');
    return;
  }
  const ceiling = result(loads[0]![0]);
  const floorRead = result('floor: one statement (key, counter, label row)');
  const fixedPage = result('bare Koa + router, fixed list of 50');
  const single = result('GET /v1/labels/{id}');
  const list = result('GET /v1/labels?limit=50');
  const shop = result('GET /v1/shop');
  console.log(`  ratio GET /labels/{id} / floor: ${(single.rps / floorRead.rps).toFixed(3)} (target at least 0.70)`);
  console.log(
    `  ratio GET /labels?limit=50 / fixed page of 50: ${(list.rps / fixedPage.rps).toFixed(3)} (target at least 0.50)`,
  );
  console.log(`  ratio GET /shop / GET /labels/{id}: ${(shop.rps / single.rps).toFixed(3)} (target at least 0.95)`);
  if (has('GET /v1/label-creations/{id}') && has('GET /v1/label-creations?limit=50')) {
    const creation = result('GET /v1/label-creations/{id}');
    const creations = result('GET /v1/label-creations?limit=50');
    console.log(
      `  ratio GET /label-creations/{id} / GET /labels/{id}: ${(creation.rps / single.rps).toFixed(3)}, GET /label-creations?limit=50 / GET /labels?limit=50: ${(creations.rps / list.rps).toFixed(3)} (no target: the polled record and its list, for the record)`,
    );
  }
  console.log(
    `  p99 GET /labels/{id} ${single.p99.toFixed(1)} ms, floor ${floorRead.p99.toFixed(1)} ms: ratio ${(single.p99 / Math.max(floorRead.p99, 1)).toFixed(2)} (target at most 2.0)`,
  );
  console.log(
    `  ratio GET /labels/{id} / ceiling (no database): ${(single.rps / ceiling.rps).toFixed(3)}, GET /labels?limit=50: ${(list.rps / ceiling.rps).toFixed(3)}`,
  );
  console.log(
    `  API process memory: idle RSS ${apiIdle.rssMiB} MiB; after every read load RSS ${apiLoaded.rssMiB} MiB, peak ${apiLoaded.peakMiB} MiB`,
  );
}

/** The limiter's many-keys load: keys of the bench store (20 active at most, spec "API keys"). */
const LIMITER_KEYS = 10;

/** Load profiles of the limiter section: below capacity (what a request costs) and at saturation (throughput). */
const LIMITER_PROFILES = [
  { name: 'steady 100 req/s', connections: 10, rate: 100, keys: 1 },
  { name: `saturated, ${READ_CONNECTIONS} connections`, connections: READ_CONNECTIONS, rate: undefined, keys: 1 },
  // No key reads this fast (10/s each): the one-key run is the worst case, every take queueing on one counter row. A
  // busy service's load comes from many keys; ten keys of the same store, two connections each, show that shape.
  { name: `saturated, ${LIMITER_KEYS} keys`, connections: READ_CONNECTIONS, rate: undefined, keys: LIMITER_KEYS },
] as const;

/**
 * The rate limiter's cost on `GET /v1/labels`: the same app with and without it (both servers up, runs alternating,
 * so machine noise hits both alike), at a steady rate below capacity and at saturation, where p50 is the connection
 * count over the throughput. The bench store's read limits are raised (as support would) so that every request is
 * counted and none refused.
 */
async function limiterCost(secrets: readonly string[]): Promise<void> {
  const env = { ...process.env, LOG_LEVEL: 'info' };
  const headerSets = secrets.map((secret) => ({ authorization: `Bearer ${secret}` }));
  console.log(`\nRate limiter on GET /v1/labels?limit=50: ${LIMITER_ROUNDS} alternating rounds of ${READ_SECONDS} s`);
  const servers = {
    without: await startReadServer('api-unlimited', env),
    'round trip only': await startReadServer('api-round-trip', env),
    // The admission statement as served, its take left out: what counting itself costs (decision 1020).
    'nothing counted': await startReadServer('api-untaken', env),
    with: await startReadServer('api', env),
  };
  const runs = new Map<string, LoadResult[]>();
  const cpu = READ_CPU ? new Map<string, CpuOfLoad>() : null;
  for (let round = 0; round < LIMITER_ROUNDS; round += 1) {
    for (const profile of LIMITER_PROFILES) {
      for (const [mode, server] of Object.entries(servers)) {
        const url = `http://127.0.0.1:${server.port}/v1/labels?limit=50`;
        const load = { connections: profile.connections, ...(profile.rate ? { rate: profile.rate } : {}) };
        const before = cpu && sampleCpu();
        const headers = headerSets.slice(0, profile.keys);
        await measureLatency(url, headers, { ...load, seconds: 2 });
        const r = await measureLatency(url, headers, { ...load, seconds: READ_SECONDS });
        const key = `${profile.name}|${mode}`;
        runs.set(key, [...(runs.get(key) ?? []), r]);
        // The warm-up's requests counted at the measured rate: close enough for a split by process.
        if (cpu && before) addCpu(cpu, key, cpuSince(before), r.rps * (READ_SECONDS + 2));
      }
    }
  }
  for (const server of Object.values(servers)) server.stop();
  if (cpu) printCpu(cpu);
  const summary = (key: string) => medianLoad(runs.get(key)!);
  const change = (a: number, b: number) => `${b >= a ? '+' : ''}${(((b - a) / a) * 100).toFixed(1)} %`;
  for (const profile of LIMITER_PROFILES) {
    const without = summary(`${profile.name}|without`);
    const uncounted = summary(`${profile.name}|nothing counted`);
    const withLimiter = summary(`${profile.name}|with`);
    for (const mode of Object.keys(servers)) {
      const r = summary(`${profile.name}|${mode}`);
      console.log(
        `  ${profile.name.padEnd(26)} ${mode.padEnd(16)} ${r.rps.toFixed(0).padStart(5)} req/s  p50 ${r.p50.toFixed(2).padStart(6)} ms  p99 ${r.p99.toFixed(2).padStart(6)} ms${r.non2xx ? `  (${r.non2xx} non-2xx!)` : ''}`,
      );
    }
    console.log(
      `  ${profile.name.padEnd(26)} limiter cost: p50 ${change(without.p50, withLimiter.p50)} (goal under 10 %), p99 ${change(without.p99, withLimiter.p99)}, throughput ${change(without.rps, withLimiter.rps)}`,
    );
    // Without the limiter the app has no admission statement either (separate round trips): this isolates the take.
    console.log(
      `  ${profile.name.padEnd(26)} counting alone (with / nothing counted): p50 ${change(uncounted.p50, withLimiter.p50)} (goal under 10 %), p99 ${change(uncounted.p99, withLimiter.p99)}, throughput ${change(uncounted.rps, withLimiter.rps)}`,
    );
  }
}

async function main(): Promise<void> {
  const config = loadConfig();
  const orm = await openOrm(config.databaseUrl);
  const em = orm.em.fork();
  const now = new Date();
  const store = await createStore(
    em,
    {
      name: 'Bench',
      domain: `bench-${process.pid}.myshopify.com`,
      email: 'bench@example.com',
      apiEnabled: true,
      subscriptionActive: true,
      writeAccess: true,
    },
    now,
  );
  const { secret } = await createApiKey(em, { storeId: store.id, name: 'bench', scopes: ['labels:print'], now });
  // Every section reads far faster than a client may (10/s per key): support's override keeps the limiter counting
  // without refusing.
  for (const bucket of ['read_key_per_second', 'read_key_per_minute'])
    await setLimitOverride(em, { storeId: store.id, bucket, limit: 1_000_000_000, now });
  const writer = await createApiKey(em, { storeId: store.id, name: 'bench writer', scopes: ['labels:write'], now });
  const revoked = await createApiKey(em, { storeId: store.id, name: 'revoked', scopes: [], now });
  await revokeApiKey(em, { storeId: store.id, keyId: revoked.key.id, now });

  // The API needs no Temporal server for reads; a lazy connection is never opened.
  const temporal = new Client({ connection: Connection.lazy({ address: '127.0.0.1:1' }) });
  const opened = await openAppDeps(config, { temporal, logger: createLogger('silent') });
  const app = createApp(opened.deps);
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const get = async (path: string, key = secret) => {
    const res = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${key}` } });
    const body = (await res.json()) as { next_cursor?: string | null };
    return { status: res.status, body };
  };

  await seedLabels(orm, store.id, wanted('sync') ? LABELS : 2_000);
  if (wanted('read')) await readPath(orm, store.id, secret, writer.secret);
  if ((wanted('read') || wanted('limiter')) && LIMITER_ROUNDS > 0) {
    // The limiter's many-keys load: more keys of the bench store (the same labels, the same raised limits).
    const more = [];
    for (let i = 1; i < LIMITER_KEYS; i += 1)
      more.push(
        (await createApiKey(em, { storeId: store.id, name: `bench ${i}`, scopes: ['labels:print'], now })).secret,
      );
    await limiterCost([secret, ...more]);
  }
  if (wanted('sync')) await syncFeed(get);
  if (wanted('auth')) await authentication(get, revoked.secret);
  if (wanted('merge')) await merge();
  if (wanted('creation')) await creationBench();
  if (wanted('memory')) await memoryBench();
  if (wanted('scale')) await scaleBench(orm, config.databaseUrl, get, config.cursorSecret);
  if (wanted('pickup-points')) await pickupPointsBench(orm);
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await opened.close();
  await orm.close();
}

type Get = (path: string, key?: string) => Promise<{ status: number; body: { next_cursor?: string | null } }>;

async function syncFeed(get: Get): Promise<void> {
  console.log(`\nSync feed: ${LABELS.toLocaleString('en')} labels, pages of 250`);
  const firstPath = '/v1/labels?sort=created_at&limit=250';
  let cursor = (await get(firstPath)).body.next_cursor!;
  let pages = 1;
  while (pages < Math.floor(LABELS / 250) - 2) {
    cursor = (await get(`${firstPath}&cursor=${encodeURIComponent(cursor)}`)).body.next_cursor!;
    pages += 1;
  }
  const deepPath = `${firstPath}&cursor=${encodeURIComponent(cursor)}`;
  const first: number[] = [];
  const deep: number[] = [];
  for (let i = 0; i < RUNS; i += 1) {
    first.push(await timed(() => get(firstPath)));
    deep.push(await timed(() => get(deepPath)));
  }
  console.log(`  first page median ${ms(median(first))}, page ${pages + 1} median ${ms(median(deep))}`);
  console.log(`  ratio deep / first: ${(median(deep) / median(first)).toFixed(2)} (target about 1.0)`);
}

async function authentication(get: Get, revokedSecret: string): Promise<void> {
  console.log('\nAuthentication: unknown vs revoked key (both 401 invalid_token)');
  const unknownKey = `sla_live_${'Z'.repeat(40)}`;
  const unknown: number[] = [];
  const revokedTimes: number[] = [];
  for (let i = 0; i < 300; i += 1) {
    unknown.push(await timed(() => get('/v1/shop', unknownKey)));
    revokedTimes.push(await timed(() => get('/v1/shop', revokedSecret)));
  }
  console.log(`  unknown median ${ms(median(unknown))}, revoked median ${ms(median(revokedTimes))}`);
  console.log(`  ratio revoked / unknown: ${(median(revokedTimes) / median(unknown)).toFixed(2)} (target about 1.0)`);
}

async function merge(): Promise<void> {
  const qpdf = spawnSync('qpdf', ['--version']).status === 0;
  console.log('\nMerged 50-label PDF: this service (node process) vs qpdf --empty --pages');
  const dir = mkdtempSync(join(tmpdir(), 'sla-bench-'));
  const files: string[] = [];
  for (let i = 0; i < 50; i += 1) {
    const file = join(dir, `label-${i}.pdf`);
    writeFileSync(file, await samplePdf(i));
    files.push(file);
  }
  const ours: Array<{ seconds: number; kilobytes: number }> = [];
  const theirs: Array<{ seconds: number; kilobytes: number }> = [];
  for (let i = 0; i < 5; i += 1) {
    ours.push(
      timeProcess(process.execPath, [
        '--import',
        'tsx',
        join(__dirname, 'merge-child.ts'),
        join(dir, 'ours.pdf'),
        ...files,
      ]),
    );
    if (qpdf) theirs.push(timeProcess('qpdf', ['--empty', '--pages', ...files, '--', join(dir, 'theirs.pdf')]));
  }
  const oursTime = median(ours.map((r) => r.seconds));
  const oursMem = median(ours.map((r) => r.kilobytes));
  console.log(
    `  ours: ${oursTime.toFixed(2)} s, peak ${(oursMem / 1024).toFixed(0)} MiB (whole process, includes Node and tsx start-up)`,
  );
  if (qpdf) {
    const theirTime = median(theirs.map((r) => r.seconds));
    const theirMem = median(theirs.map((r) => r.kilobytes));
    console.log(`  qpdf: ${theirTime.toFixed(2)} s, peak ${(theirMem / 1024).toFixed(0)} MiB`);
    console.log(
      `  ratio time ours / qpdf: ${(oursTime / Math.max(theirTime, 0.01)).toFixed(1)}; peak memory: ${(oursMem / theirMem).toFixed(1)}`,
    );
  } else {
    console.log('  qpdf not installed (apt-get install qpdf): no baseline this run');
  }
  const inProcess: number[] = [];
  const buffers = files.map((f) => readFileSync(f));
  for (let i = 0; i < 10; i += 1) inProcess.push(await timed(() => mergePdfs(buffers)));
  console.log(`  ours in a warm process (the API's case): median ${ms(median(inProcess))}`);
  rmSync(dir, { recursive: true, force: true });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

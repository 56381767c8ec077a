/**
 * `npm run bench -- creation`: `POST /v1/labels` against the sandbox carriers, next to a floor measured in the same run
 * on the same Temporal server (a workflow with one no-op activity, started and awaited by a client, on a worker in this
 * process), and next to the sandbox carrier's own create time. Starts what the integration tests start (a fresh
 * database, the sandbox and the project's workers) once per kind of Temporal server (`BENCH_CREATION_SERVERS`): by
 * default the production one, a Temporal server on PostgreSQL (`npm run cluster`'s), with one worker (`cluster`) and
 * with two (`cluster2`); the dev servers stay as options, file-backed as `npm run dev` runs it (`file`) and in memory as
 * the tests run it (`memory`). The API and the workers run from the compiled build (`dist/`, which bench.mjs builds),
 * each in its own process, as production runs them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { temporal } from '@temporalio/proto';
import { Worker, NativeConnection } from '@temporalio/worker';
import { createApiKey } from '../../src/access/api-keys';
import { accountSettings } from '../../src/carriers/account-settings';
import { sandboxCarrierAdapter } from '../../src/carriers/sandbox-adapter';
import { httpCall } from '../../src/net/http-call';
import { aCarrierAAccount, anOrderOnPlatform, aRule } from '../../test/helpers/creation';
import { startTestRun } from '../../test/helpers/global-setup';
import globalTeardown from '../../test/helpers/global-teardown';
import { aShipmentRequest } from '../../test/helpers/sandbox';
import { aStoreWithKey } from '../../test/helpers/stores';
import { startTestApp } from '../../test/helpers/test-app';
import { startCompiledApi } from './compiled-api';
import { cpuSince, formatCpu, sampleCpu } from './cpu-sample';
import { startBenchTemporalServer } from './temporal-server';
import { raiseWriteLimits } from './write-limits';

const SEQUENTIAL = Number(process.env.BENCH_CREATIONS_SEQUENTIAL ?? 30);
const CONCURRENT = Number(process.env.BENCH_CREATIONS_CONCURRENT ?? 100);
const CONCURRENCY = 20;
/** Throughput rounds: floor then creations, alternating, each side's best kept (machine noise hits both alike). */
const ROUNDS = Number(process.env.BENCH_CREATION_ROUNDS ?? 2);
type ServerKind = 'cluster' | 'cluster2' | 'file' | 'memory';
const SERVERS = (process.env.BENCH_CREATION_SERVERS ?? 'cluster,cluster2').split(',') as ServerKind[];
const SERVER_NAMES: Record<ServerKind, string> = {
  cluster: 'Temporal server on PostgreSQL, one worker',
  cluster2: 'Temporal server on PostgreSQL, two workers',
  file: 'file-backed Temporal dev server, as npm run dev runs it',
  memory: 'in-memory Temporal dev server, as the tests run it',
};

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
};

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/** `count` runs of `fn`, `concurrency` at a time; returns runs per second. */
async function throughput(
  count: number,
  concurrency: number,
  fn: (i: number, lane: number) => Promise<unknown>,
): Promise<number> {
  let next = 0;
  const start = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: concurrency }, async (_, lane) => {
      while (next < count) await fn(next++, lane);
    }),
  );
  return count / (Number(process.hrtime.bigint() - start) / 1e9);
}

/**
 * Where a creation's time goes at concurrency 20: the mean gap before each step of its history (steps numbered in
 * order, named by event type and activity), from the request's start to its answer.
 */
async function printTimeline(
  app: Awaited<ReturnType<typeof startTestApp>>,
  requests: Map<string, { startMs: number; endMs: number }>,
  what: string,
): Promise<void> {
  const gaps = new Map<string, number[]>();
  const add = (step: string, ms: number) => gaps.set(step, [...(gaps.get(step) ?? []), ms]);
  for (const [workflowId, request] of requests) {
    const history = await app.temporal.workflow.getHandle(workflowId).fetchHistory();
    let previous = request.startMs;
    history.events!.forEach((event, i) => {
      const at = Number(event.eventTime!.seconds) * 1000 + Math.floor((event.eventTime!.nanos ?? 0) / 1e6);
      const type = String(temporal.api.enums.v1.EventType[event.eventType ?? 0]).replace('EVENT_TYPE_', '');
      const activity = event.activityTaskScheduledEventAttributes?.activityType?.name ?? '';
      add(`${String(i + 1).padStart(2)} ${type} ${activity}`, at - previous);
      previous = at;
    });
    add('answer received by the client', request.endMs - previous);
  }
  console.log(`  timeline of ${requests.size} ${what} (mean ms before each step):`);
  for (const [step, values] of gaps) {
    console.log(
      `    ${step.padEnd(60)} ${(values.reduce((a, b) => a + b, 0) / values.length).toFixed(1).padStart(7)} (n=${values.length})`,
    );
  }
}

interface Ratios {
  server: ServerKind;
  /** Milliseconds of a creation's p50 beyond the floor's p50 and the carrier's. */
  overMs: number;
  throughput: number;
}

export async function creationBench(): Promise<void> {
  const ratios: Ratios[] = [];
  for (const server of SERVERS) {
    if (!(server in SERVER_NAMES))
      throw new Error(`BENCH_CREATION_SERVERS: unknown server "${server}" (cluster, cluster2, file, memory)`);
    ratios.push(await creationOn(server));
  }
  console.log('\nLabel creation against the floor, by Temporal server:');
  for (const r of ratios) {
    console.log(
      `  ${r.server.padEnd(7)} p50 over floor + carrier ${r.overMs.toFixed(0)} ms (target at most 15), throughput ratio ${r.throughput.toFixed(2)} (target at least 0.7)`,
    );
  }
}

/**
 * The bench's store: carrier A behind a rule, write limits raised, an order on the platform for every creation, and
 * four keys. At most 8 requests per key hold their answer open (spec "Limits"): each of the 20 lanes keeps to one of
 * the four keys (5 lanes each), so a key's holds never reach 8 even while the previous request's hold is being let go.
 */
async function benchStore(app: Awaited<ReturnType<typeof startTestApp>>) {
  const shop = await aStoreWithKey(app.orm);
  const keys = [shop.auth];
  for (let i = 0; i < 3; i += 1) {
    const { secret } = await createApiKey(app.orm.em.fork(), {
      storeId: shop.storeId,
      name: `bench ${i}`,
      scopes: ['labels:write'],
      now: new Date(),
    });
    keys.push({ authorization: `Bearer ${secret}` });
  }
  const account = await aCarrierAAccount(app.orm, shop.storeId);
  await aRule(app.orm, shop.storeId, { priority: 1, carrierAccountId: account.id, serviceCode: 'a_home' });
  await raiseWriteLimits(app.orm, shop.storeId, 10_000);
  const orders: Awaited<ReturnType<typeof anOrderOnPlatform>>[] = [];
  for (let i = 0; i < SEQUENTIAL + CONCURRENT * ROUNDS + 2; i += 1) orders.push(await anOrderOnPlatform(shop.domain));
  return { shop, keys, account, orders };
}

/** The timings and rates printed, and the two ratios against the floor. */
function report(
  times: { creations: number[]; floors: number[]; carrierCalls: number[] },
  rates: { creationRate: number; floorRate: number },
): Omit<Ratios, 'server'> {
  const { creations, floors, carrierCalls } = times;
  const { creationRate, floorRate } = rates;
  const line = (name: string, values: number[]) =>
    console.log(
      `  ${name.padEnd(44)} p50 ${percentile(values, 50).toFixed(0).padStart(5)} ms  p99 ${percentile(values, 99).toFixed(0).padStart(5)} ms`,
    );
  line('POST /v1/labels (201, carrier A), sequential', creations);
  line('floor: workflow + one no-op activity', floors);
  line('sandbox carrier A create + label download', carrierCalls);
  console.log(
    `  throughput at ${CONCURRENCY}, best of ${ROUNDS} rounds of ${CONCURRENT}: creations ${creationRate.toFixed(1)}/s, floor ${floorRate.toFixed(1)}/s`,
  );
  // What a creation costs beyond the unavoidable: one workflow with an activity, and the carrier's own time.
  const over = percentile(creations, 50) - (percentile(floors, 50) + percentile(carrierCalls, 50));
  console.log(`  creation p50 - (floor p50 + carrier p50): ${over.toFixed(0)} ms (target at most 15 ms)`);
  console.log(`  throughput creations / floor: ${(creationRate / floorRate).toFixed(2)} (target at least 0.7)`);
  return { overMs: over, throughput: creationRate / floorRate };
}

async function creationOn(server: ServerKind): Promise<Ratios> {
  console.log(
    `\nLabel creation: ${SEQUENTIAL} sequential, ${CONCURRENT} at concurrency ${CONCURRENCY} (${SERVER_NAMES[server]})`,
  );
  const dir = server === 'file' ? mkdtempSync(join(tmpdir(), 'sla-bench-temporal-')) : null;
  const real = server.startsWith('cluster')
    ? await startBenchTemporalServer(process.env.PG_SERVER_URL || 'postgres://postgres@127.0.0.1:5432/postgres')
    : null;
  await startTestRun({
    ...(dir ? { temporalDbFile: join(dir, 'temporal.db') } : {}),
    ...(real ? { temporalAddress: real.address } : {}),
    workers: server === 'cluster2' ? 2 : 1,
    // The workers from the compiled build with the prebuilt bundle, as production runs them (bench.mjs builds it).
    workerEntry: join(__dirname, '..', '..', 'dist', 'src', 'worker.js'),
  });
  // The in-process app only sets the bench up (stores, keys, histories); the requests go to the compiled API.
  const app = await startTestApp();
  const api = await startCompiledApi();
  const floorQueue = `bench-floor-${process.pid}`;
  const connection = await NativeConnection.connect({ address: app.config.temporal.address });
  const floorWorker = await Worker.create({
    connection,
    taskQueue: floorQueue,
    workflowsPath: require.resolve('./floor-workflows'),
    activities: { noop: async () => undefined },
  });
  const floorRun = floorWorker.run();
  try {
    const { shop, keys, account, orders } = await benchStore(app);
    let used = 0;
    /** BENCH_CREATION_TRACE=1: when each traced creation's request started and ended, for the timelines below. */
    const trace = process.env.BENCH_CREATION_TRACE === '1';
    let requests = new Map<string, { startMs: number; endMs: number }>();
    const floorRequests = new Map<string, { startMs: number; endMs: number }>();
    let tracing = false;
    const createOne = async (lane = 0) => {
      const n = used++;
      const order = orders[n]!;
      const startMs = Date.now();
      // A plain request, as a merchant's server sends it: the test suite's contract check is not the service's time.
      // node:http with kept-alive connections, as a merchant's server would: fetch's own CPU is not the service's.
      const res = await httpCall({
        url: `${api.baseUrl}/v1/labels`,
        method: 'POST',
        headers: {
          ...keys[lane % keys.length],
          'Idempotency-Key': `bench-${order.orderId}`,
          Prefer: 'wait=60',
          'content-type': 'application/json',
        },
        body: JSON.stringify({ order_id: order.orderId }),
        timeoutMs: 120_000,
      });
      if (res.status !== 201) throw new Error(`creation answered ${res.status}: ${res.bytes.toString().slice(0, 300)}`);
      if (tracing)
        requests.set(`label-creation/${shop.storeId}/bench-${order.orderId}`, { startMs, endMs: Date.now() });
    };
    const floorOne = async (i: number) => {
      const startMs = Date.now();
      const workflowId = `floor-${process.pid}-${i}-${startMs}`;
      await app.temporal.workflow.execute('floorWorkflow', { taskQueue: floorQueue, workflowId });
      if (tracing) floorRequests.set(workflowId, { startMs, endMs: Date.now() });
    };
    const settings = accountSettings(account);
    const carrier = sandboxCarrierAdapter('carrier_a', { baseUrl: app.config.sandboxUrl, timeoutMs: 10_000 });

    // Warm-up: bundles loaded, connections open, first queries planned.
    await createOne();
    await floorOne(-1);
    const creations: number[] = [];
    const floors: number[] = [];
    const carrierCalls: number[] = [];
    tracing = trace;
    for (let i = 0; i < SEQUENTIAL; i += 1) {
      creations.push(await timed(() => createOne()));
      floors.push(await timed(() => floorOne(i)));
      // Carrier A serves the label apart from the create: its own time for a label is both calls.
      carrierCalls.push(
        await timed(async () => {
          const shipment = await carrier.createShipment(settings, aShipmentRequest({ serviceCode: 'a_home' }));
          await carrier.fetchLabel(settings, shipment.shipmentId);
        }),
      );
    }
    if (tracing) {
      await printTimeline(app, requests, 'creations one at a time');
      await printTimeline(app, floorRequests, 'floor workflows one at a time');
    }
    requests = new Map();
    tracing = false;
    // The floor goes first in each round, on a server that is not still finishing the previous round's creations.
    let floorRate = 0;
    let creationRate = 0;
    // CPU per workflow of every process, over every round of each side (BENCH_CREATION_CPU=1).
    const cpu = process.env.BENCH_CREATION_CPU === '1';
    const floorCpu = new Map<string, number>();
    const creationCpu = new Map<string, number>();
    // Reads every process's /proc entries: only when asked, so a plain run does no more than before.
    const sample = () => (cpu ? sampleCpu() : null);
    const add = (total: Map<string, number>, before: ReturnType<typeof sample>) => {
      if (!before) return;
      for (const [role, ms] of cpuSince(before)) total.set(role, (total.get(role) ?? 0) + ms);
    };
    for (let round = 0; round < ROUNDS; round += 1) {
      let before = sample();
      floorRate = Math.max(
        floorRate,
        await throughput(CONCURRENT, CONCURRENCY, (i) => floorOne(1000 * (round + 1) + i)),
      );
      add(floorCpu, before);
      tracing = trace && round === ROUNDS - 1;
      before = sample();
      creationRate = Math.max(creationRate, await throughput(CONCURRENT, CONCURRENCY, (_, lane) => createOne(lane)));
      add(creationCpu, before);
    }
    if (cpu) {
      console.log(`  CPU at ${CONCURRENCY} at once, all rounds, floor:`);
      for (const row of formatCpu(floorCpu, CONCURRENT * ROUNDS, 'workflow')) console.log(row);
      console.log(`  CPU at ${CONCURRENCY} at once, all rounds, creations:`);
      for (const row of formatCpu(creationCpu, CONCURRENT * ROUNDS, 'creation')) console.log(row);
    }
    if (tracing) await printTimeline(app, requests, `creations at ${CONCURRENCY}`);
    return { server, ...report({ creations, floors, carrierCalls }, { creationRate, floorRate }) };
  } finally {
    floorWorker.shutdown();
    await floorRun;
    await connection.close();
    await api.stop();
    await app.close();
    await globalTeardown();
    await real?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * `npm run bench -- memory`: the worker's resident memory as it holds more and more creations open in
 * `needs_attention` (each one a workflow waiting on its durable timer, in the worker's sticky cache), from the compiled
 * build with its prebuilt bundle, as production runs it. The carrier answers every create with a 500, so the outcome of
 * each is unknown and it waits for a look or a resolve. Prints the RSS at each step and what a workflow costs, from
 * which the worker's default cache size is set (docs/benchmarks.md, "Worker memory").
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { aCarrierAAccount, anOrderOnPlatform, aRule } from '../../test/helpers/creation';
import { startTestRun, type TestRun } from '../../test/helpers/global-setup';
import globalTeardown from '../../test/helpers/global-teardown';
import { scriptFaults } from '../../test/helpers/sandbox';
import { aStoreWithKey } from '../../test/helpers/stores';
import { startTestApp } from '../../test/helpers/test-app';
import { raiseWriteLimits } from './write-limits';

const OPEN = Number(process.env.BENCH_MEMORY_CREATIONS ?? 1_000);
const STEPS = 4;
const CONCURRENCY = 20;

function rssMiB(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rss: kib('VmRSS') / 1024, peak: kib('VmHWM') / 1024 };
}

async function inLanes(count: number, lanes: number, fn: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: lanes }, async () => {
      while (next < count) await fn(next++);
    }),
  );
}

export async function memoryBench(): Promise<void> {
  const cache = process.env.BENCH_MEMORY_CACHE ?? 'the default';
  console.log(
    `\nWorker memory: up to ${OPEN} creations open in needs_attention (compiled worker, prebuilt bundle, sticky cache ${cache})`,
  );
  // Every create fails the same way at the same account: nothing may trip the carrier's protection first.
  Object.assign(process.env, {
    CARRIER_CIRCUIT_THRESHOLD: String(OPEN * 10),
    CARRIER_ACCOUNT_REJECTING_LIMIT: String(OPEN * 10),
    REPEATED_REJECTION_LIMIT: String(OPEN * 10),
  });
  // BENCH_MEMORY_CACHE=<n>: the worker's sticky cache size for this run (the service's default otherwise).
  if (process.env.BENCH_MEMORY_CACHE) process.env.WORKER_MAX_CACHED_WORKFLOWS = process.env.BENCH_MEMORY_CACHE;
  await startTestRun({ workerEntry: join(__dirname, '..', '..', 'dist', 'src', 'worker.js') });
  const run = (globalThis as unknown as { __testRun: TestRun }).__testRun;
  const worker = run.children.find((child: ChildProcess) => child.spawnargs.some((a) => a.endsWith('worker.js')))!;
  const app = await startTestApp();
  try {
    const shop = await aStoreWithKey(app.orm);
    const account = await aCarrierAAccount(app.orm, shop.storeId);
    await aRule(app.orm, shop.storeId, { priority: 1, carrierAccountId: account.id, serviceCode: 'a_home' });
    await raiseWriteLimits(app.orm, shop.storeId, 100_000);
    // The sandbox takes at most 1,000 of a fault at a time: as many entries as needed, used in turn.
    const faults = Array.from({ length: Math.ceil((OPEN + 10) / 1000) }, () => ({ type: 'server_error', times: 1000 }));
    await scriptFaults(account.id, faults);
    const orders: Array<Awaited<ReturnType<typeof anOrderOnPlatform>>> = [];
    for (let i = 0; i < OPEN; i += 1) orders.push(await anOrderOnPlatform(shop.domain));
    const open = async () =>
      Number(
        (
          await app.orm.em
            .fork()
            .execute<Array<{ n: string }>>(
              `select count(*) as n from label_creations where store_id = ? and status = 'needs_attention'`,
              [shop.storeId],
            )
        )[0]!.n,
      );
    const create = (i: number) =>
      app.request('POST', '/v1/labels', {
        headers: { ...shop.auth, 'Idempotency-Key': `memory-${orders[i]!.orderId}`, Prefer: 'wait=0' },
        body: { order_id: orders[i]!.orderId },
      });
    const before = rssMiB(worker.pid!);
    console.log(`  worker idle after start: RSS ${before.rss.toFixed(0)} MiB`);
    let made = 0;
    let previous = before.rss;
    for (let step = 1; step <= STEPS; step += 1) {
      const target = Math.round((OPEN * step) / STEPS);
      await inLanes(target - made, CONCURRENCY, (i) => create(made + i));
      made = target;
      const deadline = Date.now() + 300_000;
      while ((await open()) < target && Date.now() < deadline) await new Promise((r) => setTimeout(r, 500));
      // Let the last activities' buffers go before reading.
      await new Promise((r) => setTimeout(r, 2_000));
      const now = rssMiB(worker.pid!);
      console.log(
        `  ${String(await open()).padStart(5)} open: RSS ${now.rss.toFixed(0).padStart(5)} MiB (+${((1024 * (now.rss - previous)) / (target - Math.round((OPEN * (step - 1)) / STEPS))).toFixed(0)} KiB per creation since the last step), peak ${now.peak.toFixed(0)} MiB`,
      );
      previous = now.rss;
    }
    const after = rssMiB(worker.pid!);
    console.log(
      `  per open creation overall: ${((1024 * (after.rss - before.rss)) / OPEN).toFixed(0)} KiB (RSS ${before.rss.toFixed(0)} -> ${after.rss.toFixed(0)} MiB)`,
    );
  } finally {
    await app.close();
    await globalTeardown();
  }
}

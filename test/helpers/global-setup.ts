import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { Client } from 'pg';
import { migrate } from '../../src/db/migrator';
import { openOrm } from '../../src/db/orm';
import dynamicConfig from '../../src/temporal/dev-server-config.json';
import searchAttributes from '../../src/temporal/search-attributes.json';
import { endWithThisProcess, freePort, spawnTs, waitForPort } from './processes';

const root = join(__dirname, '..', '..');
/** The worker's `PUBLIC_BASE_URL` (only webhook payloads read it there). */
export const WORKER_PUBLIC_BASE_URL = 'https://labels.example.test';

export interface TestRun {
  children: ChildProcess[];
  serverUrl: string;
  database: string;
}

function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

export interface TestRunOptions {
  /**
   * The Temporal dev server's SQLite file, as `npm run dev` runs it; in memory without one (about 3x faster here, what
   * the tests use). The creation benchmark measures on both.
   */
  temporalDbFile?: string;
  /**
   * A Temporal server already running and set up (namespace and search attributes), instead of a dev server of the
   * run's own: the creation benchmark's real server on PostgreSQL.
   */
  temporalAddress?: string;
  /** Workers on the run's task queue (default 1); the first one manages the Schedules. */
  workers?: number;
  /** The workers' entry point: the source by default; the benchmarks run the compiled build (`dist/src/worker.js`). */
  workerEntry?: string;
}

/**
 * Starts what integration tests talk to, once per run: a Temporal dev server on free ports, a fresh PostgreSQL
 * database with the migrations applied, and the worker. `npm test` resolves the Temporal CLI and the PostgreSQL
 * server first (TEMPORAL_CLI_PATH, PG_SERVER_URL); jest run on its own falls back to PATH and 127.0.0.1:5432.
 */
export default function globalSetup(): Promise<void> {
  return startTestRun();
}

export async function startTestRun(options: TestRunOptions = {}): Promise<void> {
  // Several jest projects (integration, integration-shopify) share one run: the first one's setup starts it.
  if ((globalThis as unknown as { __testRun?: TestRun }).__testRun) return;
  const started = Date.now();
  const cli = process.env.TEMPORAL_CLI_PATH || 'temporal';
  const serverUrl = process.env.PG_SERVER_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
  const children: ChildProcess[] = [];
  endWithThisProcess(children);

  const temporalPort = options.temporalAddress ? 0 : await freePort();
  const args = [
    'server',
    'start-dev',
    '--headless',
    '--ip',
    '127.0.0.1',
    '--port',
    String(temporalPort),
    '--log-level',
    'error',
  ];
  args.push('--http-port', String(await freePort()), '--metrics-port', String(await freePort()));
  if (options.temporalDbFile) args.push('--db-filename', options.temporalDbFile);
  for (const [key, type] of Object.entries(searchAttributes)) args.push('--search-attribute', `${key}=${type}`);
  // One task-queue partition, as `npm run dev` (docs/decisions/0022-dev-server-partitions.md).
  for (const [key, value] of Object.entries(dynamicConfig))
    args.push('--dynamic-config-value', `${key}=${JSON.stringify(value)}`);
  const temporal = options.temporalAddress ? null : spawn(cli, args, { stdio: ['ignore', 'ignore', 'inherit'] });
  if (temporal) children.push(temporal);
  const spawnFailed = new Promise<never>((_, reject) =>
    temporal?.once('error', (error) =>
      reject(
        new Error(
          `cannot start the Temporal CLI "${cli}" (${error.message}); run the tests with \`npm test\`, which finds or builds it`,
        ),
      ),
    ),
  );
  spawnFailed.catch(() => undefined);

  const database = `sla_test_${process.pid}_${Date.now()}`;
  const admin = new Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`create database "${database}"`);
  await admin.end();
  const databaseUrl = withDatabase(serverUrl, database);
  const orm = await openOrm(databaseUrl);
  await migrate(orm);
  await orm.close();

  if (temporal) await Promise.race([waitForPort(temporalPort, 'Temporal dev server', temporal), spawnFailed]);

  // The sandbox (store platform and carrier simulators) on a free port; tests and the worker reach it by SANDBOX_URL.
  const sandboxPort = await freePort();
  const sandboxUrl = `http://127.0.0.1:${sandboxPort}`;
  // BENCH_CPU_PROF=<dir> (npm run bench): a V8 CPU profile of the sandbox and of the worker's threads, written as they
  // stop.
  const profile = process.env.BENCH_CPU_PROF ? ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_CPU_PROF] : [];
  await spawnTs(
    join(root, 'src', 'sandbox-server.ts'),
    { ...process.env, SANDBOX_PORT: String(sandboxPort), LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'warn' },
    'sandbox',
    undefined,
    profile,
    (child) => children.push(child),
  );

  // The one loopback origin the worker may deliver webhooks to over plain HTTP besides the sandbox
  // (LOCAL_OUTBOUND_ORIGINS, decision 0609), where a test's own receiver listens (localReceiverOrigin()). The API
  // processes and labelctl of the tests run without the setting unless a test gives it.
  const localReceiverOrigin = `http://127.0.0.1:${await freePort()}`;
  // Stores connected to Shopify (labelctl store connect) reach the sandbox's fake Shopify (src/platform/shopify-fake).
  const shopifyAdminUrl = `${sandboxUrl}/shopify/{shop}/admin/api/{version}/graphql.json`;
  const env = {
    ...process.env,
    SANDBOX_URL: sandboxUrl,
    SHOPIFY_ADMIN_URL: shopifyAdminUrl,
    // Carrier A accounts on the `packeta` endpoint call the sandbox's fake Packeta.
    PACKETA_API_URL: `${sandboxUrl}/packeta/api/rest`,
    LOCAL_OUTBOUND_ORIGINS: localReceiverOrigin,
    NODE_ENV: 'test' as const,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'warn',
    DATABASE_URL: databaseUrl,
    TEMPORAL_ADDRESS: options.temporalAddress ?? `127.0.0.1:${temporalPort}`,
    TEMPORAL_TASK_QUEUE: `shipping-label-test-${process.pid}`,
    REQUEST_LOG_PURGE_INTERVAL: '1h',
    // A carrier that holds the connection is given up on after 2 s (the spec's behaviour, at test speed).
    CARRIER_TIMEOUT: '2s',
    // The base of URLs in webhook payloads; the webhook tests start their app with the same.
    PUBLIC_BASE_URL: WORKER_PUBLIC_BASE_URL,
    // Webhook deliveries retry within seconds instead of over 24 hours.
    WEBHOOK_TIMEOUT: '2s',
    WEBHOOK_RETRY_INITIAL: '200ms',
    WEBHOOK_RETRY_MAX_INTERVAL: '1s',
    WEBHOOK_RETRY_WINDOW: '2m',
  };
  // The first worker's Prometheus endpoint, which the metrics tests scrape (TEST_WORKER_METRICS_URL).
  const workerMetricsPort = await freePort();
  for (let i = 0; i < (options.workers ?? 1); i += 1)
    await spawnTs(
      options.workerEntry ?? join(root, 'src', 'worker.ts'),
      {
        ...env,
        WORKER_MANAGES_SCHEDULES: i === 0 ? 'true' : 'false',
        ...(i === 0 ? { WORKER_METRICS_PORT: String(workerMetricsPort) } : {}),
      },
      i === 0 ? 'worker' : `worker-${i + 1}`,
      undefined,
      profile,
      (child) => children.push(child),
    );

  Object.assign(process.env, {
    DATABASE_URL: env.DATABASE_URL,
    TEMPORAL_ADDRESS: env.TEMPORAL_ADDRESS,
    TEMPORAL_TASK_QUEUE: env.TEMPORAL_TASK_QUEUE,
    NODE_ENV: 'test',
    LOG_LEVEL: env.LOG_LEVEL,
    SANDBOX_URL: sandboxUrl,
    SHOPIFY_ADMIN_URL: shopifyAdminUrl,
    PACKETA_API_URL: env.PACKETA_API_URL,
    CARRIER_TIMEOUT: env.CARRIER_TIMEOUT,
    WEBHOOK_TIMEOUT: env.WEBHOOK_TIMEOUT,
    WEBHOOK_RETRY_INITIAL: env.WEBHOOK_RETRY_INITIAL,
    WEBHOOK_RETRY_MAX_INTERVAL: env.WEBHOOK_RETRY_MAX_INTERVAL,
    WEBHOOK_RETRY_WINDOW: env.WEBHOOK_RETRY_WINDOW,
    TEST_LOCAL_RECEIVER_ORIGIN: localReceiverOrigin,
    TEST_WORKER_METRICS_URL: `http://127.0.0.1:${workerMetricsPort}/metrics`,
  });
  (globalThis as unknown as { __testRun: TestRun }).__testRun = { children, serverUrl, database };
  process.stderr.write(
    `\n[test setup] Temporal, database ${database}, sandbox and worker ready in ${Date.now() - started} ms\n`,
  );
}

#!/usr/bin/env node
// `npm run dev`: everything the service needs on one machine. Dependencies, the Temporal dev server with its Web UI
// (state kept under .data/), PostgreSQL, migrations, the sandbox, the worker, the API, a seeded demo store and a
// printed API key. Ctrl-C stops every child process. How to reach it (database, sandbox, Temporal) is written to
// .data/local-service.env while it runs, where labelctl finds it (src/cli/local-service.ts).
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { ensureDependencies } from './lib/deps.mjs';
import { step } from './lib/log.mjs';
import { runOnServiceNode } from './lib/node-runtime.mjs';
import { dataDir, projectRoot } from './lib/paths.mjs';
import { announceLocalService } from './lib/local-service.mjs';
import {
  bannerText,
  firstRequests,
  freshOrdersText,
  keepBannerAtHand,
  LABELCTL,
  labelledOrders,
} from './lib/banner.mjs';

await runOnServiceNode();
ensureDependencies();
const { findTemporalCli } = await import('./lib/temporal-cli.mjs');
const { findPostgres, appDatabase, checkoutDatabaseName } = await import('./lib/postgres.mjs');
const { startTemporalServer } = await import('./lib/temporal-server.mjs');
const { stopChild } = await import('./lib/stop-child.mjs');
const { freePort, isPortOpen, waitForPort } = await import('./lib/ports.mjs');

mkdirSync(dataDir, { recursive: true });
const children = [];
let releaseLocalService = () => {};
let releaseBanner = () => {};
let stopping = false;
let postgres;
async function stopAll(code = 0) {
  if (stopping) return;
  stopping = true;
  releaseBanner();
  step('stopping...');
  for (const child of [...children].reverse()) await stopChild(child.process);
  await postgres?.stop();
  releaseLocalService();
  process.exit(code);
}
process.on('SIGINT', () => void stopAll(0));
process.on('SIGTERM', () => void stopAll(0));
// The terminal closed: stop as for Ctrl-C rather than leave the processes behind.
process.on('SIGHUP', () => void stopAll(0));

const port = Number(process.env.PORT || 3000);
const temporalPort = Number(process.env.TEMPORAL_PORT || 7233);
const uiPort = Number(process.env.TEMPORAL_UI_PORT || 8233);
const sandboxPort = Number(process.env.SANDBOX_PORT || 4010);
// The worker's Prometheus endpoint (the API's /metrics is on its own port): 9464 as in docker-compose.yml, another free
// port when that one is taken (a second checkout's dev).
const workerMetricsPort = process.env.WORKER_METRICS_PORT
  ? Number(process.env.WORKER_METRICS_PORT)
  : (await isPortOpen(9464))
    ? await freePort()
    : 9464;

// `npm run dev -- --packeta`: the demo's carrier A account calls the sandbox's fake Packeta through the Packeta adapter
// (docs/carriers/packeta.md) instead of the sandbox's carrier A.
const packeta = process.argv.includes('--packeta');

postgres = await findPostgres();
// This checkout's own database (named after it), so another checkout's tests and creations never show here.
const databaseUrl = await appDatabase(postgres.url, checkoutDatabaseName());
// `not_created` is refused for 15 minutes after the carrier call in production; a minute here, so the resolve of an
// unclear creation can be tried in the first hour (the banner says so; decision 0043).
const resolveAllowedAfter = process.env.RESOLVE_ALLOWED_AFTER || '1m';
const env = {
  ...process.env,
  NODE_ENV: 'development',
  PORT: String(port),
  DATABASE_URL: databaseUrl,
  TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS || `127.0.0.1:${temporalPort}`,
  SANDBOX_URL: process.env.SANDBOX_URL || `http://127.0.0.1:${sandboxPort}`,
  SANDBOX_PORT: String(sandboxPort),
  RESOLVE_ALLOWED_AFTER: resolveAllowedAfter,
  // With the fake's network as Packeta's feed, imported by the worker (docs/operators.md, "Packeta pickup-point feed").
  ...(packeta
    ? {
        PACKETA_API_URL: `${process.env.SANDBOX_URL || `http://127.0.0.1:${sandboxPort}`}/packeta/api/rest`,
        PACKETA_FEED_URL: `${process.env.SANDBOX_URL || `http://127.0.0.1:${sandboxPort}`}/packeta-feed/v5`,
        PACKETA_FEED_API_KEY: process.env.PACKETA_FEED_API_KEY || 'sandboxfeedkey',
      }
    : {}),
  // The console is for a person when it is a terminal: a short coloured line each (pino-pretty), a line per request
  // (LOG_REQUESTS=errors or none for fewer); JSON lines otherwise, as in production (LOG_FORMAT chooses either way).
  LOG_FORMAT: process.env.LOG_FORMAT || (process.stdout.isTTY ? 'pretty' : 'json'),
};
releaseLocalService = announceLocalService('npm run dev', {
  DATABASE_URL: databaseUrl,
  SANDBOX_URL: env.SANDBOX_URL,
  TEMPORAL_ADDRESS: env.TEMPORAL_ADDRESS,
  TEMPORAL_NAMESPACE: process.env.TEMPORAL_NAMESPACE || 'default',
  TEMPORAL_UI_URL: process.env.TEMPORAL_UI_URL || `http://127.0.0.1:${uiPort}`,
});

step('running migrations');
const migrated = spawnSync(process.execPath, ['--import', 'tsx', 'src/migrate.ts'], {
  cwd: projectRoot,
  env,
  stdio: 'inherit',
});
if (migrated.status !== 0) await stopAll(1);

if (!process.env.TEMPORAL_ADDRESS) {
  if (await isPortOpen(temporalPort)) {
    step(`port ${temporalPort} is taken: using the Temporal server already running there`);
  } else {
    const cli = await findTemporalCli();
    const logFile = openSync(join(dataDir, 'temporal.log'), 'a');
    const temporal = await startTemporalServer({
      cli,
      port: temporalPort,
      uiPort,
      dbFile: join(dataDir, 'temporal.db'),
      logFile,
    });
    step(`Temporal server log: ${join(dataDir, 'temporal.log')}`);
    children.push({ name: 'temporal', process: temporal });
  }
}

// The namespace and search attributes the workflows need (the dev server registers them too; another server in
// TEMPORAL_ADDRESS does not): the same idempotent step as every deploy's. The dev server's namespace keeps a day.
const setUp = spawnSync(process.execPath, ['--import', 'tsx', 'src/temporal/setup.ts'], {
  cwd: projectRoot,
  env: { TEMPORAL_NAMESPACE_RETENTION: '1d', ...env },
  stdio: 'inherit',
});
if (setUp.status !== 0) await stopAll(1);

function startTs(name, entry, { waitPort, extraEnv = {} } = {}) {
  const child = spawn(process.execPath, ['--import', 'tsx', entry], {
    cwd: projectRoot,
    env: { ...env, ...extraEnv },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  children.push({ name, process: child });
  child.once('exit', (code) => {
    if (!stopping) {
      step(`${name} exited with ${code}; stopping everything`);
      void stopAll(1);
    }
  });
  return new Promise((resolve, reject) => {
    if (waitPort) {
      waitForPort(waitPort, { what: name, alive: () => child.exitCode === null }).then(() => resolve(child), reject);
    } else {
      child.on('message', (message) => message?.type === 'ready' && resolve(child));
    }
  });
}

const optional = (entry) => import('node:fs').then((fs) => fs.existsSync(join(projectRoot, entry)));
if (await optional('src/sandbox-server.ts')) await startTs('sandbox', 'src/sandbox-server.ts');
await startTs('worker', 'src/worker.ts', { extraEnv: { WORKER_METRICS_PORT: String(workerMetricsPort) } });
await startTs('api', 'src/server.ts', { waitPort: port });

const seedArgs = [
  '--import',
  'tsx',
  'src/dev/seed-demo.ts',
  join(dataDir, 'demo-api-key'),
  ...(packeta ? ['--packeta'] : []),
];
const seeded = spawnSync(process.execPath, seedArgs, {
  cwd: projectRoot,
  env,
  encoding: 'utf8',
  stdio: ['ignore', 'pipe', 'inherit'],
});
if (seeded.status !== 0) await stopAll(1);
const demo = JSON.parse(seeded.stdout.trim().split('\n').pop());

const base = `http://127.0.0.1:${port}`;
// A DATABASE_URL of one's own is printed without its password (the file has it); the embedded server's is a dev one.
const shownDatabaseUrl = (() => {
  const url = new URL(databaseUrl);
  if (process.env.DATABASE_URL && url.password) url.password = '***';
  return url.toString();
})();
const rows = (labelled) => [
  ['API base URL', `${base}/v1`],
  ['OpenAPI', `${base}/v1/openapi.json`],
  ['API reference', `${base}/v1/docs`],
  ['Temporal Web UI', `http://127.0.0.1:${uiPort}`],
  ['Metrics', `API ${base}/metrics  worker http://127.0.0.1:${workerMetricsPort}/metrics`],
  [
    'Database',
    `${shownDatabaseUrl}\n${process.env.DATABASE_URL ? 'from DATABASE_URL' : "this checkout's own (DATABASE_URL chooses another)"}`,
  ],
  ['Sandbox', env.SANDBOX_URL],
  ...(packeta ? [['Carrier A', `ca_demo_a on the fake Packeta (${env.PACKETA_API_URL})`]] : []),
  ['labelctl', `${LABELCTL} <command>: finds the database, sandbox and Temporal above in .data/local-service.env`],
  [
    'Resolve wait',
    `not_created is accepted ${resolveAllowedAfter} after the carrier call (RESOLVE_ALLOWED_AFTER; 15m in production)`,
  ],
  ['Demo store', `${demo.domain} (${demo.store_id})`],
  ['Fresh orders', freshOrdersText(demo.fresh_orders, labelled)],
  ['API key', `${demo.api_key}\nalso in .data/demo-api-key`],
];
// Printed again on Enter with the fresh orders as they are then: those labelled since say so.
const render = (labelled = new Set()) =>
  bannerText({
    title: 'Shipping Label API is running.',
    rows: rows(labelled),
    tries: firstRequests({
      base,
      apiKey: demo.api_key,
      orders: demo.fresh_orders.filter((o) => !labelled.has(o.order_id)),
    }),
    footer: [
      `Ctrl-C stops everything. ${process.stdin.isTTY ? 'Enter or ' : ''}kill -USR2 ${process.pid} prints this again.`,
    ],
  });
// Last, after everything logged its start; the console goes on below it, so it is printed again when asked.
process.stdout.write(render());
releaseBanner = keepBannerAtHand(async () =>
  render(await labelledOrders({ base, apiKey: demo.api_key, orders: demo.fresh_orders })),
);
// A parent that started this script (the docs test, test/docs/) learns where everything is.
process.send?.({
  type: 'ready',
  base_url: `${base}/v1`,
  sandbox_url: env.SANDBOX_URL,
  temporal_address: env.TEMPORAL_ADDRESS,
  database_url: databaseUrl,
  api_key: demo.api_key,
  fresh_orders: demo.fresh_orders,
});

#!/usr/bin/env node
// `npm run dev`: everything the service needs on one machine. Dependencies, the Temporal dev server with its Web UI
// (state kept under .data/), PostgreSQL, migrations, the sandbox, the worker, the API, a seeded demo store and a
// printed API key. Ctrl-C stops every child process. The database's URL is written to .data/database-url while it
// runs, where labelctl finds it when DATABASE_URL is not set (src/cli/database-url.ts).
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureDependencies } from './lib/deps.mjs';
import { step } from './lib/log.mjs';
import { runOnServiceNode } from './lib/node-runtime.mjs';
import { dataDir, projectRoot } from './lib/paths.mjs';

await runOnServiceNode();
ensureDependencies();
const { findTemporalCli } = await import('./lib/temporal-cli.mjs');
const { findPostgres, appDatabase } = await import('./lib/postgres.mjs');
const { startTemporalServer } = await import('./lib/temporal-server.mjs');
const { stopChild } = await import('./lib/stop-child.mjs');
const { isPortOpen, waitForPort } = await import('./lib/ports.mjs');

mkdirSync(dataDir, { recursive: true });
// The same path as DEV_DATABASE_URL_FILE in src/cli/database-url.ts. A file left by a killed run names a stopped server.
const databaseUrlFile = join(dataDir, 'database-url');
rmSync(databaseUrlFile, { force: true });
const children = [];
let stopping = false;
let postgres;
async function stopAll(code = 0) {
  if (stopping) return;
  stopping = true;
  step('stopping...');
  for (const child of [...children].reverse()) await stopChild(child.process);
  await postgres?.stop();
  rmSync(databaseUrlFile, { force: true });
  process.exit(code);
}
process.on('SIGINT', () => void stopAll(0));
process.on('SIGTERM', () => void stopAll(0));

const port = Number(process.env.PORT || 3000);
const temporalPort = Number(process.env.TEMPORAL_PORT || 7233);
const uiPort = Number(process.env.TEMPORAL_UI_PORT || 8233);
const sandboxPort = Number(process.env.SANDBOX_PORT || 4010);

postgres = await findPostgres();
const databaseUrl = await appDatabase(postgres.url, 'shipping_label_api');
// Only this user may read it: a DATABASE_URL of one's own may carry a password.
writeFileSync(databaseUrlFile, `${databaseUrl}\n`, { mode: 0o600 });
const env = {
  ...process.env,
  NODE_ENV: 'development',
  PORT: String(port),
  DATABASE_URL: databaseUrl,
  TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS || `127.0.0.1:${temporalPort}`,
  SANDBOX_URL: process.env.SANDBOX_URL || `http://127.0.0.1:${sandboxPort}`,
  SANDBOX_PORT: String(sandboxPort),
};

step('running migrations');
const migrated = spawnSync(process.execPath, ['--import', 'tsx', 'src/db/migrate.ts'], {
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

function startTs(name, entry, { waitPort } = {}) {
  const child = spawn(process.execPath, ['--import', 'tsx', entry], {
    cwd: projectRoot,
    env,
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
if (await optional('src/sandbox/server.ts')) await startTs('sandbox', 'src/sandbox/server.ts');
await startTs('worker', 'src/worker.ts');
await startTs('api', 'src/server.ts', { waitPort: port });

const seeded = spawnSync(process.execPath, ['--import', 'tsx', 'src/dev/seed-demo.ts', join(dataDir, 'demo-api-key')], {
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
process.stdout.write(`
  Shipping Label API is running.

  API base URL     ${base}/v1
  OpenAPI          ${base}/v1/openapi.json
  API reference    ${base}/v1/docs
  Temporal Web UI  http://127.0.0.1:${uiPort}
  Database         ${shownDatabaseUrl} (in .data/database-url: npx labelctl uses it)
  Demo store       ${demo.domain} (${demo.store_id})
  API key          ${demo.api_key}

  Try:  curl -H "Authorization: Bearer ${demo.api_key}" ${base}/v1/shop

  Ctrl-C stops everything.
`);

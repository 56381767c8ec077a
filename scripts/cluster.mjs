#!/usr/bin/env node
// `npm run cluster`: the production shape on one machine, without Docker. A real Temporal server on PostgreSQL (built
// from the Go module proxy once and cached per user), its schemas set up and upgraded by temporal-sql-tool, its Web UI,
// the migrations and the Temporal setup step, then two workers and two API processes from the compiled build (`npm run
// build`), with the sandbox as carrier and store platform. Long-running processes are restarted when they exit, as a
// process manager would; Ctrl-C stops everything. State and logs are kept under .data/cluster/.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ensureDependencies } from './lib/deps.mjs';
import { step } from './lib/log.mjs';
import { runOnServiceNode } from './lib/node-runtime.mjs';
import { dataDir, projectRoot } from './lib/paths.mjs';
import { announceLocalService } from './lib/local-service.mjs';
import { bannerText, firstRequests, freshOrdersText, keepBannerAtHand, LABELCTL } from './lib/banner.mjs';

await runOnServiceNode();
ensureDependencies();
const { findPostgres, appDatabase } = await import('./lib/postgres.mjs');
const { isPortOpen, waitForPort } = await import('./lib/ports.mjs');
const { createSupervisor, readyMessage } = await import('./lib/supervisor.mjs');
const cluster = await import('./lib/temporal-cluster.mjs');

const clusterDir = process.env.CLUSTER_DATA_DIR || join(dataDir, 'cluster');
const logDir = join(clusterDir, 'logs');
// CLUSTER_BUILD_DIR: where `npm run build` writes the compiled service the processes run (default dist/).
const buildDir = process.env.CLUSTER_BUILD_DIR
  ? resolve(projectRoot, process.env.CLUSTER_BUILD_DIR)
  : join(projectRoot, 'dist');
mkdirSync(logDir, { recursive: true });

// Defaults beside `npm run dev`'s (3000, 7233, 8233, 4010), so both can run at once.
const apiPorts = [Number(process.env.PORT || 3100), Number(process.env.PORT || 3100) + 1];
const temporalPort = Number(process.env.TEMPORAL_PORT || 7333);
const uiPort = Number(process.env.TEMPORAL_UI_PORT || 8333);
const sandboxPort = Number(process.env.SANDBOX_PORT || 4110);
// The workers' Prometheus endpoints, the first one's and the next (beside npm run dev's 9464).
const workerMetricsPorts = [
  Number(process.env.WORKER_METRICS_PORT || 9564),
  Number(process.env.WORKER_METRICS_PORT || 9564) + 1,
];
const namespace = process.env.TEMPORAL_NAMESPACE || 'default';

let postgres;
let releaseLocalService = () => {};
let releaseBanner = () => {};
const supervisor = createSupervisor({ onChange: () => writeProcesses() });
let stopping = false;
async function stopAll(code = 0) {
  if (stopping) return;
  stopping = true;
  releaseBanner();
  step('stopping...');
  await supervisor.stopAll();
  await postgres?.stop();
  releaseLocalService();
  process.exit(code);
}
process.on('SIGINT', () => void stopAll(0));
process.on('SIGTERM', () => void stopAll(0));
// The terminal closed: stop as for Ctrl-C rather than leave the processes behind.
process.on('SIGHUP', () => void stopAll(0));
const fail = async (error) => {
  step(`cluster failed: ${error.message}`);
  await stopAll(1);
};

/** What stays the same from one start to the next: the secrets production requires, the server's internal ports. */
async function clusterState() {
  const file = join(clusterDir, 'state.json');
  const saved = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {};
  const state = {
    cursorSecret: saved.cursorSecret ?? randomBytes(32).toString('hex'),
    settingsEncryptionKey: saved.settingsEncryptionKey ?? randomBytes(32).toString('base64'),
    ports: { ...saved.ports },
  };
  // Membership ports are recorded in Temporal's database: the same ones at every start keep a restart from waiting
  // on the addresses of the previous run. None is a port given to another of the cluster's processes (not listening
  // yet, so a probe would find it free) or to another service.
  const taken = [...apiPorts, temporalPort, uiPort, sandboxPort, ...workerMetricsPorts];
  for (const name of [
    'frontendHttp',
    'frontendMembership',
    'history',
    'historyMembership',
    'matching',
    'matchingMembership',
    'worker',
    'workerMembership',
    'metrics',
  ])
    if (!state.ports[name] || taken.includes(state.ports[name]) || (await isPortOpen(state.ports[name])))
      taken.push((state.ports[name] = await cluster.freeServicePort(taken)));
    else taken.push(state.ports[name]);
  state.ports.frontend = temporalPort;
  writeFileSync(file, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
  return state;
}

function writeProcesses() {
  const pids = Object.fromEntries(supervisor.processes.map(({ name, child }) => [name, child?.pid ?? null]));
  writeFileSync(join(clusterDir, 'processes.json'), `${JSON.stringify(pids, null, 2)}\n`);
}

try {
  for (const [what, port] of [
    ['PORT', apiPorts[0]],
    ['PORT + 1', apiPorts[1]],
    ['TEMPORAL_PORT', temporalPort],
    ['TEMPORAL_UI_PORT', uiPort],
    ['SANDBOX_PORT', sandboxPort],
    ['WORKER_METRICS_PORT', workerMetricsPorts[0]],
    ['WORKER_METRICS_PORT + 1', workerMetricsPorts[1]],
  ])
    if (await isPortOpen(port)) throw new Error(`port ${port} (${what}) is taken: stop what uses it or set ${what}`);

  const temporal = cluster.findTemporalServer();
  if (!temporal)
    throw new Error(
      `could not find or build the Temporal server v${cluster.TEMPORAL_SERVER_VERSION}: set TEMPORAL_SERVER_PATH and ` +
        'TEMPORAL_SQL_TOOL_PATH, put temporal-server and temporal-sql-tool on PATH, or install Go 1.22+',
    );
  // CLUSTER_UI=false: no Web UI (the cluster tests need none).
  const ui = process.env.CLUSTER_UI === 'false' ? null : cluster.findTemporalUi();
  if (!ui && process.env.CLUSTER_UI !== 'false') step('continuing without the Temporal Web UI');

  step('building the service (npm run build)');
  const built = spawnSync(process.execPath, [join(projectRoot, 'scripts', 'build.mjs')], {
    cwd: projectRoot,
    env: { ...process.env, BUILD_OUT_DIR: buildDir },
    stdio: 'inherit',
  });
  if (built.status !== 0) throw new Error('npm run build failed');

  postgres = await findPostgres();
  const databaseUrl = await appDatabase(postgres.url, 'shipping_label_api_cluster');
  const appDb = decodeURIComponent(new URL(databaseUrl).pathname.slice(1));
  const databases = { temporal: `${appDb}_temporal`, visibility: `${appDb}_temporal_visibility` };
  const pg = cluster.postgresEndpoint(postgres.url);
  cluster.setUpTemporalSchemas({ sqlTool: temporal.sqlTool, postgres: pg, databases });

  const state = await clusterState();
  const log = (name) => join(logDir, `${name}.log`);
  const serverArgs = cluster.temporalServerFiles({
    dir: join(clusterDir, 'temporal'),
    config: cluster.temporalServerConfig({
      postgres: pg,
      databases,
      ports: state.ports,
      dynamicConfigFile: join(clusterDir, 'temporal', 'dynamicconfig.yaml'),
    }),
    dynamicConfig: cluster.temporalDynamicConfig(),
  });
  const portReady = (port, what) => (child) =>
    waitForPort(port, { what, timeoutMs: 120_000, alive: () => child.exitCode === null && child.signalCode === null });
  await supervisor.start('temporal-server', temporal.server, serverArgs, {
    logPath: log('temporal-server'),
    ready: portReady(temporalPort, 'Temporal server'),
  });
  step(
    `Temporal server v${cluster.TEMPORAL_SERVER_VERSION} on 127.0.0.1:${temporalPort} (PostgreSQL ${databases.temporal})`,
  );
  if (ui) {
    const uiArgs = cluster.temporalUiFiles({
      dir: join(clusterDir, 'ui'),
      frontendPort: temporalPort,
      port: uiPort,
      namespace,
    });
    await supervisor.start('temporal-ui', ui.ui, uiArgs, {
      logPath: log('temporal-ui'),
      ready: portReady(uiPort, 'Web UI'),
    });
  }

  const apiBase = `http://127.0.0.1:${apiPorts[0]}`;
  const env = {
    ...process.env,
    NODE_ENV: 'production',
    LOG_LEVEL: process.env.LOG_LEVEL || 'info',
    DATABASE_URL: databaseUrl,
    TEMPORAL_ADDRESS: `127.0.0.1:${temporalPort}`,
    TEMPORAL_NAMESPACE: namespace,
    SANDBOX_URL: `http://127.0.0.1:${sandboxPort}`,
    PUBLIC_BASE_URL: process.env.PUBLIC_BASE_URL || apiBase,
    CURSOR_SECRET: process.env.CURSOR_SECRET || state.cursorSecret,
    SETTINGS_ENCRYPTION_KEY: process.env.SETTINGS_ENCRYPTION_KEY || state.settingsEncryptionKey,
  };
  const dist = (entry) => join(buildDir, 'src', entry);
  const once = (what, entry, args = []) => {
    step(what);
    const result = spawnSync(process.execPath, [dist(entry), ...args], {
      cwd: projectRoot,
      env,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    if (result.status !== 0) throw new Error(`${what} failed`);
    return result.stdout;
  };
  once('running migrations', 'migrate.js');
  once('Temporal setup step (namespace, search attributes)', 'temporal/setup.js');

  const node = (name, entry, extraEnv, ready) =>
    supervisor.start(name, process.execPath, [dist(entry)], {
      cwd: projectRoot,
      env: { ...env, ...extraEnv },
      logPath: log(name),
      ready,
    });
  await node('sandbox', 'sandbox-server.js', { SANDBOX_PORT: String(sandboxPort) }, readyMessage());
  // One worker creates and updates the Schedules; the other is an extra worker of the same pool.
  await Promise.all([
    node(
      'worker-1',
      'worker.js',
      { WORKER_MANAGES_SCHEDULES: 'true', WORKER_METRICS_PORT: String(workerMetricsPorts[0]) },
      readyMessage(),
    ),
    node(
      'worker-2',
      'worker.js',
      { WORKER_MANAGES_SCHEDULES: 'false', WORKER_METRICS_PORT: String(workerMetricsPorts[1]) },
      readyMessage(),
    ),
  ]);
  await Promise.all(
    apiPorts.map((port, i) =>
      node(`api-${i + 1}`, 'server.js', { PORT: String(port) }, portReady(port, `API ${i + 1}`)),
    ),
  );

  const demo = JSON.parse(
    once('seeding the demo store', 'dev/seed-demo.js', [join(clusterDir, 'demo-api-key')])
      .trim()
      .split('\n')
      .pop(),
  );
  const summary = {
    api: apiPorts.map((port) => `http://127.0.0.1:${port}`),
    temporal: `127.0.0.1:${temporalPort}`,
    namespace,
    ui: ui ? `http://127.0.0.1:${uiPort}` : null,
    sandbox: env.SANDBOX_URL,
    worker_metrics: workerMetricsPorts.map((port) => `http://127.0.0.1:${port}/metrics`),
    database_url: databaseUrl,
    store_id: demo.store_id,
    domain: demo.domain,
    api_key: demo.api_key,
  };
  writeFileSync(join(clusterDir, 'cluster.json'), `${JSON.stringify(summary, null, 2)}\n`, { mode: 0o600 });
  // labelctl reaches this cluster (its database, sandbox, Temporal server and Web UI) until it stops.
  // A cluster with a data directory of its own (CLUSTER_DATA_DIR: the cluster tests) writes the file there instead.
  releaseLocalService = announceLocalService(
    'npm run cluster',
    {
      DATABASE_URL: databaseUrl,
      SANDBOX_URL: env.SANDBOX_URL,
      TEMPORAL_ADDRESS: env.TEMPORAL_ADDRESS,
      TEMPORAL_NAMESPACE: namespace,
      ...(summary.ui ? { TEMPORAL_UI_URL: summary.ui } : {}),
    },
    process.env.CLUSTER_DATA_DIR ? clusterDir : dataDir,
  );
  const banner = bannerText({
    title: 'Shipping Label API is running in its production shape.',
    rows: [
      ['API base URLs', summary.api.map((base) => `${base}/v1`).join('  ')],
      ['OpenAPI', `${apiBase}/v1/openapi.json`],
      ['API reference', `${apiBase}/v1/docs`],
      [
        'Temporal',
        `${summary.temporal} (server v${cluster.TEMPORAL_SERVER_VERSION} on PostgreSQL, namespace ${namespace})`,
      ],
      ['Temporal Web UI', summary.ui ?? 'not available (the UI server could not be built; see above)'],
      ['Workers', `2 (worker-1, worker-2), from ${buildDir}`],
      [
        'Metrics',
        `API ${summary.api.map((base) => `${base}/metrics`).join('  ')}\n` +
          `workers ${workerMetricsPorts.map((port) => `http://127.0.0.1:${port}/metrics`).join('  ')}`,
      ],
      ['Sandbox', env.SANDBOX_URL],
      [
        'labelctl',
        `${LABELCTL} <command>: finds this cluster (database, sandbox, Temporal) in .data/local-service.env`,
      ],
      ['Demo store', `${demo.domain} (${demo.store_id})`],
      ['Fresh orders', freshOrdersText(demo.fresh_orders)],
      ['API key', demo.api_key],
      ['Logs', logDir],
    ],
    tries: firstRequests({ base: apiBase, apiKey: demo.api_key, orders: demo.fresh_orders }),
    footer: [
      `Ctrl-C stops everything. ${process.stdin.isTTY ? 'Enter or ' : ''}kill -USR2 ${process.pid} prints this again.`,
    ],
  });
  process.stdout.write(banner);
  releaseBanner = keepBannerAtHand(banner);
  process.send?.({ type: 'ready', ...summary });
} catch (error) {
  await fail(error);
}

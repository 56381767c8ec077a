import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { findOrBuildGoRelease } from './go-binaries.mjs';
import { step } from './log.mjs';
import { freePort } from './ports.mjs';
import { projectRoot } from './paths.mjs';

// A real Temporal server on PostgreSQL (not the dev server), as `npm run cluster` runs it: the server and its schema
// tool built from the Go module proxy and cached per user like the Temporal CLI, the schemas set up and upgraded by
// temporal-sql-tool from the files embedded in it, and a server configuration written from the template below.
export const TEMPORAL_SERVER_VERSION = '1.29.1';
export const TEMPORAL_UI_VERSION = '2.42.1';

/** `{ server, sqlTool }`, or null when they can be neither found nor built (the reason is said). */
export function findTemporalServer() {
  return findOrBuildGoRelease({
    what: 'the Temporal server and temporal-sql-tool',
    cacheName: `temporal-server-${TEMPORAL_SERVER_VERSION}`,
    version: TEMPORAL_SERVER_VERSION,
    binaries: {
      server: { name: 'temporal-server', env: 'TEMPORAL_SERVER_PATH', pkg: 'go.temporal.io/server/cmd/server' },
      sqlTool: { name: 'temporal-sql-tool', env: 'TEMPORAL_SQL_TOOL_PATH', pkg: 'go.temporal.io/server/cmd/tools/sql' },
    },
  });
}

/**
 * `findTemporalServer` in a Node of its own, so that its build (minutes, once per machine) runs beside other work:
 * `result` resolves to what it returns (null when it failed; its output says why), `child` is the process.
 */
export function findTemporalServerApart(node = process.execPath) {
  const script = `import { writeSync } from 'node:fs';
    import { findTemporalServer } from ${JSON.stringify(import.meta.url)};
    writeSync(3, JSON.stringify(findTemporalServer()));`;
  const child = spawn(node, ['--input-type=module', '-e', script], { stdio: ['ignore', 'inherit', 'inherit', 'pipe'] });
  const result = new Promise((resolve) => {
    let out = '';
    child.stdio[3].on('data', (chunk) => (out += chunk));
    child.once('error', () => resolve(null));
    child.once('close', (code) => {
      try {
        resolve(code === 0 ? JSON.parse(out) : null);
      } catch {
        resolve(null);
      }
    });
  });
  return { child, result };
}

/** `{ ui }`: the Web UI server (its module embeds the built UI), or null. */
export function findTemporalUi() {
  return findOrBuildGoRelease({
    what: 'the Temporal Web UI server',
    cacheName: `temporal-ui-server-${TEMPORAL_UI_VERSION}`,
    version: TEMPORAL_UI_VERSION,
    binaries: {
      ui: {
        name: 'temporal-ui-server',
        env: 'TEMPORAL_UI_SERVER_PATH',
        pkg: 'github.com/temporalio/ui-server/v2/cmd/server',
      },
    },
  });
}

/** Host, port, user and password of a `postgres://` URL, as the server configuration and the schema tool take them. */
export function postgresEndpoint(url) {
  const u = new URL(url);
  return {
    host: u.hostname,
    port: Number(u.port || 5432),
    user: decodeURIComponent(u.username || 'postgres'),
    password: decodeURIComponent(u.password),
  };
}

/**
 * Creates Temporal's two databases when missing and brings their schemas to the version the server expects:
 * `setup-schema -v 0.0` (version tables; a no-op on a set-up database), then `update-schema` with the files embedded in
 * temporal-sql-tool. Safe at every start, and how a newer server's schema changes are applied.
 */
export function setUpTemporalSchemas({ sqlTool, postgres, databases }) {
  const base = ['--plugin', 'postgres12', '--ep', postgres.host, '-p', String(postgres.port), '-u', postgres.user];
  // The password goes by environment, not on the command line (other users can read a process's arguments).
  const env = { ...process.env, SQL_PASSWORD: postgres.password };
  for (const [database, schemaName] of [
    [databases.temporal, 'postgresql/v12/temporal'],
    [databases.visibility, 'postgresql/v12/visibility'],
  ]) {
    for (const args of [['create'], ['setup-schema', '-v', '0.0'], ['update-schema', '--schema-name', schemaName]]) {
      const result = spawnSync(sqlTool, [...base, '--db', database, ...args], { env, encoding: 'utf8' });
      if (result.status !== 0)
        throw new Error(`temporal-sql-tool ${args[0]} on ${database} failed:\n${result.stdout}${result.stderr}`);
    }
  }
  step(`Temporal schemas up to date in ${databases.temporal} and ${databases.visibility}`);
}

const q = (value) => JSON.stringify(String(value));

/**
 * A free port for the server's internal services, never one of `avoid` (the ports the cluster's other processes were
 * given). Temporal records membership ports in a `smallint` column, so they must be below 32768, where the system's
 * ephemeral ports (what port 0 gives) usually are not: `freePort` gives such ports.
 */
export async function freeServicePort(avoid = []) {
  return freePort(avoid);
}

/**
 * The server's configuration. One node, every service in one process (frontend, history, matching, worker), all
 * listening on 127.0.0.1; `ports` names each one. The number of history shards is fixed when a cluster's database is
 * first used, so it stays 4 for every run on the same databases.
 */
export function temporalServerConfig({ postgres, databases, ports, dynamicConfigFile, logLevel = 'warn' }) {
  const datastore = (database, maxConns) => `      sql:
        pluginName: postgres12
        databaseName: ${q(database)}
        connectAddr: ${q(`${postgres.host}:${postgres.port}`)}
        connectProtocol: tcp
        user: ${q(postgres.user)}
        password: ${q(postgres.password)}
        maxConns: ${maxConns}
        maxIdleConns: ${maxConns}
        maxConnLifetime: 1h`;
  const service = (name, grpc, membership, extra = '') => `  ${name}:
    rpc:
      grpcPort: ${grpc}
      membershipPort: ${membership}
      bindOnLocalHost: true${extra}`;
  return `# Written by npm run cluster (scripts/lib/temporal-cluster.mjs) at every start; edit the template there.
log:
  stdout: true
  level: ${logLevel}

persistence:
  defaultStore: default
  visibilityStore: visibility
  numHistoryShards: 4
  datastores:
    default:
${datastore(databases.temporal, 20)}
    visibility:
${datastore(databases.visibility, 10)}

global:
  membership:
    maxJoinDuration: 30s
    broadcastAddress: 127.0.0.1
  metrics:
    prometheus:
      framework: tally
      timerType: histogram
      listenAddress: ${q(`127.0.0.1:${ports.metrics}`)}

services:
${service('frontend', ports.frontend, ports.frontendMembership, `\n      httpPort: ${ports.frontendHttp}`)}
${service('history', ports.history, ports.historyMembership)}
${service('matching', ports.matching, ports.matchingMembership)}
${service('worker', ports.worker, ports.workerMembership)}

clusterMetadata:
  enableGlobalNamespace: false
  failoverVersionIncrement: 10
  masterClusterName: active
  currentClusterName: active
  clusterInformation:
    active:
      enabled: true
      initialFailoverVersion: 1
      rpcName: frontend
      rpcAddress: ${q(`127.0.0.1:${ports.frontend}`)}

dcRedirectionPolicy:
  policy: noop

dynamicConfigClient:
  filepath: ${q(dynamicConfigFile)}
  pollInterval: 10s
`;
}

/**
 * Dynamic configuration: one task-queue partition, as for the dev server (docs/decisions/0022-dev-server-partitions.md:
 * a single node gains nothing from more).
 */
export function temporalDynamicConfig() {
  const values = JSON.parse(readFileSync(join(projectRoot, 'src/temporal/dev-server-config.json'), 'utf8'));
  return Object.entries(values)
    .map(([key, value]) => `${key}:\n  - value: ${JSON.stringify(value)}\n`)
    .join('');
}

/** Writes the server's configuration under `dir`; returns the arguments that start the server on it. */
export function temporalServerFiles({ dir, config, dynamicConfig }) {
  mkdirSync(join(dir, 'config'), { recursive: true });
  // The file holds the database password.
  writeFileSync(join(dir, 'config', 'cluster.yaml'), config, { mode: 0o600 });
  writeFileSync(join(dir, 'dynamicconfig.yaml'), dynamicConfig);
  return ['--root', dir, '--config', 'config', '--env', 'cluster', '--allow-no-auth', 'start'];
}

/** Writes the Web UI server's configuration under `dir` (the cluster's frontend); returns its arguments. */
export function temporalUiFiles({ dir, frontendPort, port, namespace }) {
  mkdirSync(join(dir, 'config'), { recursive: true });
  writeFileSync(
    join(dir, 'config', 'cluster.yaml'),
    `temporalGrpcAddress: ${q(`127.0.0.1:${frontendPort}`)}
host: 127.0.0.1
port: ${port}
enableUi: true
defaultNamespace: ${q(namespace)}
notifyOnNewVersion: false
cors:
  cookieInsecure: true
`,
  );
  return ['--root', dir, '--config', 'config', '--env', 'cluster', 'start'];
}

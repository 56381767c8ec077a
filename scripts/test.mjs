#!/usr/bin/env node
// `npm test`: the same bootstrap as `npm run dev` (dependencies, Temporal CLI, PostgreSQL) and the Temporal server of
// `npm run cluster`, then typecheck, lint and jest. Jest's global setup starts its own Temporal dev server and a fresh
// database for the run; the cluster tests start the production shape once (test/cluster).
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { constants } from 'node:os';
import { join } from 'node:path';
import { ensureDependencies } from './lib/deps.mjs';
import { step } from './lib/log.mjs';
import { runOnServiceNode } from './lib/node-runtime.mjs';
import { dataDir, projectRoot } from './lib/paths.mjs';

const started = Date.now();
await runOnServiceNode();
ensureDependencies();
const { findTemporalCli } = await import('./lib/temporal-cli.mjs');
const { findPostgres } = await import('./lib/postgres.mjs');
const { findTemporalServer } = await import('./lib/temporal-cluster.mjs');
const cli = await findTemporalCli();
const postgres = await findPostgres();
step(`Temporal CLI: ${cli}`);
// The cluster tests (test/cluster) run a real Temporal server: found or built once here, where its build is seen.
const server = findTemporalServer();
if (!server) throw new Error('the cluster tests need the Temporal server and temporal-sql-tool (see above)');
step(`Temporal server: ${server.server}`);

const env = {
  ...process.env,
  TEMPORAL_CLI_PATH: cli,
  TEMPORAL_SERVER_PATH: server.server,
  TEMPORAL_SQL_TOOL_PATH: server.sqlTool,
  PG_SERVER_URL: postgres.url,
};
const bin = (name) => `${projectRoot}/node_modules/.bin/${name}`;
// A signal to this process (a killed `npm test`, a CI timeout) goes on to the running step, so jest can end what its
// global setup started (test/helpers/processes.ts, endWithThisProcess) instead of leaving it running.
let current = null;
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => current?.kill(signal));
const run = (label, command, args) => {
  step(label);
  return new Promise((resolve) => {
    current = spawn(command, args, { cwd: projectRoot, env, stdio: 'inherit' });
    current.once('error', () => resolve(1));
    current.once('exit', (code, signal) => {
      current = null;
      // Ended by a signal: the shell's convention, 128 + its number.
      resolve(code ?? 128 + (constants.signals[signal] ?? 0));
    });
  });
};

let status = await run('typecheck (tsc)', bin('tsc'), ['-p', 'tsconfig.json', '--noEmit']);
if (status === 0) status = await run('lint (eslint)', bin('eslint'), ['.', '--max-warnings', '0']);
if (status === 0)
  status = await run('format (prettier --check)', bin('prettier'), ['--check', '--log-level', 'warn', '.']);
const results = join(dataDir, 'jest-results.json');
mkdirSync(dataDir, { recursive: true });
rmSync(results, { force: true });
if (status === 0)
  status = await run('tests (jest)', bin('jest'), [
    '--ci',
    '--json',
    '--outputFile',
    results,
    ...process.argv.slice(2),
  ]);
if (existsSync(results)) {
  // The plain closing line CI systems read, whatever jest printed above it.
  const summary = JSON.parse(readFileSync(results, 'utf8'));
  process.stdout.write(`\n${summary.numPassedTests} passed, ${summary.numFailedTests} failed\n`);
}
await postgres.stop();
step(`done in ${Math.round((Date.now() - started) / 1000)}s`);
process.exit(status);

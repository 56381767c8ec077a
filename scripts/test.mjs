#!/usr/bin/env node
// `npm test`: the same bootstrap as `npm run dev` (dependencies, Temporal CLI, PostgreSQL) and the Temporal server of
// `npm run cluster`, then typecheck, lint and jest. Jest's global setup starts its own Temporal dev server and a fresh
// database for the run; the cluster tests start the production shape once (test/cluster). Jest runs three times: the
// unit project (its environment moves Date a year ahead, decision 1151), then the integration projects with as many
// files side by side as the cores and PostgreSQL's connections allow (decision 1152), then the cluster project alone
// (scripts/lib/jest-runs.mjs); `npm test -- --selectProjects <names>` starts only the runs those projects need, and
// `npm test -- --busy` runs them beside CPU-bound processes (decision 1153).
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism, constants } from 'node:os';
import { join } from 'node:path';
import { startBusy, takeBusyOption } from './lib/busy.mjs';
import { ensureDependencies } from './lib/deps.mjs';
import { formatSlowestSuites, mergeJestResults, planJestRuns, UNIT_PROJECT } from './lib/jest-runs.mjs';
import { choosesWorkers, integrationFiles, POSTGRES_DEFAULTS, unitFiles } from './lib/jest-workers.mjs';
import { step } from './lib/log.mjs';
import { runOnServiceNode } from './lib/node-runtime.mjs';
import { dataDir, projectRoot } from './lib/paths.mjs';

const CLUSTER_PROJECT = 'cluster';
const started = Date.now();
await runOnServiceNode();
const cores = availableParallelism();
// The runs first: a mistyped project name or option fails before minutes of bootstrap.
const options = takeBusyOption(process.argv.slice(2), cores);
const projectNames = createRequire(import.meta.url)('../jest.config.js').projects.map((p) => p.displayName);
const plan = options.error ? options : planJestRuns(options.args, projectNames);
if (plan.error) {
  process.stderr.write(`npm test: ${plan.error}\n`);
  process.exit(1);
}
ensureDependencies();
const { findTemporalCli } = await import('./lib/temporal-cli.mjs');
const { connectionBudget, findPostgres } = await import('./lib/postgres.mjs');
const { findTemporalServerApart } = await import('./lib/temporal-cluster.mjs');
// The cluster tests (test/cluster) run a real Temporal server: found, or built once per machine, here where its build
// is seen, and only for a run of the cluster project. The build (minutes) runs beside typecheck, lint and the unit run,
// which need no Temporal; the other runs wait for it (decision 1155).
const serverLookup = plan.runs.some((r) => r.projects.includes(CLUSTER_PROJECT)) ? findTemporalServerApart() : null;
const cli = await findTemporalCli();
const postgres = await findPostgres();
step(`Temporal CLI: ${cli}`);
// Files side by side: from the cores and what PostgreSQL's connections allow, unless the arguments say (--maxWorkers).
const given = choosesWorkers(options.args);
const budget = given ? null : await connectionBudget(postgres.url);
const files = integrationFiles({ cores, ...(budget ?? POSTGRES_DEFAULTS) });
const hasUnitRun = plan.runs.some((r) => r.name === UNIT_PROJECT);
if (given) step('jest: test files side by side as the arguments say');
else {
  const assumed = budget ? '' : " (PostgreSQL's defaults assumed: it did not tell its connections)";
  if (plan.runs.length > (hasUnitRun ? 1 : 0))
    step(`jest: ${files.count} integration test files side by side (${files.why})${assumed}`);
  if (hasUnitRun) step(`jest: ${unitFiles({ cores })} unit test files side by side (${cores} cores, no database)`);
}
const workersOf = (jestRun) =>
  given ? [] : [`--maxWorkers=${jestRun.name === UNIT_PROJECT ? unitFiles({ cores }) : files.count}`];

const env = {
  ...process.env,
  TEMPORAL_CLI_PATH: cli,
  PG_SERVER_URL: postgres.url,
};
const bin = (name) => `${projectRoot}/node_modules/.bin/${name}`;
// A signal to this process (a killed `npm test`, a CI timeout) goes on to the running step, so jest can end what its
// global setup started (test/helpers/processes.ts, endWithThisProcess) instead of leaving it running.
let current = null;
let interrupted = false;
// The load check's processes (--busy) end with the runs, on a signal, and on any way out of this process.
let busy = null;
const stopBusy = () => {
  if (!busy) return;
  const stopped = busy.stop();
  busy = null;
  step(`--busy: stopped ${stopped} CPU-bound process${stopped === 1 ? '' : 'es'}`);
};
process.on('exit', stopBusy);
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'])
  process.on(signal, () => {
    interrupted = true;
    stopBusy();
    current?.kill(signal);
    serverLookup?.child.kill(signal);
  });
/** The Temporal server for the runs after the unit run: true once found (in `env`), false when it cannot be had. */
let serverReady = serverLookup ? null : true;
async function awaitServer() {
  if (serverReady !== null) return serverReady;
  const waited = Date.now();
  const server = await serverLookup.result;
  serverReady = Boolean(server);
  if (!server) {
    process.stderr.write('npm test: the cluster tests need the Temporal server and temporal-sql-tool (see above)\n');
    return false;
  }
  const seconds = Math.round((Date.now() - waited) / 1000);
  step(`Temporal server: ${server.server}${seconds > 0 ? ` (waited ${seconds}s for it)` : ''}`);
  Object.assign(env, { TEMPORAL_SERVER_PATH: server.server, TEMPORAL_SQL_TOOL_PATH: server.sqlTool });
  return true;
}
const run = (label, command, args, extraEnv = {}) => {
  step(label);
  return new Promise((resolve) => {
    current = spawn(command, args, { cwd: projectRoot, env: { ...env, ...extraEnv }, stdio: 'inherit' });
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
const resultsOf = (jestRun) => join(dataDir, `jest-results-${jestRun.name}.json`);
mkdirSync(dataDir, { recursive: true });
for (const file of [results, ...plan.runs.map(resultsOf)]) rmSync(file, { force: true });
if (status === 0 && options.busy > 0 && !interrupted) {
  busy = startBusy(options.busy);
  step(`--busy: ${options.busy} CPU-bound processes beside jest for its runs (pids ${busy.pids.join(', ')})`);
}
// Failed unit tests do not keep the other projects from running, as in one jest run; a signal ends the runs.
for (const jestRun of status === 0 ? plan.runs : []) {
  if (interrupted) break;
  if (jestRun.name !== UNIT_PROJECT && !(await awaitServer())) {
    status = 1;
    break;
  }
  const jest = [
    bin('jest'),
    '--ci',
    '--json',
    '--outputFile',
    resultsOf(jestRun),
    ...workersOf(jestRun),
    ...jestRun.args,
  ];
  const code = await run(`tests (jest --selectProjects ${jestRun.projects.join(' ')})`, process.execPath, jest);
  if (status === 0) status = code;
}
stopBusy();
// A build still under way (typecheck or lint failed first) is let finish: its cache serves every later run.
if (serverReady === null && !interrupted) {
  step('waiting for the Temporal server build to finish: it is cached for every later run');
  await awaitServer();
}
const outputs = plan.runs.map(resultsOf).filter((file) => existsSync(file));
if (outputs.length > 0) {
  const summary = mergeJestResults(outputs.map((file) => JSON.parse(readFileSync(file, 'utf8'))));
  writeFileSync(results, JSON.stringify(summary));
  // Each run passed with no tests of its own (planJestRuns); none in either is a failure, as in one jest run.
  if (status === 0 && plan.requireTests && summary.numTotalTestSuites === 0) {
    process.stderr.write('No tests found in any jest project (npm test -- --passWithNoTests lets that pass)\n');
    status = 1;
  }
  // Where the run's time went, for whoever makes it faster (issue 45); then the plain closing line CI systems read,
  // whatever jest printed above it.
  const slowest = formatSlowestSuites(summary, projectRoot, 10);
  if (slowest.length > 0) process.stdout.write(`\n${slowest.join('\n')}\n`);
  process.stdout.write(`\n${summary.numPassedTests} passed, ${summary.numFailedTests} failed\n`);
}
await postgres.stop();
step(`done in ${Math.round((Date.now() - started) / 1000)}s`);
process.exit(status);

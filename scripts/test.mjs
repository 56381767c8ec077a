#!/usr/bin/env node
// `npm test`: the same bootstrap as `npm run dev` (dependencies, Temporal CLI, PostgreSQL), then typecheck, lint
// and jest. Jest's global setup starts its own Temporal dev server and a fresh database for the run.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ensureDependencies } from './lib/deps.mjs';
import { step } from './lib/log.mjs';
import { dataDir, projectRoot } from './lib/paths.mjs';

const started = Date.now();
ensureDependencies();
const { findTemporalCli } = await import('./lib/temporal-cli.mjs');
const { findPostgres } = await import('./lib/postgres.mjs');
const cli = await findTemporalCli();
const postgres = await findPostgres();
step(`Temporal CLI: ${cli}`);

const env = { ...process.env, TEMPORAL_CLI_PATH: cli, PG_SERVER_URL: postgres.url };
const bin = (name) => `${projectRoot}/node_modules/.bin/${name}`;
const run = (label, command, args) => {
  step(label);
  const result = spawnSync(command, args, { cwd: projectRoot, env, stdio: 'inherit' });
  return result.status ?? 1;
};

let status = run('typecheck (tsc)', bin('tsc'), ['-p', 'tsconfig.json', '--noEmit']);
if (status === 0) status = run('lint (eslint)', bin('eslint'), ['.', '--max-warnings', '0']);
if (status === 0) status = run('format (prettier --check)', bin('prettier'), ['--check', '--log-level', 'warn', '.']);
const results = join(dataDir, 'jest-results.json');
mkdirSync(dataDir, { recursive: true });
rmSync(results, { force: true });
if (status === 0)
  status = run('tests (jest)', bin('jest'), ['--ci', '--json', '--outputFile', results, ...process.argv.slice(2)]);
if (existsSync(results)) {
  // The plain closing line CI systems read, whatever jest printed above it.
  const summary = JSON.parse(readFileSync(results, 'utf8'));
  process.stdout.write(`\n${summary.numPassedTests} passed, ${summary.numFailedTests} failed\n`);
}
await postgres.stop();
step(`done in ${Math.round((Date.now() - started) / 1000)}s`);
process.exit(status);

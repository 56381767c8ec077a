#!/usr/bin/env node
// `npm test`: the same bootstrap as `npm run dev` (dependencies, Temporal CLI, PostgreSQL), then typecheck, lint
// and jest. Jest's global setup starts its own Temporal dev server and a fresh database for the run.
import { spawnSync } from 'node:child_process';
import { ensureDependencies } from './lib/deps.mjs';
import { step } from './lib/log.mjs';
import { projectRoot } from './lib/paths.mjs';

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
if (status === 0) status = run('tests (jest)', bin('jest'), ['--ci', ...process.argv.slice(2)]);
await postgres.stop();
step(`done in ${Math.round((Date.now() - started) / 1000)}s`);
process.exit(status);

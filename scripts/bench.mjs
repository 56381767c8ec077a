#!/usr/bin/env node
// `npm run bench`: speed ratios measured against a baseline in the same run (never a timed test). Uses its own
// database, dropped afterwards. Needs `qpdf` (Debian: apt-get install qpdf) for the PDF merge baseline.
import { spawnSync } from 'node:child_process';
import { ensureDependencies } from './lib/deps.mjs';
import { step } from './lib/log.mjs';
import { runOnServiceNode } from './lib/node-runtime.mjs';
import { projectRoot } from './lib/paths.mjs';

await runOnServiceNode();
ensureDependencies();
const { findPostgres, createDatabase, dropDatabase } = await import('./lib/postgres.mjs');
const postgres = await findPostgres();
// The creation section starts its own Temporal dev server, database, sandbox and worker, like the integration tests.
const { findTemporalCli } = await import('./lib/temporal-cli.mjs');
const temporalCli = await findTemporalCli();
const name = `sla_bench_${process.pid}`;
const databaseUrl = await createDatabase(postgres.url, name);
const env = {
  ...process.env,
  DATABASE_URL: databaseUrl,
  LOG_LEVEL: 'silent',
  NODE_ENV: 'test',
  TEMPORAL_CLI_PATH: temporalCli,
  PG_SERVER_URL: postgres.url,
};
let status = spawnSync(process.execPath, ['--import', 'tsx', 'src/migrate.ts'], {
  cwd: projectRoot,
  env,
  stdio: 'inherit',
}).status;
// The read and creation sections run the service from the compiled build, as production does.
const sections = process.argv.slice(2);
if (
  status === 0 &&
  (sections.length === 0 || sections.some((s) => ['read', 'limiter', 'creation', 'memory'].includes(s)))
) {
  step('building the service (npm run build): the read and creation sections run it compiled');
  status = spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: projectRoot, env, stdio: 'inherit' }).status;
}
if (status === 0) {
  step('running benchmarks');
  // BENCH_CPU_PROF=<dir>: a V8 profile of this run's process too (the in-process API and the load generator).
  const profile =
    process.env.BENCH_CPU_PROF && !process.env.BENCH_CPU_PROF_ONLY
      ? ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_CPU_PROF]
      : [];
  const args = [...profile, '--import', 'tsx', 'scripts/bench/run.ts', ...process.argv.slice(2)];
  status = spawnSync(process.execPath, args, {
    cwd: projectRoot,
    env,
    stdio: 'inherit',
  }).status;
}
// BENCH_KEEP_DATABASE=1: the run's database is left for EXPLAIN of its statements (drop it by hand afterwards).
if (process.env.BENCH_KEEP_DATABASE) step(`kept the benchmark's database ${name} (BENCH_KEEP_DATABASE)`);
else await dropDatabase(postgres.url, name);
await postgres.stop();
process.exit(status ?? 1);

#!/usr/bin/env node
// `npm run client:generate`: rewrites client/generated/schema.d.ts from the /v1/openapi.json the service serves. It runs the
// suite that checks the file in `npm test` with UPDATE_CLIENT=1, so the document comes from a real app (the same
// bootstrap as `npm test`: Temporal CLI, PostgreSQL, jest's global setup).
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { ensureDependencies } from './lib/deps.mjs';
import { step } from './lib/log.mjs';
import { projectRoot } from './lib/paths.mjs';

ensureDependencies();
const { findTemporalCli } = await import('./lib/temporal-cli.mjs');
const { findPostgres } = await import('./lib/postgres.mjs');
const cli = await findTemporalCli();
const postgres = await findPostgres();
step('generating client/generated/schema.d.ts from the served /v1/openapi.json');
const result = spawnSync(
  join(projectRoot, 'node_modules', '.bin', 'jest'),
  ['test/integration/client-in-step.test.ts', '--selectProjects', 'integration'],
  {
    cwd: projectRoot,
    env: { ...process.env, TEMPORAL_CLI_PATH: cli, PG_SERVER_URL: postgres.url, UPDATE_CLIENT: '1' },
    stdio: 'inherit',
  },
);
await postgres.stop();
process.exit(result.status ?? 1);

#!/usr/bin/env node
// `npm run temporal:setup`: the Temporal namespace and the search attributes the workflows need, on the server of
// TEMPORAL_ADDRESS (src/temporal/setup.ts; compiled: `npm run start:temporal-setup`). Idempotent.
import { spawnSync } from 'node:child_process';
import { ensureDependencies } from './lib/deps.mjs';
import { projectRoot } from './lib/paths.mjs';

ensureDependencies();
const result = spawnSync(process.execPath, ['--import', 'tsx', 'src/temporal/setup.ts'], {
  cwd: projectRoot,
  stdio: 'inherit',
});
process.exit(result.status ?? 1);

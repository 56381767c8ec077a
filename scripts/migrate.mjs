#!/usr/bin/env node
// `npm run migrate`: create the database if missing and apply MikroORM migrations (never schema.update): the one
// DATABASE_URL names, else this checkout's development database (the one `npm run dev` uses).
import { spawnSync } from 'node:child_process';
import { ensureDependencies } from './lib/deps.mjs';
import { projectRoot } from './lib/paths.mjs';

ensureDependencies();
const { findPostgres, appDatabase, checkoutDatabaseName } = await import('./lib/postgres.mjs');
const postgres = await findPostgres();
const databaseUrl = await appDatabase(postgres.url, checkoutDatabaseName());
const result = spawnSync(process.execPath, ['--import', 'tsx', 'src/migrate.ts'], {
  cwd: projectRoot,
  env: { ...process.env, DATABASE_URL: databaseUrl },
  stdio: 'inherit',
});
await postgres.stop();
process.exit(result.status ?? 1);

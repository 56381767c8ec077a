import { Client } from 'pg';
import type { TestRun } from './global-setup';
import { stop } from './processes';

export default async function globalTeardown(): Promise<void> {
  const run = (globalThis as unknown as { __testRun?: TestRun }).__testRun;
  if (!run) return;
  // Each jest project with this teardown calls it; the run it shares ends once.
  delete (globalThis as unknown as { __testRun?: TestRun }).__testRun;
  for (const child of [...run.children].reverse()) await stop(child);
  const admin = new Client({ connectionString: run.serverUrl });
  await admin.connect();
  await admin.query(`drop database if exists "${run.database}" with (force)`);
  await admin.end();
}

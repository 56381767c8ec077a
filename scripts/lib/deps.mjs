import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { step } from './log.mjs';
import { projectRoot } from './paths.mjs';

// Installs dependencies with `npm ci` when node_modules is missing or was installed from another lockfile.
export function ensureDependencies() {
  const lockfile = join(projectRoot, 'package-lock.json');
  const stamp = join(projectRoot, 'node_modules', '.lockfile-hash');
  const hash = createHash('sha256').update(readFileSync(lockfile)).digest('hex');
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === hash) return;
  step('installing npm dependencies (npm ci)...');
  const result = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: projectRoot, stdio: 'inherit' });
  if (result.status !== 0) throw new Error('npm ci failed');
  writeFileSync(stamp, hash);
}

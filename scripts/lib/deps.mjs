import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { step } from './log.mjs';
import { projectRoot } from './paths.mjs';

const npm = (args) =>
  spawnSync('npm', [...args, '--no-audit', '--no-fund'], { cwd: projectRoot, stdio: 'inherit' }).status;

/**
 * Installs dependencies with `npm ci` (the committed lockfile) when node_modules is missing or was installed from
 * another lockfile. Registries that lack some other platforms' optional binaries (e.g. @swc/core-darwin-arm64)
 * make `npm ci` refuse the lockfile as out of sync; `npm install` then installs the same locked versions.
 */
export function ensureDependencies() {
  const lockfile = join(projectRoot, 'package-lock.json');
  const stamp = join(projectRoot, 'node_modules', '.lockfile-hash');
  const hash = createHash('sha256').update(readFileSync(lockfile)).digest('hex');
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === hash) return;
  step('installing npm dependencies (npm ci)...');
  if (npm(['ci']) !== 0) {
    step('npm ci refused the lockfile; installing the locked versions with npm install');
    if (npm(['install']) !== 0) throw new Error('npm install failed');
  }
  writeFileSync(stamp, createHash('sha256').update(readFileSync(lockfile)).digest('hex'));
}

import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { step } from './log.mjs';
import { projectRoot } from './paths.mjs';

// npm from PATH: the scripts that run the service put their Node first on it (scripts/lib/node-runtime.mjs).
const npm = (args) =>
  spawnSync('npm', [...args, '--no-audit', '--no-fund'], { cwd: projectRoot, stdio: 'inherit' }).status;

/**
 * Installs dependencies with `npm ci` (exactly the committed lockfile) when node_modules is missing or was installed
 * from another lockfile. There is no fallback to `npm install`: an install that is not the lockfile's is not
 * reproducible, so a refusal stops here with what to do about it.
 */
export function ensureDependencies() {
  const lockfile = join(projectRoot, 'package-lock.json');
  const stamp = join(projectRoot, 'node_modules', '.lockfile-hash');
  const hash = createHash('sha256').update(readFileSync(lockfile)).digest('hex');
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === hash) return;
  step('installing npm dependencies (npm ci)...');
  if (npm(['ci']) !== 0) {
    throw new Error(
      'npm ci failed. If it says the lockfile is out of sync with package.json, regenerate it with ' +
        '`npm install --package-lock-only` and commit it; if a package version is not served by your registry, pin one ' +
        'that is with `overrides` in package.json (docs/decisions/0007-lockfile-overrides.md).',
    );
  }
  writeFileSync(stamp, hash);
}

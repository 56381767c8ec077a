import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { step } from './log.mjs';
import { userCacheDir } from './paths.mjs';

const exe = (name) => (process.platform === 'win32' ? `${name}.exe` : name);

export function onPath(name) {
  for (const dir of (process.env.PATH || '').split(delimiter)) {
    const candidate = join(dir, name);
    if (dir && existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return null;
}

export function goBinary() {
  return onPath(exe('go')) || (existsSync('/usr/local/go/bin/go') ? '/usr/local/go/bin/go' : null);
}

/**
 * Finds the binaries of one pinned Go release, cheapest first: each one's environment variable (the caller chose), its
 * name on PATH, the per-user cache shared by every clone, then `go install` of every package into that cache (minutes
 * once; needs only Go and its module proxy). `binaries` maps a key to `{ name, env, pkg }` where `pkg` is the Go
 * package path (`go install` names the result after its last element). Returns the paths by key, or null with the
 * reason said when the build fails.
 */
export function findOrBuildGoRelease({ what, cacheName, version, binaries }) {
  const cacheDir = join(userCacheDir(), cacheName);
  const found = {};
  for (const [key, { name, env }] of Object.entries(binaries)) {
    if (process.env[env]) {
      if (!existsSync(process.env[env])) throw new Error(`${env}=${process.env[env]} does not exist`);
      found[key] = process.env[env];
      continue;
    }
    found[key] = onPath(exe(name)) ?? (existsSync(join(cacheDir, exe(name))) ? join(cacheDir, exe(name)) : null);
  }
  const missing = Object.entries(binaries).filter(([key]) => !found[key]);
  if (!missing.length) return found;

  const go = goBinary();
  if (!go) {
    step(`no Go toolchain on PATH (or /usr/local/go): cannot build ${what} v${version}`);
    return null;
  }
  mkdirSync(cacheDir, { recursive: true });
  step(`building ${what} v${version} with Go into ${cacheDir}`);
  step('the first build downloads modules and compiles for several minutes; later runs reuse it');
  const started = Date.now();
  for (const [key, { name, pkg }] of missing) {
    // Into a directory of its own, renamed once complete: an interrupted build never leaves a binary in the cache.
    const gobin = mkdtempSync(join(cacheDir, '.build-'));
    try {
      const result = spawnSync(go, ['install', `${pkg}@v${version}`], {
        stdio: 'inherit',
        env: { ...process.env, GOBIN: gobin, GOFLAGS: process.env.GOFLAGS || '-mod=mod' },
      });
      const built = join(gobin, exe(pkg.split('/').pop()));
      if (result.status !== 0 || !existsSync(built)) {
        step(`go install ${pkg}@v${version} failed (see its output above)`);
        return null;
      }
      renameSync(built, join(cacheDir, exe(name)));
      found[key] = join(cacheDir, exe(name));
    } finally {
      rmSync(gobin, { recursive: true, force: true });
    }
  }
  step(`built ${what} in ${Math.round((Date.now() - started) / 1000)}s`);
  return found;
}

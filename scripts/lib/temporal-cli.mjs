import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { step } from './log.mjs';
import { projectRoot, userCacheDir } from './paths.mjs';

export const TEMPORAL_CLI_VERSION = '1.5.1';

function onPath(name) {
  for (const dir of (process.env.PATH || '').split(delimiter)) {
    const candidate = join(dir, name);
    if (dir && existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return null;
}

function goBinary() {
  return onPath('go') || (existsSync('/usr/local/go/bin/go') ? '/usr/local/go/bin/go' : null);
}

function findExecutableBelow(dir) {
  if (!existsSync(dir)) return null;
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    const s = statSync(p);
    if (s.isDirectory()) {
      const found = findExecutableBelow(p);
      if (found) return found;
    } else if (
      /^temporal(-cli)?[^/]*$/.test(name) &&
      !name.endsWith('.tar.gz') &&
      !name.endsWith('.zip') &&
      s.mode & 0o111
    ) {
      return p;
    }
  }
  return null;
}

// The SDK's download needs internet; we only use it to fetch the binary and start the server ourselves,
// because the SDK gives a server it starts only 5 seconds to come up.
async function downloadWithSdk(downloadDir) {
  step('no Go toolchain: asking the Temporal SDK to download the CLI (needs internet)...');
  const script = `
    const { TestWorkflowEnvironment } = require('@temporalio/testing');
    TestWorkflowEnvironment.createLocal({ server: { executable: { type: 'cached-download', downloadDir: ${JSON.stringify(downloadDir)} } } })
      .then((env) => env.teardown()).catch(() => {}).finally(() => process.exit(0));`;
  spawnSync(process.execPath, ['-e', script], { cwd: projectRoot, stdio: 'inherit' });
  return findExecutableBelow(downloadDir);
}

/**
 * Finds the Temporal CLI: TEMPORAL_CLI_PATH, `temporal` on PATH, the per-user cache, a `go install` into that
 * cache, and last the SDK's own download.
 */
export async function findTemporalCli() {
  if (process.env.TEMPORAL_CLI_PATH) {
    if (!existsSync(process.env.TEMPORAL_CLI_PATH))
      throw new Error(`TEMPORAL_CLI_PATH=${process.env.TEMPORAL_CLI_PATH} does not exist`);
    return process.env.TEMPORAL_CLI_PATH;
  }
  const fromPath = onPath('temporal');
  if (fromPath) return fromPath;

  const cacheDir = join(userCacheDir(), `temporal-${TEMPORAL_CLI_VERSION}`);
  const cached = join(cacheDir, 'temporal');
  if (existsSync(cached)) return cached;

  mkdirSync(cacheDir, { recursive: true });
  const go = goBinary();
  if (go) {
    step(`building the Temporal CLI v${TEMPORAL_CLI_VERSION} with Go into ${cacheDir}`);
    step('the first build downloads modules and compiles for several minutes; later runs reuse it');
    const started = Date.now();
    const result = spawnSync(go, ['install', `github.com/temporalio/cli/cmd/temporal@v${TEMPORAL_CLI_VERSION}`], {
      stdio: 'inherit',
      env: { ...process.env, GOBIN: cacheDir, GOFLAGS: process.env.GOFLAGS || '-mod=mod' },
    });
    if (result.status === 0 && existsSync(cached)) {
      step(`built the Temporal CLI in ${Math.round((Date.now() - started) / 1000)}s`);
      return cached;
    }
    step('go install failed; trying the SDK download');
  }
  const downloaded = await downloadWithSdk(join(cacheDir, 'sdk-download'));
  if (downloaded) return downloaded;
  throw new Error(
    'could not find or build the Temporal CLI: set TEMPORAL_CLI_PATH, put `temporal` on PATH, or install Go 1.22+',
  );
}

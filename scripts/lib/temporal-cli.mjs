import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { goBinary, onPath } from './go-binaries.mjs';
import { step } from './log.mjs';
import { userCacheDir } from './paths.mjs';

export const TEMPORAL_CLI_VERSION = '1.5.1';

// The download is tried before the Go build, so it must give up quickly where there is no route to the release host:
// an answer within 15 s, the whole archive (about 40 MB) within 2 minutes.
const DOWNLOAD_ANSWER_MS = 15_000;
const DOWNLOAD_TOTAL_MS = 120_000;

const executable = process.platform === 'win32' ? 'temporal.exe' : 'temporal';

/** True when `path` runs and reports the pinned version (a truncated or foreign binary does not). */
function reportsPinnedVersion(path) {
  const result = spawnSync(path, ['--version'], { encoding: 'utf8', timeout: 15_000 });
  return result.status === 0 && result.stdout.includes(TEMPORAL_CLI_VERSION);
}

function releaseArchive() {
  const os = { linux: 'linux', darwin: 'darwin', win32: 'windows' }[process.platform];
  const arch = { x64: 'amd64', arm64: 'arm64' }[process.arch];
  if (!os || !arch) return null;
  const name = `temporal_cli_${TEMPORAL_CLI_VERSION}_${os}_${arch}.tar.gz`;
  return { name, url: `https://github.com/temporalio/cli/releases/download/v${TEMPORAL_CLI_VERSION}/${name}` };
}

/** Downloads the release archive into the cache; null (with the reason said) when it cannot within the time box. */
async function download(cacheDir) {
  const archive = releaseArchive();
  if (!archive) {
    step(`no release build of the Temporal CLI for ${process.platform}/${process.arch}; trying the Go build`);
    return null;
  }
  step(`downloading the Temporal CLI v${TEMPORAL_CLI_VERSION} (${archive.url}), at most ${DOWNLOAD_TOTAL_MS / 1000}s`);
  const started = Date.now();
  const total = AbortSignal.timeout(DOWNLOAD_TOTAL_MS);
  const work = mkdtempSync(join(cacheDir, 'download-'));
  try {
    const response = await fetch(archive.url, {
      signal: AbortSignal.any([total, AbortSignal.timeout(DOWNLOAD_ANSWER_MS)]),
    }).catch((error) => {
      throw new Error(`no answer (${error.cause?.code ?? error.name})`);
    });
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    const bytes = Buffer.from(await response.arrayBuffer());
    writeFileSync(join(work, archive.name), bytes);
    const untar = spawnSync('tar', ['-xzf', archive.name], { cwd: work, stdio: 'inherit' });
    const binary = join(work, executable);
    if (untar.status !== 0 || !existsSync(binary)) throw new Error('the archive did not hold the temporal binary');
    chmodSync(binary, 0o755);
    if (!reportsPinnedVersion(binary)) throw new Error(`the downloaded binary is not v${TEMPORAL_CLI_VERSION}`);
    const cached = join(cacheDir, executable);
    renameSync(binary, cached);
    step(`downloaded the Temporal CLI in ${Math.round((Date.now() - started) / 1000)}s`);
    return cached;
  } catch (error) {
    const reason = total.aborted ? `took over ${DOWNLOAD_TOTAL_MS / 1000}s` : error.message;
    step(`download failed: ${reason}; trying the Go build`);
    return null;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** `go install` into the cache: works wherever the Go module proxy is reachable, at the cost of a few minutes. */
function goBuild(cacheDir) {
  const go = goBinary();
  if (!go) {
    step('no Go toolchain on PATH (or /usr/local/go): cannot build the Temporal CLI');
    return null;
  }
  step(`building the Temporal CLI v${TEMPORAL_CLI_VERSION} with Go into ${cacheDir}`);
  step('the first build downloads modules and compiles for several minutes; later runs reuse it');
  const started = Date.now();
  const result = spawnSync(go, ['install', `github.com/temporalio/cli/cmd/temporal@v${TEMPORAL_CLI_VERSION}`], {
    stdio: 'inherit',
    env: { ...process.env, GOBIN: cacheDir, GOFLAGS: process.env.GOFLAGS || '-mod=mod' },
  });
  const cached = join(cacheDir, executable);
  if (result.status === 0 && existsSync(cached)) {
    step(`built the Temporal CLI in ${Math.round((Date.now() - started) / 1000)}s`);
    return cached;
  }
  step('go install failed (see its output above)');
  return null;
}

/**
 * Finds the Temporal CLI, cheapest first: TEMPORAL_CLI_PATH (the caller chose), `temporal` on PATH (installed by the
 * user), the per-user cache (downloaded or built once for every clone), then the release download (seconds, needs
 * the release host), then `go install` into the cache (minutes, needs only Go and its module proxy).
 */
export async function findTemporalCli() {
  if (process.env.TEMPORAL_CLI_PATH) {
    if (!existsSync(process.env.TEMPORAL_CLI_PATH))
      throw new Error(`TEMPORAL_CLI_PATH=${process.env.TEMPORAL_CLI_PATH} does not exist`);
    return process.env.TEMPORAL_CLI_PATH;
  }
  const fromPath = onPath(executable);
  if (fromPath) return fromPath;

  const cacheDir = join(userCacheDir(), `temporal-${TEMPORAL_CLI_VERSION}`);
  const cached = join(cacheDir, executable);
  if (existsSync(cached)) return cached;
  step(`no Temporal CLI in TEMPORAL_CLI_PATH, on PATH or in ${cacheDir}: fetching v${TEMPORAL_CLI_VERSION} once`);

  mkdirSync(cacheDir, { recursive: true });
  const found = (await download(cacheDir)) ?? goBuild(cacheDir);
  if (found) return found;
  throw new Error(
    `could not download or build the Temporal CLI v${TEMPORAL_CLI_VERSION}: set TEMPORAL_CLI_PATH, put \`temporal\` on ` +
      'PATH, or install Go 1.22+ (the build then takes a few minutes once)',
  );
}

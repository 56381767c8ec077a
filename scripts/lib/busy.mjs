import { spawn } from 'node:child_process';

// `npm test -- --busy`: the load check (issue 54, decision 1153). CPU-bound processes run beside jest for its runs, at
// the same priority as everything else, so that the tests meet a machine as busy as a shared CI runner or a laptop
// building something else; a test that passes only on an idle machine fails here instead of on someone's first try.

/**
 * `--busy` (one CPU-bound process per core, at least two) or `--busy=N` taken out of `npm test`'s arguments; the rest
 * goes on to jest unchanged, wherever `--busy` stood among them. `{ error }` for a count that is no whole number.
 */
export function takeBusyOption(args, cores) {
  let busy = 0;
  const rest = [];
  for (const arg of args) {
    const match = /^--busy(?:=(.*))?$/s.exec(arg);
    if (!match) {
      rest.push(arg);
      continue;
    }
    if (match[1] === undefined) {
      busy = Math.max(2, cores);
      continue;
    }
    if (!/^\d+$/.test(match[1]) || Number(match[1]) < 1) {
      return { error: `--busy=${match[1]}: the number of CPU-bound processes is a whole number from 1` };
    }
    busy = Number(match[1]);
  }
  return { busy, args: rest };
}

/**
 * One CPU-bound process: spins, and ends itself when its parent is gone (a `kill -9` of `npm test` can stop nothing),
 * checking between spins of half a second.
 */
const SPIN = `const parent = process.ppid;
for (;;) {
  const until = Date.now() + 500;
  while (Date.now() < until) Math.sqrt(Math.random());
  if (process.ppid !== parent) process.exit(0);
}`;

/** Starts `count` CPU-bound Node processes; `stop()` ends them (SIGKILL: they run no handler) and says how many. */
export function startBusy(count, node = process.execPath) {
  const children = Array.from({ length: count }, () => spawn(node, ['-e', SPIN], { stdio: 'ignore' }));
  for (const child of children) child.on('error', () => undefined);
  return {
    pids: children.map((child) => child.pid),
    stop() {
      let stopped = 0;
      for (const child of children) {
        if (child.exitCode === null && child.signalCode === null && child.kill('SIGKILL')) stopped += 1;
      }
      return stopped;
    },
  };
}

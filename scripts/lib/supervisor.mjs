import { spawn } from 'node:child_process';
import { openSync } from 'node:fs';
import { step } from './log.mjs';
import { stopChild } from './stop-child.mjs';

/**
 * Long-running processes with a restart policy, as a process manager gives them in production (compose's
 * `restart: unless-stopped`): a process that exits after it was ready is started again, after a back-off that grows
 * while it keeps failing. A process that exits before it is ready fails the start. Output goes to a log file each.
 */
export function createSupervisor({ onChange = () => {} } = {}) {
  const processes = [];
  let stopping = false;

  /**
   * Starts `command args` and resolves once it is ready: `ready(child)` resolves (an IPC message, a port), or the
   * first start rejects. `logPath` receives stdout and stderr.
   */
  function start(name, command, args, { env, cwd, logPath, ready }) {
    const entry = { name, child: null, restarts: 0 };
    processes.push(entry);
    const launch = () => {
      const log = openSync(logPath, 'a');
      const child = spawn(command, args, { cwd, env, stdio: ['ignore', log, log, 'ipc'] });
      entry.child = child;
      onChange();
      return child;
    };
    return new Promise((resolve, reject) => {
      let started = false;
      const watch = (child) => {
        child.once('exit', (code, signal) => {
          if (stopping) return;
          if (!started)
            return reject(new Error(`${name} exited (${signal ?? code}) before it was ready; log: ${logPath}`));
          const delay = Math.min(1000 * 2 ** Math.min(entry.restarts, 4), 15_000);
          entry.restarts += 1;
          step(`${name} exited (${signal ?? code}); restarting in ${delay / 1000}s (log: ${logPath})`);
          setTimeout(() => {
            if (stopping) return;
            const next = launch();
            watch(next);
            ready(next).then(
              () => {
                entry.restarts = 0;
                step(`${name} is back`);
              },
              () => {},
            );
          }, delay);
        });
      };
      const first = launch();
      watch(first);
      ready(first).then(() => {
        started = true;
        resolve(first);
      }, reject);
    });
  }

  /** Stops every process, last started first, each with SIGTERM and SIGKILL after `timeoutMs`. */
  async function stopAll(timeoutMs = 20_000) {
    stopping = true;
    for (const { child } of [...processes].reverse()) await stopChild(child, 'SIGTERM', timeoutMs);
  }

  return { start, stopAll, processes, isStopping: () => stopping };
}

/** Readiness by IPC: the service's own `{ type: 'ready' }` message (the worker, the API, the sandbox send one). */
export function readyMessage(timeoutMs = 120_000) {
  return (child) =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('not ready in time')), timeoutMs);
      child.on('message', (message) => {
        if (message?.type !== 'ready') return;
        clearTimeout(timer);
        resolve();
      });
      child.once('exit', () => {
        clearTimeout(timer);
        reject(new Error('exited'));
      });
    });
}

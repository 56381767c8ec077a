import { spawn } from 'node:child_process';
import { join } from 'node:path';

// A test run's servers (Temporal, the sandbox, the worker) are children of jest's process. When that process is
// ended abruptly (a killed `npm test`, a CI timeout), `endWithThisProcess` ends them with it instead of leaving them
// running. Proven here on a stand-in: a process that holds a long `sleep` child the same way and is then signalled.

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function until(check: () => boolean, timeoutMs = 10_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return check();
}

const holder = `
  const { spawn } = require('node:child_process');
  const { endWithThisProcess } = require(${JSON.stringify(join(__dirname, '..', 'helpers', 'processes.ts'))});
  const child = spawn('sleep', ['600'], { stdio: 'ignore' });
  endWithThisProcess([child]);
  process.stdout.write(String(child.pid) + '\\n');
  setInterval(() => undefined, 1000);
`;

describe('endWithThisProcess', () => {
  it.each(['SIGTERM', 'SIGINT', 'SIGHUP'] as const)(
    'ends the children when the process gets %s, and the process still ends by that signal',
    async (signal) => {
      const parent = spawn(process.execPath, ['--import', 'tsx', '-e', holder], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      const childPid = await new Promise<number>((resolve, reject) => {
        parent.stdout.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim())));
        parent.once('exit', () => reject(new Error('the holder exited before starting its child')));
      });
      expect(alive(childPid)).toBe(true);
      const ended = new Promise<NodeJS.Signals | null>((resolve) => parent.once('exit', (_code, s) => resolve(s)));
      parent.kill(signal);
      expect(await ended).toBe(signal);
      expect(await until(() => !alive(childPid))).toBe(true);
    },
  );

  it('ends them when the process exits on its own', async () => {
    const parent = spawn(
      process.execPath,
      ['--import', 'tsx', '-e', `${holder}; setTimeout(() => process.exit(3), 200);`],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    const childPid = await new Promise<number>((resolve) =>
      parent.stdout.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim()))),
    );
    const code = await new Promise<number | null>((resolve) => parent.once('exit', (c) => resolve(c)));
    expect(code).toBe(3);
    expect(await until(() => !alive(childPid))).toBe(true);
  });
});

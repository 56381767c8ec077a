import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, connect } from 'node:net';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * A free port below every system's ephemeral range (Linux 32768 and up, macOS and Windows 49152 and up), for a
 * listener a test opens long after another process was told its port: the system never hands such a port to a
 * `listen(0)` or an outgoing connection in between, as it could a `freePort()`.
 */
export async function portBelowEphemeralRange(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if (await canListen(port)) return port;
  }
  throw new Error('no free port between 20000 and 32000 on 127.0.0.1');
}

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

export async function waitForPort(port: number, what: string, child: ChildProcess, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${what} exited with ${child.exitCode} before listening`);
    if (await portOpen(port)) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${what} did not listen on ${port} within ${timeoutMs / 1000}s`);
}

/**
 * Spawns a TypeScript entry point with tsx and resolves once it sends `{type: 'ready'}` over IPC. `started` sees the
 * child as soon as it exists (to end it with the test run even while it starts).
 */
export function spawnTs(
  entry: string,
  env: NodeJS.ProcessEnv,
  what: string,
  timeoutMs = 120_000,
  nodeArgs: string[] = [],
  started?: (child: ChildProcess) => void,
): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', entry], {
      env,
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    started?.(child);
    let output = '';
    const collect = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-8000);
    };
    child.stdout?.on('data', collect);
    child.stderr?.on('data', collect);
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${what} was not ready within ${timeoutMs / 1000}s:\n${output}`));
    }, timeoutMs);
    const onExit = (code: number | null) => {
      clearTimeout(timer);
      reject(new Error(`${what} exited with ${code}:\n${output}`));
    };
    child.once('exit', onExit);
    child.on('message', (message: { type?: string }) => {
      if (message?.type !== 'ready') return;
      clearTimeout(timer);
      child.off('exit', onExit);
      child.disconnect();
      // Keep draining the pipes so the child never blocks on a full buffer; show what it reports as errors.
      child.stdout?.off('data', collect);
      // TEST_CHILD_OUTPUT=1 shows what the sandbox and worker log (their stdout) while the tests run.
      if (process.env.TEST_CHILD_OUTPUT)
        child.stdout?.on('data', (c: Buffer) => process.stderr.write(`[${what}] ${c.toString()}`));
      else child.stdout?.resume();
      child.stderr?.off('data', collect);
      child.stderr?.on('data', (c: Buffer) => process.stderr.write(`[${what}] ${c.toString()}`));
      resolve(child);
    });
  });
}

export function stop(child: ChildProcess | undefined, timeoutMs = 10_000): Promise<void> {
  return new Promise((resolve) => {
    if (!child || child.exitCode !== null || child.signalCode !== null) return resolve();
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/**
 * Ends `children` with this process, however it ends: on exit, and on SIGINT, SIGTERM or SIGHUP (after which the
 * signal is raised again, so the process still ends as the signal says). Jest's global teardown stops them in order
 * on a normal end; this is for the abrupt ones (a killed `npm test`, a CI timeout), which would leave a Temporal
 * server, the sandbox and the worker running.
 */
export function endWithThisProcess(children: readonly ChildProcess[]): void {
  const killAll = () => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  };
  process.once('exit', killAll);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(signal, () => {
      killAll();
      process.kill(process.pid, signal);
    });
  }
}

import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, connect } from 'node:net';

/**
 * A free port for a listener another process opens later: every port a test hands out comes from below every system's
 * ephemeral range (Linux 32768 and up, macOS and Windows 49152 and up), so the system never gives it to a `listen(0)`
 * or an outgoing connection between the probe and the listen. A port from the ephemeral range was taken so once: the
 * cluster test's worker metrics port went to one of the Temporal server's PostgreSQL connections in the 30 s before
 * the worker listened (`Address already in use`). A process never hands out the same port twice.
 */
export function freePort(): Promise<number> {
  return portsBelowEphemeralRange(1);
}

/** Two free ports in a row (for a process that listens on PORT and PORT + 1), handed out as `freePort`'s are. */
export function freePortPair(): Promise<number> {
  return portsBelowEphemeralRange(2);
}

const LOWEST = 20_000;
const SPAN = 12_000;
const handedOut = new Set<number>();

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** The first of `count` free ports in a row between 20000 and 32000 that this process has not handed out yet. */
async function portsBelowEphemeralRange(count: number): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    const first = LOWEST + Math.floor(Math.random() * (SPAN - count));
    const ports = Array.from({ length: count }, (_, i) => first + i);
    if (ports.some((port) => handedOut.has(port))) continue;
    if ((await Promise.all(ports.map(canListen))).every(Boolean)) {
      for (const port of ports) handedOut.add(port);
      return first;
    }
  }
  throw new Error(`no ${count} free port(s) in a row between ${LOWEST} and ${LOWEST + SPAN} on 127.0.0.1`);
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

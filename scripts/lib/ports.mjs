import { createServer, connect } from 'node:net';

export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

export function isPortOpen(port, host = '127.0.0.1') {
  return new Promise((resolve) => {
    const socket = connect({ port, host });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

export async function waitForPort(port, { host = '127.0.0.1', timeoutMs = 60_000, what = `port ${port}`, alive } = {}) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await isPortOpen(port, host)) return;
    if (alive && !alive()) throw new Error(`${what} exited before it listened`);
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${what} did not listen on ${host}:${port} within ${timeoutMs / 1000}s`);
}

import { createServer, connect } from 'node:net';

const LOWEST = 20_000;
const SPAN = 12_000;
const handedOut = new Set();

function canListen(port) {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * A free port for a listener that starts later, between 20000 and 32000: below every system's ephemeral range (Linux
 * 32768 and up, macOS and Windows 49152 and up), so the system never gives it to an outgoing connection or a
 * `listen(0)` before the listener opens, as it could a port 0 probe's. Never one of `avoid` (ports already given to
 * processes that are not listening yet) or one this process handed out before.
 */
export async function freePort(avoid = []) {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    const port = LOWEST + Math.floor(Math.random() * SPAN);
    if (handedOut.has(port) || avoid.includes(port)) continue;
    if (await canListen(port)) {
      handedOut.add(port);
      return port;
    }
  }
  throw new Error(`no free port between ${LOWEST} and ${LOWEST + SPAN} on 127.0.0.1`);
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

import type { Server } from 'node:http';

/**
 * How long the API keeps an idle client connection open (`HTTP_KEEP_ALIVE_TIMEOUT`, 65 s by default; decision 0030).
 * Node's own 5 s is shorter than what load balancers (60 s on AWS's) and most merchants' HTTP clients keep a pooled
 * connection for: the client then sends a request on a connection the API is closing at that moment and gets a
 * reset (a 502 from a load balancer), for a POST a request it cannot tell was received or not. The server announces
 * the timeout (`Keep-Alive: timeout=N`), so clients that read it close first. Wired wherever the app listens
 * (src/server.ts, test/helpers/test-app.ts).
 */
export function keepConnectionsAlive(server: Server, keepAliveTimeoutMs: number): void {
  server.keepAliveTimeout = keepAliveTimeoutMs;
  // Node measures the header timeout on an idle kept-alive connection too: it must outlast the keep-alive one, and the
  // whole request's timeout must outlast both.
  server.headersTimeout = Math.max(server.headersTimeout, keepAliveTimeoutMs + 1_000);
  server.requestTimeout = Math.max(server.requestTimeout, server.headersTimeout + 1_000);
}

import type { Server } from 'node:http';
import type { Logger } from '../logger';
import { answerMalformedRequests } from './client-error';

export interface ConnectionOptions {
  logger: Logger;
  publicBaseUrl: string | undefined;
  /** `HTTP_KEEP_ALIVE_TIMEOUT`: how long an idle client connection stays open (decision 0030). */
  keepAliveTimeoutMs: number;
}

/**
 * What the API's HTTP server does with its connections, wherever the app listens (src/server.ts, the tests' app):
 * requests Node's parser refuses get the spec's error body (src/http/client-error.ts), and an idle connection stays
 * open `keepAliveTimeoutMs` (65 s by default) instead of Node's 5 s, which is shorter than what load balancers (60 s on
 * AWS's) and most merchants' HTTP clients keep a pooled connection for: they would send a request on a connection the
 * API is closing at that moment and get a reset (a 502 from a balancer; for a POST, a request they cannot tell was
 * received). The server announces the timeout (`Keep-Alive: timeout=N`), so clients that read it close first. Node's
 * header and request timeouts count only once a request begins, so they need not follow it.
 */
export function serveConnections(server: Server, options: ConnectionOptions): void {
  answerMalformedRequests(server, { logger: options.logger, publicBaseUrl: options.publicBaseUrl });
  server.keepAliveTimeout = options.keepAliveTimeoutMs;
}

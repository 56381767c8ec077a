import { createServer, type Server } from 'node:http';
import type { Registry } from 'prom-client';

/**
 * `/metrics` on a port of its own (METRICS_PORT), so a scraper reaches it without it being exposed with the API.
 * Nothing else is served there.
 */
export function startMetricsServer(registry: Registry, options: { host: string; port: number }): Promise<Server> {
  const server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    if (path !== '/metrics' || request.method !== 'GET') {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    registry.metrics().then(
      (text) => response.writeHead(200, { 'content-type': registry.contentType }).end(text),
      () => response.writeHead(500, { 'content-type': 'text/plain' }).end('metrics unavailable\n'),
    );
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve(server));
  });
}

import Router from '@koa/router';
import type { Middleware } from 'koa';
import type { AppState } from '../../http/state';

export interface ReadinessProbe {
  name: string;
  check: () => Promise<void>;
}

/** `/healthz`: the process is up. `/readyz`: PostgreSQL and Temporal answer. Outside /v1 and without a key. */
export function healthRoutes(probes: readonly ReadinessProbe[]): Middleware<AppState> {
  const router = new Router<AppState>();
  router.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  router.get('/readyz', async (ctx) => {
    const results = await Promise.all(
      probes.map(async (probe) => {
        try {
          await Promise.race([
            probe.check(),
            new Promise((_, reject) => setTimeout(() => reject(new Error('timeout')), 3000).unref()),
          ]);
          return [probe.name, 'ok'] as const;
        } catch {
          return [probe.name, 'unavailable'] as const;
        }
      }),
    );
    const ready = results.every(([, status]) => status === 'ok');
    ctx.status = ready ? 200 : 503;
    ctx.body = { status: ready ? 'ready' : 'not_ready', checks: Object.fromEntries(results) };
  });
  return router.routes() as unknown as Middleware<AppState>;
}

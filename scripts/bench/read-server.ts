/**
 * A server process for the read-path benchmark: `bare` is Koa + @koa/router answering fixed JSON (the ceiling), `api`
 * is the real app wired as src/server.ts wires it, logging at info to stdout (which the bench discards), and
 * `api-unlimited` the same app without the rate limiter (the baseline of the limiter's cost), and `api-round-trip` the
 * app with a stand-in limiter that only makes one `select 1` round trip (what any check in SQL costs). Reports
 * `{type: 'ready', port}` over IPC once it listens. With `OTEL_TRACES_EXPORTER=otlp` the `api` modes trace, as the
 * service does.
 */
import type { AddressInfo } from 'node:net';
import Router from '@koa/router';
import { Client, Connection } from '@temporalio/client';
import Koa from 'koa';
import { Pool } from 'pg';
import { createApp } from '../../src/app';
import { loadConfig } from '../../src/config';
import { openAppDeps } from '../../src/dependencies';
import type { RequestLimiter } from '../../src/http/request-limiter';
import { createLogger } from '../../src/logger';
import { startTracing } from '../../src/tracing/provider';

async function bare(label: unknown): Promise<Koa> {
  const app = new Koa();
  const router = new Router();
  router.get('/v1/labels/:id', (ctx) => {
    ctx.set('Cache-Control', 'no-store, private');
    ctx.body = label;
  });
  router.get('/v1/labels', (ctx) => {
    ctx.set('Cache-Control', 'no-store, private');
    ctx.body = { data: Array.from({ length: 50 }, () => label), next_cursor: 'x', has_more: true };
  });
  app.use(router.routes());
  return app;
}

/** Charges nothing: the benchmark's baseline only. */
const unlimited: RequestLimiter = {
  admit: async (ctx) => {
    ctx.state.limits = { charge: async () => undefined, note: () => undefined };
  },
  settle: (ctx) => {
    ctx.state.limits = { charge: async () => undefined, note: () => undefined };
  },
};

/** Charges nothing but makes one trivial round trip on a pool like the limiter's: the floor of any check in SQL. */
function roundTripOnly(databaseUrl: string): RequestLimiter {
  const pool = new Pool({ connectionString: databaseUrl, max: 3 });
  return {
    admit: async (ctx) => {
      await pool.query({ name: 'round_trip', text: 'select 1' });
      ctx.state.limits = { charge: async () => undefined, note: () => undefined };
    },
    settle: (ctx) => unlimited.settle(ctx, [], 0),
  };
}

async function api(mode: string): Promise<Koa> {
  const config = loadConfig();
  // OTEL_TRACES_EXPORTER=otlp in the environment: the read path with tracing on, as src/server.ts starts it.
  startTracing(config.tracing, 'shipping-label-api');
  // Reads need no Temporal server; a lazy connection is never opened.
  const temporal = new Client({ connection: Connection.lazy({ address: '127.0.0.1:1' }) });
  const limiter =
    mode === 'api-unlimited' ? unlimited : mode === 'api-round-trip' ? roundTripOnly(config.databaseUrl) : undefined;
  const { deps } = await openAppDeps(config, {
    temporal,
    logger: createLogger('info'),
    overrides: limiter ? { limiter } : {},
  });
  return createApp(deps);
}

async function main(): Promise<void> {
  const mode = process.argv[2];
  const label = JSON.parse(process.env.BENCH_LABEL_JSON ?? '{}') as unknown;
  const app = mode === 'bare' ? await bare(label) : await api(mode ?? 'api');
  const server = app.listen(0, '127.0.0.1', () => {
    process.send?.({ type: 'ready', port: (server.address() as AddressInfo).port });
  });
}

process.once('SIGINT', () => process.exit(0));
void main();

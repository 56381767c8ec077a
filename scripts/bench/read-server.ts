/**
 * A server process for the read-path benchmark: `bare` is Koa + @koa/router answering fixed JSON (the ceiling),
 * `floor` the same router making, per label read, the one prepared statement an authenticated, rate-limited read cannot
 * avoid (the floor the API is measured against), `api` the real app from the compiled build (`dist/`, which the bench
 * builds first) wired as src/server.ts wires it, logging at info to stdout (which the bench discards), and
 * `api-unlimited` the same app without the rate limiter (the baseline of the limiter's cost), `api-untaken` the app
 * whose admission statement counts nothing (the take's own cost), and `api-round-trip` the
 * app with a stand-in limiter that only makes one `select 1` round trip (what any check in SQL costs). Reports
 * `{type: 'ready', port}` over IPC once it listens. With `OTEL_TRACES_EXPORTER=otlp` the `api` modes trace, as the
 * service does.
 */
import type { AddressInfo } from 'node:net';
import Router from '@koa/router';
import { Client, Connection } from '@temporalio/client';
import Koa from 'koa';
import { Pool } from 'pg';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { RequestLimiter } from '../../src/http/request-limiter';

/** The service's modules from the compiled build, as `npm start` runs them (not the sources through tsx). */
const dist = join(__dirname, '..', '..', 'dist', 'src');
// eslint-disable-next-line @typescript-eslint/no-require-imports -- the compiled modules, by path, at run time
const compiled = <T>(module: string): T => require(join(dist, module)) as T;
const { createApp } = compiled<typeof import('../../src/app')>('app');
const { loadConfig } = compiled<typeof import('../../src/config')>('config');
const { openAppDeps } = compiled<typeof import('../../src/dependencies')>('dependencies');
const { createLogger } = compiled<typeof import('../../src/logger')>('logger');
const { startTracing } = compiled<typeof import('../../src/tracing/provider')>('tracing/provider');
const { openHotPool } = compiled<typeof import('../../src/db/hot-pool')>('db/hot-pool');

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

/**
 * What an authenticated, rate-limited label read cannot avoid, in one prepared statement on a pool like the API's own
 * (same size, `synchronous_commit=off`): find the key by its hash, bump a per-key counter, read the label row of the
 * key's store. No gates, scopes, windows, request log, metrics or wire format: the floor, not a service.
 */
const FLOOR_READ = {
  name: 'bench_floor_read',
  text: `with k as (select id, store_id from api_keys where secret_hash = $1),
              c as (insert into bench_floor_counters (key_id, used) select id, 1 from k
                    on conflict (key_id) do update set used = bench_floor_counters.used + 1 returning used)
         select row_to_json(l) as label from labels l join k on l.store_id = k.store_id
          where l.id = $2 and exists (select 1 from c)`,
};

async function floor(): Promise<Koa> {
  const config = loadConfig();
  const pool = openHotPool(config.databaseUrl, {
    lockTimeoutMs: config.rateLimitLockTimeoutMs,
    max: config.hotPoolSize,
  });
  await pool.query('create table if not exists bench_floor_counters (key_id text primary key, used bigint not null)');
  const app = new Koa();
  const router = new Router();
  router.get('/v1/labels/:id', async (ctx) => {
    const secret = /^Bearer (.+)$/.exec(ctx.get('Authorization'))?.[1] ?? '';
    const hash = createHash('sha256').update(secret, 'utf8').digest('hex');
    const { rows } = await pool.query<{ label: unknown }>({ ...FLOOR_READ, values: [hash, ctx.params.id] });
    if (!rows[0]) {
      ctx.status = 404;
      return;
    }
    ctx.set('Cache-Control', 'no-store, private');
    ctx.body = rows[0].label;
  });
  app.use(router.routes());
  return app;
}

/** Charges nothing: the benchmark's baseline only. */
const chargesNothing = () => ({ charge: async () => undefined, tryCharge: async () => true, note: () => undefined });
const unlimited: RequestLimiter = {
  admit: async (ctx) => {
    ctx.state.limits = chargesNothing();
  },
  settle: (ctx) => {
    ctx.state.limits = chargesNothing();
  },
};

/** Charges nothing but makes one trivial round trip on a pool like the limiter's: the floor of any check in SQL. */
function roundTripOnly(databaseUrl: string): RequestLimiter {
  const pool = new Pool({ connectionString: databaseUrl, max: 3 });
  return {
    admit: async (ctx) => {
      await pool.query({ name: 'round_trip', text: 'select 1' });
      ctx.state.limits = chargesNothing();
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
    overrides: limiter ? { limiter } : mode === 'api-untaken' ? { admissionTakes: false } : {},
  });
  return createApp(deps);
}

async function main(): Promise<void> {
  const mode = process.argv[2];
  const label = JSON.parse(process.env.BENCH_LABEL_JSON ?? '{}') as unknown;
  const app = mode === 'bare' ? await bare(label) : mode === 'floor' ? await floor() : await api(mode ?? 'api');
  const server = app.listen(0, '127.0.0.1', () => {
    process.send?.({ type: 'ready', port: (server.address() as AddressInfo).port });
  });
}

process.once('SIGINT', () => process.exit(0));
void main();

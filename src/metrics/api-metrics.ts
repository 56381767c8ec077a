import type { Middleware } from 'koa';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { ApiError } from '../http/api-error';
import type { AppState } from '../http/state';

/**
 * The API process's Prometheus registry (prom-client). To add a metric, create it against this registry where the
 * event happens, with a bounded set of label values (as `shipping_label_rate_limited_total` below, by bucket name).
 */
export interface ApiMetrics {
  registry: Registry;
  /** Outermost middleware: counts and times every answer by method, route template and final status. */
  middleware: Middleware<AppState>;
}

// Seconds; up to a minute because `Prefer: wait` holds a request that long.
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** The route template (never the raw path, which would make a series per ID), or `unmatched`. */
function routeLabel(ctx: Parameters<Middleware<AppState>>[0]): string {
  if (ctx.state.route) return `/v1${ctx.state.route.path}`;
  const matched = (ctx as unknown as { _matchedRoute?: unknown })._matchedRoute;
  return typeof matched === 'string' ? matched : 'unmatched';
}

/**
 * The bucket of a 429 `rate_limited` answer, read from the error body the error middleware wrote: every refusal (the
 * router's limiter, the write queue, daily creation units) is counted in one place, whoever decided it.
 */
function refusingBucket(status: number, body: unknown): string | null {
  if (status !== 429 || typeof body !== 'object' || body === null) return null;
  const error = (body as { error?: { code?: unknown; details?: { bucket?: unknown } } }).error;
  return error?.code === 'rate_limited' && typeof error.details?.bucket === 'string' ? error.details.bucket : null;
}

export function createApiMetrics(): ApiMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const labelNames = ['method', 'route', 'status'] as const;
  const requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP answers by method, route template and status',
    labelNames,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from receiving a request to its answer, by method, route template and status',
    labelNames,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const rateLimited = new Counter({
    name: 'shipping_label_rate_limited_total',
    help: 'Requests refused with 429 rate_limited, by the refusing bucket',
    labelNames: ['bucket'] as const,
    registers: [registry],
  });
  // The labelled series of each method, route template and status, looked up once: the label hashing of every
  // `inc`/`observe` call is a measurable share of a fast read. Bounded: route templates, not paths.
  const series = new Map<string, { count: () => void; time: (seconds: number) => void }>();
  const seriesOf = (method: string, route: string, status: string) => {
    const key = `${method} ${route} ${status}`;
    let found = series.get(key);
    if (!found) {
      const count = requests.labels(method, route, status);
      const time = duration.labels(method, route, status);
      found = { count: () => count.inc(), time: (seconds) => time.observe(seconds) };
      series.set(key, found);
    }
    return found;
  };
  return {
    registry,
    middleware: async (ctx, next) => {
      const started = process.hrtime.bigint();
      try {
        await next();
      } finally {
        const own = seriesOf(ctx.method, routeLabel(ctx), String(ctx.status));
        own.count();
        own.time(Number(process.hrtime.bigint() - started) / 1e9);
        const bucket = refusingBucket(ctx.status, ctx.body);
        if (bucket) rateLimited.inc({ bucket });
      }
    },
  };
}

/** `GET /metrics` in Prometheus's text format, outside /v1 and without a key. */
export function metricsEndpoint(registry: Registry): Middleware<AppState> {
  const serve: Middleware<AppState> = async (ctx) => {
    if (ctx.method !== 'GET') {
      throw new ApiError('method_not_allowed', {
        details: { allowed_methods: ['GET'] },
        headers: { Allow: 'GET' },
      });
    }
    ctx.type = registry.contentType;
    ctx.body = await registry.metrics();
  };
  // Every other request passes straight on, without a promise of this middleware's own.
  return (ctx, next) => (ctx.path === '/metrics' ? (serve(ctx, next) as Promise<void>) : next());
}

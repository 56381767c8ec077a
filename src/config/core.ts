import { z } from 'zod';
import { parseDuration } from '../duration';

/**
 * The shared core of the configuration: what every process reads (the environment it runs in, its logs, the database,
 * where metrics bind), and how each process's part is written: a zod shape of its variables and a function that turns
 * them into settings. `src/config/index.ts` puts the parts together (docs/decisions/1131-configuration-by-process.md).
 */

/** A duration variable (`500ms`, `30s`, `15m`, `7d`) in milliseconds, with its default. */
export const duration = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .transform((value, ctx) => {
      try {
        return parseDuration(value);
      } catch (error) {
        ctx.addIssue({ code: 'custom', message: (error as Error).message });
        return z.NEVER;
      }
    });

/** The one message a refused configuration starts with, a line per bad variable. */
export function invalidConfiguration(lines: readonly string[]): Error {
  return new Error(`invalid configuration:\n${lines.map((line) => `  ${line}`).join('\n')}`);
}

/** Parses `env` against a process's shape; throws one readable message listing every bad variable. */
export function parseEnv<Shape extends z.ZodRawShape>(
  shape: Shape,
  env: NodeJS.ProcessEnv,
): z.infer<z.ZodObject<Shape>> {
  const parsed = z.object(shape).safeParse(env);
  if (!parsed.success)
    throw invalidConfiguration(parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`));
  return parsed.data;
}

export const logShape = {
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /**
   * `json`: one JSON object a line (pino), what production writes and log shippers read. `pretty`: a coloured, short
   * line for people (pino-pretty, a development dependency), which `npm run dev` asks for on a terminal; refused in
   * production.
   */
  LOG_FORMAT: z.enum(['json', 'pretty']).default('json'),
  /** With `LOG_FORMAT=pretty`: a line per request (`all`), only for 4xx and 5xx answers (`errors`), or none. */
  LOG_REQUESTS: z.enum(['all', 'errors', 'none']).default('all'),
};

export const coreShape = {
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  ...logShape,
  DATABASE_URL: z.string().default('postgres://postgres@127.0.0.1:5432/shipping_label_api'),
  SUPPORT_EMAIL: z.string().email().default('support@example.com'),
  /** Serve the API's /metrics on this port instead of the API port (not exposed with the API). */
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  /** The worker's Prometheus endpoint (Temporal SDK runtime metrics and worker liveness); unset: none. */
  WORKER_METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  /** Interface the metrics ports bind to. */
  METRICS_HOST: z.string().default('127.0.0.1'),
};

export type CoreEnv = z.infer<z.ZodObject<typeof coreShape>>;

export interface LogSettings {
  format: 'json' | 'pretty';
  requests: 'all' | 'errors' | 'none';
}

export type CoreConfig = Readonly<{
  env: 'development' | 'test' | 'production';
  logLevel: string;
  log: Readonly<LogSettings>;
  databaseUrl: string;
  supportEmail: string;
  metrics: Readonly<{ host: string; apiPort: number | undefined; workerPort: number | undefined }>;
}>;

export function coreSettings(e: CoreEnv): CoreConfig {
  if (e.NODE_ENV === 'production' && e.LOG_FORMAT === 'pretty')
    throw invalidConfiguration(['LOG_FORMAT: pretty is for people at a terminal in development; production logs JSON']);
  return {
    env: e.NODE_ENV,
    logLevel: e.LOG_LEVEL,
    log: Object.freeze({ format: e.LOG_FORMAT, requests: e.LOG_REQUESTS }),
    databaseUrl: e.DATABASE_URL,
    supportEmail: e.SUPPORT_EMAIL,
    metrics: Object.freeze({ host: e.METRICS_HOST, apiPort: e.METRICS_PORT, workerPort: e.WORKER_METRICS_PORT }),
  };
}

import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import type { CarrierProtectionSettings } from './domain/carrier-protection';
import { parseDuration } from './duration';
import { parseLocalOrigins } from './net/target-guard';

const duration = (fallback: string) =>
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

/** OTLP's transports and encodings (the OpenTelemetry specification's names). */
export const OTLP_PROTOCOLS = ['http/protobuf', 'http/json', 'grpc'] as const;
export type OtlpProtocol = (typeof OTLP_PROTOCOLS)[number];
/** OTEL_TRACES_SAMPLER's values that the SDK's built-in samplers serve (no remote samplers: the service works offline). */
export const TRACE_SAMPLERS = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
] as const;
export type TraceSampler = (typeof TRACE_SAMPLERS)[number];

const envSchema = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().default('127.0.0.1'),
  /** Public base URL of the API, without /v1; used in `url` fields, Location headers and doc_url. */
  PUBLIC_BASE_URL: z.string().url().optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /**
   * `json`: one JSON object a line (pino), what production writes and log shippers read. `pretty`: a coloured, short
   * line for people (pino-pretty, a development dependency), which `npm run dev` asks for on a terminal; refused in
   * production.
   */
  LOG_FORMAT: z.enum(['json', 'pretty']).default('json'),
  /** With `LOG_FORMAT=pretty`: a line per request (`all`), only for 4xx and 5xx answers (`errors`), or none. */
  LOG_REQUESTS: z.enum(['all', 'errors', 'none']).default('all'),
  DATABASE_URL: z.string().default('postgres://postgres@127.0.0.1:5432/shipping_label_api'),
  TEMPORAL_ADDRESS: z.string().default('127.0.0.1:7233'),
  TEMPORAL_NAMESPACE: z.string().default('default'),
  TEMPORAL_TASK_QUEUE: z.string().default('shipping-label-api'),
  /** How long Temporal keeps closed workflows' histories; set when the setup step creates the namespace. */
  TEMPORAL_NAMESPACE_RETENTION: duration('7d'),
  // A cluster's TLS and Temporal Cloud's API key, with the names of Temporal's own client environment configuration.
  /** `true` turns TLS on with the system's roots, `false` off; unset: on when any other TLS setting or an API key is. */
  TEMPORAL_TLS: z.enum(['true', 'false']).optional(),
  /** PEM files (or their contents in the `_DATA` twins): the server's CA, and this client's certificate and key (mTLS). */
  TEMPORAL_TLS_SERVER_CA_CERT_PATH: z.string().min(1).optional(),
  TEMPORAL_TLS_SERVER_CA_CERT_DATA: z.string().min(1).optional(),
  TEMPORAL_TLS_CLIENT_CERT_PATH: z.string().min(1).optional(),
  TEMPORAL_TLS_CLIENT_CERT_DATA: z.string().min(1).optional(),
  TEMPORAL_TLS_CLIENT_KEY_PATH: z.string().min(1).optional(),
  TEMPORAL_TLS_CLIENT_KEY_DATA: z.string().min(1).optional(),
  /** The name the server's certificate is checked against (SNI), when it is not the host of TEMPORAL_ADDRESS. */
  TEMPORAL_TLS_SERVER_NAME: z.string().min(1).optional(),
  /** Temporal Cloud API key (sent as `Authorization: Bearer`); turns TLS on unless TEMPORAL_TLS=false. */
  TEMPORAL_API_KEY: z.string().min(1).optional(),
  /**
   * The Temporal Web UI, for the links `labelctl creations` prints; unset: `npm run dev`'s UI outside production, no
   * links in production.
   */
  TEMPORAL_UI_URL: z.string().url().optional(),
  // Worker tuning; unset: the Temporal SDK's defaults.
  WORKER_MAX_CONCURRENT_WORKFLOW_TASKS: z.coerce.number().int().min(2).optional(),
  WORKER_MAX_CONCURRENT_ACTIVITIES: z.coerce.number().int().positive().optional(),
  WORKER_MAX_CONCURRENT_LOCAL_ACTIVITIES: z.coerce.number().int().positive().optional(),
  /**
   * Workflows kept in the worker's sticky cache; a miss replays its history. Measured (docs/benchmarks.md, "Memory"):
   * about 0.4 MiB of RSS per open creation, so 1,000 hold a worker near 650 MiB. The SDK's own default follows the
   * heap limit (about 2,300 workflows for Node's 4 GiB), which would let a worker grow past 1 GiB.
   */
  WORKER_MAX_CACHED_WORKFLOWS: z.coerce.number().int().min(0).default(1000),
  /**
   * On SIGTERM the worker stops polling and gives running activities this long to finish before cancelling them: longer
   * than a carrier call (CARRIER_TIMEOUT), so a deploy does not leave creations with an unclear outcome.
   */
  WORKER_SHUTDOWN_GRACE_TIME: duration('15s'),
  SUPPORT_EMAIL: z.string().email().default('support@example.com'),
  // Durations of the spec; tests shorten them.
  REQUEST_LOG_RETENTION: duration('90d'),
  REQUEST_LOG_PURGE_INTERVAL: duration('1h'),
  /** In-flight idempotency claims: a request that dies mid-flight frees its key this long afterwards. */
  IDEMPOTENCY_LEASE: duration('30s'),
  /**
   * How long a request waits for a rate-limit counter row another request holds before the counters count as
   * unavailable (503 `temporarily_unavailable`, never an unlimited pass).
   */
  RATE_LIMIT_LOCK_TIMEOUT: duration('2s'),
  /**
   * Connections of each API process's hot pool (authentication, rate-limit counters, hot label reads): its statements
   * are short, and more than two in flight only queue on a key's counter rows (docs/decisions/0021-hot-pool-size.md).
   */
  HOT_POOL_SIZE: z.coerce.number().int().min(1).max(100).default(2),
  /** Trust X-Forwarded-* from a reverse proxy (the request log then records the client address). */
  TRUST_PROXY: z.enum(['true', 'false']).default('false'),
  /**
   * How long an idle client connection stays open (decision 0030): longer than a load balancer's idle timeout (60 s on
   * AWS's), so that the balancer, not the API, closes it first. At most 15 minutes (Google Cloud's balancers keep 600 s).
   */
  HTTP_KEEP_ALIVE_TIMEOUT: duration('65s').pipe(z.number().min(1_000).max(900_000)),
  MAX_BODY_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(256 * 1024),
  /** Labels whose wire JSON the API keeps in memory, checked against the row's version on every read (decision 0020). */
  LABEL_JSON_CACHE_ENTRIES: z.coerce.number().int().min(1).default(20_000),
  /** SMTP transport for store notifications; unset keeps them in the outbox (`labelctl outbox`). */
  SMTP_URL: z.string().url().optional(),
  MAIL_FROM: z.string().default('Shipping Label API <no-reply@example.com>'),
  NOTIFICATION_DELIVERY_INTERVAL: duration('1m'),
  /** Signs `GET /labels` cursors; required in production, a fixed development value elsewhere. */
  CURSOR_SECRET: z.string().min(16).optional(),
  /** Serve the API's /metrics on this port instead of the API port (not exposed with the API). */
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  /** The worker's Prometheus endpoint (Temporal SDK runtime metrics and worker liveness); unset: none. */
  WORKER_METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  /** Interface the metrics ports bind to. */
  METRICS_HOST: z.string().default('127.0.0.1'),
  /** Traces (OpenTelemetry, docs/decisions/0950-tracing.md): `otlp` exports them; `none` (default) installs nothing. */
  OTEL_TRACES_EXPORTER: z.enum(['none', 'otlp']).default('none'),
  /**
   * Where spans go. Over HTTP the generic OTEL_EXPORTER_OTLP_ENDPOINT gains `/v1/traces` (default
   * http://localhost:4318); over gRPC it is the collector's address (default http://localhost:4317).
   */
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z.string().url().optional(),
  OTEL_EXPORTER_OTLP_ENDPOINT: z.string().url().optional(),
  /** OTLP's encodings, as the OpenTelemetry specification names them; its default is `http/protobuf`. */
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: z.enum(OTLP_PROTOCOLS).optional(),
  OTEL_EXPORTER_OTLP_PROTOCOL: z.enum(OTLP_PROTOCOLS).default('http/protobuf'),
  /**
   * The sampler, by the specification's names. The default is the ratio sampler below a caller's decision, whose
   * ratio defaults to 1: the specification's `parentbased_always_on` until OTEL_TRACES_SAMPLER_ARG lowers it.
   */
  OTEL_TRACES_SAMPLER: z.enum(TRACE_SAMPLERS).default('parentbased_traceidratio'),
  /** Share of new traces kept (0..1) by the `traceidratio` samplers; the others take no argument. */
  OTEL_TRACES_SAMPLER_ARG: z.coerce.number().min(0).max(1).default(1),
  /**
   * Share of the new traces that reads (GET and HEAD requests) start which the `traceidratio` samplers keep, at most
   * OTEL_TRACES_SAMPLER_ARG. Reads are most requests and each is worth least as a trace: one in ten by default keeps
   * most of the export's cost off the read path (docs/decisions/0951-read-sampling.md). A caller's sampled
   * `traceparent` is followed whatever this says.
   */
  TRACES_READ_SAMPLE_RATIO: z.coerce.number().min(0).max(1).default(0.1),
  /**
   * At most this many of those read traces kept per second by each process (`unlimited`: no cap): what kept reads cost
   * stays the same however busy the API gets, as a peer tracer's rate limit does (decision 0951).
   */
  TRACES_READ_SAMPLES_PER_SECOND: z
    .union([z.literal('unlimited').transform(() => Infinity), z.coerce.number().positive()])
    .default(10),
  /** The `service.name` of the spans; the API and the worker append nothing, each process names itself by default. */
  OTEL_SERVICE_NAME: z.string().min(1).optional(),
  /** The sandbox (store platform and carrier simulators, src/sandbox-server.ts); test mode talks to it. */
  SANDBOX_URL: z.string().url().default('http://127.0.0.1:4010'),
  /**
   * Development and tests only: loopback origins (`http://127.0.0.1:8080`) that operator-configured URLs (custom pickup
   * point providers, webhook endpoints) may use over plain HTTP, to try a provider or receiver of one's own. Production
   * refuses to start with it (docs/decisions/0609-local-outbound-origins.md).
   */
  LOCAL_OUTBOUND_ORIGINS: z
    .string()
    .default('')
    .transform((value, ctx) => {
      try {
        return parseLocalOrigins(value);
      } catch (error) {
        ctx.addIssue({ code: 'custom', message: (error as Error).message });
        return z.NEVER;
      }
    }),
  /** Whether this worker creates and updates the Schedules (one deployment should; extra worker pools need not). */
  WORKER_MANAGES_SCHEDULES: z.enum(['true', 'false']).default('true'),
  /** One HTTP call to a carrier; past it the outcome of a create is unclear. */
  CARRIER_TIMEOUT: duration('10s'),
  // Label creation (spec "Label creation `status`" and "Limits"); tests shorten them.
  CREATION_NOT_STARTED_AFTER: duration('5m'),
  CREATION_KEY_TTL: duration('30d'),
  /**
   * Creations in flight (accepted, not yet out of `processing`) across every store, counted exactly in PostgreSQL;
   * beyond it `POST /labels` answers 503 `temporarily_unavailable` with `Retry-After: 30` (decision 0407).
   */
  CREATION_QUEUE_PLATFORM_MAX: z.coerce.number().int().positive().default(1000),
  CREATION_LOCK_RETRY: duration('3s'),
  CREATION_LOCK_STALE_AFTER: duration('15m'),
  CREATION_ADOPTION_POLL: duration('2s'),
  CARRIER_PENDING_MAX: duration('10m'),
  CARRIER_POLL: duration('1s'),
  RESOLVE_ALLOWED_AFTER: duration('15m'),
  /** While a creation needs attention: first and longest wait between looks at the carrier (doubling). */
  ATTENTION_RETRY_INITIAL: duration('1m'),
  ATTENTION_RETRY_MAX: duration('30m'),
  /** `needs_attention` without resolve this long: abandoned (spec: 24 hours). */
  CREATION_ABANDON_AFTER: duration('24h'),
  /** An abandoned creation's record is deleted this long after it was created (spec: 90 days). */
  ABANDONED_CREATION_DELETE_AFTER: duration('90d'),
  // Carrier protection (spec "Errors": `carrier_unavailable`, `repeated_rejection`; docs/decisions/0500-0502).
  /** Unclear results in a row on one carrier account that open its circuit. */
  CARRIER_CIRCUIT_THRESHOLD: z.coerce.number().int().positive().default(5),
  /** How long an open circuit fails new creations without calling the carrier. */
  CARRIER_CIRCUIT_OPEN: duration('5m'),
  /** Refusals on one account within the window that stop its creations (`account_rejecting`). */
  CARRIER_ACCOUNT_REJECTING_LIMIT: z.coerce.number().int().positive().default(5),
  CARRIER_ACCOUNT_REJECTING_WINDOW: duration('10m'),
  /** Refusals of the same shipment within the window that stop it (`repeated_rejection`, scope `fingerprint`). */
  REPEATED_REJECTION_LIMIT: z.coerce.number().int().positive().default(3),
  REPEATED_REJECTION_WINDOW: duration('60m'),
  /** Refusals per fulfillment order within the window (`repeated_rejection`, scope `fulfillment_order_daily`). */
  FULFILLMENT_ORDER_REFUSAL_LIMIT: z.coerce.number().int().positive().default(30),
  FULFILLMENT_ORDER_REFUSAL_WINDOW: duration('24h'),
  /** Encrypts secrets operators configure (pickup point provider headers, webhook secrets): 32 bytes, base64. */
  SETTINGS_ENCRYPTION_KEY: z
    .string()
    .transform((value, ctx) => {
      const key = Buffer.from(value, 'base64');
      if (key.length !== 32) {
        ctx.addIssue({ code: 'custom', message: 'must be 32 bytes in base64 (openssl rand -base64 32)' });
        return z.NEVER;
      }
      return key;
    })
    .optional(),
  /** The Shopify Admin API version every query is written for (docs/shopify.md, "API version"). */
  SHOPIFY_API_VERSION: z
    .string()
    .regex(/^\d{4}-(01|04|07|10)$/, 'a Shopify API version such as 2026-10')
    .default('2026-10'),
  /** The Admin GraphQL endpoint; `{shop}` and `{version}` are filled in. Tests point it at the fake Shopify. */
  SHOPIFY_ADMIN_URL: z
    .string()
    .refine((v) => v.includes('{shop}'), 'must contain {shop}')
    .default('https://{shop}/admin/api/{version}/graphql.json'),
  /** One Admin API request, connect to complete answer; past it the call is `shopify_unavailable`. */
  SHOPIFY_TIMEOUT: duration('10s'),
  /**
   * The public Shopify app (docs/shopify.md, "Installing the app"): its client ID and secret from the Partner Dashboard
   * (`client_id` of shopify.app.toml). Unset: the install, callback and webhook endpoints answer 404 and stores connect
   * only with `labelctl store connect` (custom apps).
   */
  SHOPIFY_API_KEY: z.string().min(1).optional(),
  SHOPIFY_API_SECRET: z.string().min(1).optional(),
  /**
   * Where Shopify and merchants reach this service (`application_url` of shopify.app.toml without its path): the OAuth
   * redirect is `<SHOPIFY_APP_URL>/shopify/callback`. Unset: PUBLIC_BASE_URL.
   */
  SHOPIFY_APP_URL: z.string().url().optional(),
  /**
   * A shop's own origin, `{shop}` filled in: where the OAuth code is exchanged for a token. Tests point it at the fake
   * Shopify; production keeps Shopify's.
   */
  SHOPIFY_SHOP_URL: z
    .string()
    .refine((v) => v.includes('{shop}'), 'must contain {shop}')
    .default('https://{shop}'),
  /** Where customer data exports (Shopify's `customers/data_request`) are sent from the outbox; unset: SUPPORT_EMAIL. */
  PRIVACY_EXPORT_EMAIL: z.string().email().optional(),
  /** How long a customer redaction waits between looks at creations still in flight for its orders (tests shorten it). */
  SHOPIFY_REDACT_RETRY: duration('10m'),
  /** Custom pickup point providers (docs/decisions/0202): time box per call, answer cache, stale answers. */
  PICKUP_PROVIDER_TIMEOUT: duration('3s'),
  PICKUP_POINT_CACHE_TTL: duration('5m'),
  PICKUP_POINT_STALE_TTL: duration('24h'),
  /** Webhook delivery (docs/webhooks.md): time box per request, exponential backoff, and how long to keep trying. */
  WEBHOOK_TIMEOUT: duration('10s'),
  WEBHOOK_RETRY_INITIAL: duration('30s'),
  WEBHOOK_RETRY_MAX_INTERVAL: duration('1h'),
  WEBHOOK_RETRY_WINDOW: duration('24h'),
  /** Webhook events, with their deliveries and attempts, are deleted this long after the event (hourly housekeeping). */
  WEBHOOK_RETENTION: duration('30d'),
});

const DEV_CURSOR_SECRET = 'development-only-cursor-secret';
/** The Web UI `npm run dev` serves (TEMPORAL_UI_PORT's default). */
const DEV_TEMPORAL_UI_URL = 'http://127.0.0.1:8233';
/** Values shipped in examples: anyone can read them, so production refuses them. */
const PLACEHOLDER_SECRETS = new Set([DEV_CURSOR_SECRET, 'change-me-to-a-long-random-value']);
const DEV_SETTINGS_KEY = createHash('sha256').update('development-only-settings-encryption-key').digest();

/** TLS towards the Temporal server: the system's roots when empty. */
export interface TemporalTls {
  serverNameOverride?: string;
  serverRootCACertificate?: Buffer;
  clientCertPair?: { crt: Buffer; key: Buffer };
}

export interface TemporalSettings {
  address: string;
  namespace: string;
  taskQueue: string;
  namespaceRetentionMs: number;
  /** Undefined: plain gRPC (a local server). */
  tls: Readonly<TemporalTls> | undefined;
  apiKey: string | undefined;
  /** Base URL of the Temporal Web UI, without a trailing slash; undefined: none known. */
  webUiUrl: string | undefined;
}

/** Options of `Worker.create`; undefined ones keep the SDK's defaults. */
export interface WorkerSettings {
  maxConcurrentWorkflowTaskExecutions: number | undefined;
  maxConcurrentActivityTaskExecutions: number | undefined;
  maxConcurrentLocalActivityExecutions: number | undefined;
  maxCachedWorkflows: number;
  shutdownGraceTimeMs: number;
}

type Env = z.infer<typeof envSchema>;

/** A PEM from its `_PATH` file or its `_DATA` value; one problem per variable into `problems`. */
function pem(e: Env, name: 'SERVER_CA_CERT' | 'CLIENT_CERT' | 'CLIENT_KEY', problems: string[]): Buffer | undefined {
  const path = e[`TEMPORAL_TLS_${name}_PATH`];
  const data = e[`TEMPORAL_TLS_${name}_DATA`];
  if (path && data) {
    problems.push(`TEMPORAL_TLS_${name}_PATH, TEMPORAL_TLS_${name}_DATA: set one of them, not both`);
    return undefined;
  }
  if (data) return Buffer.from(data);
  if (!path) return undefined;
  try {
    return readFileSync(path);
  } catch (error) {
    problems.push(
      `TEMPORAL_TLS_${name}_PATH: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
    );
    return undefined;
  }
}

/** TLS as Temporal's client environment configuration reads it: explicit TEMPORAL_TLS, else on when anything asks for it. */
function temporalTls(e: Env, problems: string[]): TemporalTls | undefined {
  const ca = pem(e, 'SERVER_CA_CERT', problems);
  const crt = pem(e, 'CLIENT_CERT', problems);
  const key = pem(e, 'CLIENT_KEY', problems);
  if (Boolean(crt) !== Boolean(key))
    problems.push('TEMPORAL_TLS_CLIENT_CERT_*, TEMPORAL_TLS_CLIENT_KEY_*: mTLS needs both the certificate and the key');
  const asked = Boolean(ca || crt || key || e.TEMPORAL_TLS_SERVER_NAME || e.TEMPORAL_API_KEY);
  if (e.TEMPORAL_TLS === 'false') {
    if (ca || crt || key || e.TEMPORAL_TLS_SERVER_NAME)
      problems.push('TEMPORAL_TLS: false, but TLS certificates or a server name are set');
    return undefined;
  }
  if (e.TEMPORAL_TLS !== 'true' && !asked) return undefined;
  return Object.freeze({
    ...(e.TEMPORAL_TLS_SERVER_NAME ? { serverNameOverride: e.TEMPORAL_TLS_SERVER_NAME } : {}),
    ...(ca ? { serverRootCACertificate: ca } : {}),
    ...(crt && key ? { clientCertPair: Object.freeze({ crt, key }) } : {}),
  });
}

export interface LogSettings {
  format: 'json' | 'pretty';
  requests: 'all' | 'errors' | 'none';
}

export type Config = Readonly<{
  env: 'development' | 'test' | 'production';
  port: number;
  host: string;
  publicBaseUrl: string | undefined;
  logLevel: string;
  log: Readonly<LogSettings>;
  databaseUrl: string;
  temporal: Readonly<TemporalSettings>;
  worker: Readonly<WorkerSettings>;
  supportEmail: string;
  requestLog: Readonly<{ retentionMs: number; purgeIntervalMs: number }>;
  maxBodyBytes: number;
  labelJsonCacheEntries: number;
  idempotencyLeaseMs: number;
  rateLimitLockTimeoutMs: number;
  hotPoolSize: number;
  trustProxy: boolean;
  keepAliveTimeoutMs: number;
  mail: Readonly<{ smtpUrl: string | undefined; from: string; deliveryIntervalMs: number }>;
  cursorSecret: string;
  sandboxUrl: string;
  /** Loopback origins the SSRF guard lets through outside production (always empty in production). */
  localOutboundOrigins: readonly string[];
  carrierTimeoutMs: number;
  workerManagesSchedules: boolean;
  creation: Readonly<{
    notStartedMs: number;
    keyTtlMs: number;
    /** CREATION_QUEUE_PLATFORM_MAX: the platform-wide creation queue's cap. */
    platformQueueMax: number;
    lockRetryMs: number;
    lockStaleMs: number;
    adoptionPollMs: number;
    carrierPendingMaxMs: number;
    carrierPollMs: number;
    resolveAllowedAfterMs: number;
    attentionRetryInitialMs: number;
    attentionRetryMaxMs: number;
    abandonAfterMs: number;
    abandonedDeleteAfterMs: number;
  }>;
  carrierProtection: Readonly<CarrierProtectionSettings>;
  metrics: Readonly<{ host: string; apiPort: number | undefined; workerPort: number | undefined }>;
  tracing: Readonly<TracingSettings>;
  settingsEncryptionKey: Buffer;
  shopify: Readonly<{ apiVersion: string; adminUrl: string; timeoutMs: number }>;
  /** The public Shopify app; undefined without SHOPIFY_API_KEY and SHOPIFY_API_SECRET (custom apps only). */
  shopifyApp: Readonly<ShopifyAppSettings> | undefined;
  privacy: Readonly<{ exportEmail: string; redactRetryMs: number }>;
  pickupPoints: Readonly<{ providerTimeoutMs: number; cacheTtlMs: number; staleTtlMs: number }>;
  webhooks: Readonly<{
    timeoutMs: number;
    retentionMs: number;
    retry: Readonly<{ initialIntervalMs: number; maximumIntervalMs: number; windowMs: number }>;
  }>;
}>;

export interface ShopifyAppSettings {
  apiKey: string;
  apiSecret: string;
  /** Scheme, host and port merchants and Shopify reach the service at, without a trailing slash. */
  appUrl: string;
  /** A shop's origin, `{shop}` filled in (production: `https://{shop}`). */
  shopUrl: string;
}

export interface TracingSettings {
  exporter: 'none' | 'otlp';
  protocol: OtlpProtocol;
  /** Over HTTP the traces URL (`…/v1/traces`); over gRPC the collector's address. */
  endpoint: string;
  /** OTEL_TRACES_SAMPLER: which sampler; `sampleRatio` is its argument (read by the `traceidratio` ones only). */
  sampler: TraceSampler;
  sampleRatio: number;
  /** TRACES_READ_SAMPLE_RATIO: the `traceidratio` samplers' share for new traces started by reads. */
  readSampleRatio: number;
  /** TRACES_READ_SAMPLES_PER_SECOND: at most this many of those kept per second and process (Infinity: no cap). */
  readSamplesPerSecond: number;
  serviceName: string | undefined;
}

/** The traces' own variables first, then the generic ones, as the OpenTelemetry specification orders them. */
function tracingSettings(e: z.infer<typeof envSchema>): TracingSettings {
  const protocol = e.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? e.OTEL_EXPORTER_OTLP_PROTOCOL;
  const generic = e.OTEL_EXPORTER_OTLP_ENDPOINT?.replace(/\/$/, '');
  const endpoint =
    e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ??
    (protocol === 'grpc' ? (generic ?? 'http://localhost:4317') : `${generic ?? 'http://localhost:4318'}/v1/traces`);
  return {
    exporter: e.OTEL_TRACES_EXPORTER,
    protocol,
    endpoint,
    sampler: e.OTEL_TRACES_SAMPLER,
    sampleRatio: e.OTEL_TRACES_SAMPLER_ARG,
    readSampleRatio: e.TRACES_READ_SAMPLE_RATIO,
    readSamplesPerSecond: e.TRACES_READ_SAMPLES_PER_SECOND,
    serviceName: e.OTEL_SERVICE_NAME,
  };
}

/** Parses the environment once; throws one readable message listing every bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`);
    throw new Error(`invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  const problems: string[] = [];
  const tls = temporalTls(e, problems);
  if (problems.length) throw new Error(`invalid configuration:\n${problems.map((line) => `  ${line}`).join('\n')}`);
  if (e.NODE_ENV === 'production' && (!e.CURSOR_SECRET || PLACEHOLDER_SECRETS.has(e.CURSOR_SECRET)))
    throw new Error(
      'invalid configuration:\n  CURSOR_SECRET: required in production (a long random value of your own)',
    );
  if (e.NODE_ENV === 'production' && !e.SETTINGS_ENCRYPTION_KEY)
    throw new Error('invalid configuration:\n  SETTINGS_ENCRYPTION_KEY: required in production');
  if (e.NODE_ENV === 'production' && !e.SHOPIFY_ADMIN_URL.startsWith('https://'))
    throw new Error('invalid configuration:\n  SHOPIFY_ADMIN_URL: must be https:// in production');
  if (Boolean(e.SHOPIFY_API_KEY) !== Boolean(e.SHOPIFY_API_SECRET))
    throw new Error('invalid configuration:\n  SHOPIFY_API_KEY, SHOPIFY_API_SECRET: set both (the app) or neither');
  const shopifyAppUrl = (e.SHOPIFY_APP_URL ?? e.PUBLIC_BASE_URL)?.replace(/\/+$/, '');
  if (e.SHOPIFY_API_KEY && !shopifyAppUrl)
    throw new Error('invalid configuration:\n  SHOPIFY_APP_URL: required with SHOPIFY_API_KEY (or PUBLIC_BASE_URL)');
  if (e.NODE_ENV === 'production' && e.SHOPIFY_API_KEY && !shopifyAppUrl!.startsWith('https://'))
    throw new Error('invalid configuration:\n  SHOPIFY_APP_URL: must be https:// in production');
  if (e.NODE_ENV === 'production' && !e.SHOPIFY_SHOP_URL.startsWith('https://'))
    throw new Error('invalid configuration:\n  SHOPIFY_SHOP_URL: must be https:// in production');
  if (e.NODE_ENV === 'production' && e.LOG_FORMAT === 'pretty')
    throw new Error(
      'invalid configuration:\n  LOG_FORMAT: pretty is for people at a terminal in development; production logs JSON',
    );
  if (e.NODE_ENV === 'production' && e.LOCAL_OUTBOUND_ORIGINS.length > 0)
    throw new Error(
      'invalid configuration:\n  LOCAL_OUTBOUND_ORIGINS: not allowed in production (providers and webhook endpoints must be public HTTPS there)',
    );
  return Object.freeze({
    env: e.NODE_ENV,
    port: e.PORT,
    host: e.HOST,
    publicBaseUrl: e.PUBLIC_BASE_URL?.replace(/\/+$/, ''),
    logLevel: e.LOG_LEVEL,
    log: Object.freeze({ format: e.LOG_FORMAT, requests: e.LOG_REQUESTS }),
    databaseUrl: e.DATABASE_URL,
    temporal: Object.freeze({
      address: e.TEMPORAL_ADDRESS,
      namespace: e.TEMPORAL_NAMESPACE,
      taskQueue: e.TEMPORAL_TASK_QUEUE,
      namespaceRetentionMs: e.TEMPORAL_NAMESPACE_RETENTION,
      tls,
      apiKey: e.TEMPORAL_API_KEY,
      webUiUrl: (e.TEMPORAL_UI_URL ?? (e.NODE_ENV === 'production' ? undefined : DEV_TEMPORAL_UI_URL))?.replace(
        /\/+$/,
        '',
      ),
    }),
    worker: Object.freeze({
      maxConcurrentWorkflowTaskExecutions: e.WORKER_MAX_CONCURRENT_WORKFLOW_TASKS,
      maxConcurrentActivityTaskExecutions: e.WORKER_MAX_CONCURRENT_ACTIVITIES,
      maxConcurrentLocalActivityExecutions: e.WORKER_MAX_CONCURRENT_LOCAL_ACTIVITIES,
      maxCachedWorkflows: e.WORKER_MAX_CACHED_WORKFLOWS,
      shutdownGraceTimeMs: e.WORKER_SHUTDOWN_GRACE_TIME,
    }),
    supportEmail: e.SUPPORT_EMAIL,
    requestLog: Object.freeze({ retentionMs: e.REQUEST_LOG_RETENTION, purgeIntervalMs: e.REQUEST_LOG_PURGE_INTERVAL }),
    maxBodyBytes: e.MAX_BODY_BYTES,
    labelJsonCacheEntries: e.LABEL_JSON_CACHE_ENTRIES,
    idempotencyLeaseMs: e.IDEMPOTENCY_LEASE,
    rateLimitLockTimeoutMs: e.RATE_LIMIT_LOCK_TIMEOUT,
    hotPoolSize: e.HOT_POOL_SIZE,
    trustProxy: e.TRUST_PROXY === 'true',
    keepAliveTimeoutMs: e.HTTP_KEEP_ALIVE_TIMEOUT,
    mail: Object.freeze({
      smtpUrl: e.SMTP_URL,
      from: e.MAIL_FROM,
      deliveryIntervalMs: e.NOTIFICATION_DELIVERY_INTERVAL,
    }),
    cursorSecret: e.CURSOR_SECRET ?? DEV_CURSOR_SECRET,
    sandboxUrl: e.SANDBOX_URL.replace(/\/+$/, ''),
    localOutboundOrigins: Object.freeze(e.LOCAL_OUTBOUND_ORIGINS),
    carrierTimeoutMs: e.CARRIER_TIMEOUT,
    workerManagesSchedules: e.WORKER_MANAGES_SCHEDULES === 'true',
    creation: Object.freeze({
      notStartedMs: e.CREATION_NOT_STARTED_AFTER,
      keyTtlMs: e.CREATION_KEY_TTL,
      platformQueueMax: e.CREATION_QUEUE_PLATFORM_MAX,
      lockRetryMs: e.CREATION_LOCK_RETRY,
      lockStaleMs: e.CREATION_LOCK_STALE_AFTER,
      adoptionPollMs: e.CREATION_ADOPTION_POLL,
      carrierPendingMaxMs: e.CARRIER_PENDING_MAX,
      carrierPollMs: e.CARRIER_POLL,
      resolveAllowedAfterMs: e.RESOLVE_ALLOWED_AFTER,
      attentionRetryInitialMs: e.ATTENTION_RETRY_INITIAL,
      attentionRetryMaxMs: e.ATTENTION_RETRY_MAX,
      abandonAfterMs: e.CREATION_ABANDON_AFTER,
      abandonedDeleteAfterMs: e.ABANDONED_CREATION_DELETE_AFTER,
    }),
    carrierProtection: Object.freeze({
      circuitThreshold: e.CARRIER_CIRCUIT_THRESHOLD,
      circuitOpenMs: e.CARRIER_CIRCUIT_OPEN,
      accountRejectingLimit: e.CARRIER_ACCOUNT_REJECTING_LIMIT,
      accountRejectingWindowMs: e.CARRIER_ACCOUNT_REJECTING_WINDOW,
      fingerprintLimit: e.REPEATED_REJECTION_LIMIT,
      fingerprintWindowMs: e.REPEATED_REJECTION_WINDOW,
      fulfillmentOrderDailyLimit: e.FULFILLMENT_ORDER_REFUSAL_LIMIT,
      fulfillmentOrderWindowMs: e.FULFILLMENT_ORDER_REFUSAL_WINDOW,
    }),
    metrics: Object.freeze({ host: e.METRICS_HOST, apiPort: e.METRICS_PORT, workerPort: e.WORKER_METRICS_PORT }),
    tracing: Object.freeze(tracingSettings(e)),
    settingsEncryptionKey: e.SETTINGS_ENCRYPTION_KEY ?? DEV_SETTINGS_KEY,
    shopify: Object.freeze({
      apiVersion: e.SHOPIFY_API_VERSION,
      adminUrl: e.SHOPIFY_ADMIN_URL,
      timeoutMs: e.SHOPIFY_TIMEOUT,
    }),
    shopifyApp:
      e.SHOPIFY_API_KEY && e.SHOPIFY_API_SECRET && shopifyAppUrl
        ? Object.freeze({
            apiKey: e.SHOPIFY_API_KEY,
            apiSecret: e.SHOPIFY_API_SECRET,
            appUrl: shopifyAppUrl,
            shopUrl: e.SHOPIFY_SHOP_URL.replace(/\/+$/, ''),
          })
        : undefined,
    privacy: Object.freeze({
      exportEmail: e.PRIVACY_EXPORT_EMAIL ?? e.SUPPORT_EMAIL,
      redactRetryMs: e.SHOPIFY_REDACT_RETRY,
    }),
    pickupPoints: Object.freeze({
      providerTimeoutMs: e.PICKUP_PROVIDER_TIMEOUT,
      cacheTtlMs: e.PICKUP_POINT_CACHE_TTL,
      staleTtlMs: e.PICKUP_POINT_STALE_TTL,
    }),
    webhooks: Object.freeze({
      timeoutMs: e.WEBHOOK_TIMEOUT,
      retentionMs: e.WEBHOOK_RETENTION,
      retry: Object.freeze({
        initialIntervalMs: e.WEBHOOK_RETRY_INITIAL,
        maximumIntervalMs: e.WEBHOOK_RETRY_MAX_INTERVAL,
        windowMs: e.WEBHOOK_RETRY_WINDOW,
      }),
    }),
  });
}

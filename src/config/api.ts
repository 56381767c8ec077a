import { z } from 'zod';
import { duration, invalidConfiguration, type CoreEnv } from './core';

/** The API process: how it listens, what each request may cost it, cursors, and the public Shopify app it serves. */
export const apiShape = {
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().default('127.0.0.1'),
  /** Public base URL of the API, without /v1; used in `url` fields, Location headers and doc_url. */
  PUBLIC_BASE_URL: z.string().url().optional(),
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
  /** Signs `GET /labels` cursors; required in production, a fixed development value elsewhere. */
  CURSOR_SECRET: z.string().min(16).optional(),
  /**
   * The public Shopify app (docs/shopify.md, "Installing the app"): its client ID and secret from the Partner Dashboard
   * (`client_id` of shopify.app.toml). Unset: the install, callback and webhook endpoints answer 404 and stores connect
   * only with `labelctl store connect` (custom apps). Every process reads them: each refreshes and migrates the
   * installs' expiring tokens (decision 0710).
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
};

type ApiEnv = z.infer<z.ZodObject<typeof apiShape>> & Pick<CoreEnv, 'NODE_ENV'>;

const DEV_CURSOR_SECRET = 'development-only-cursor-secret';
/** Values shipped in examples: anyone can read them, so production refuses them. */
const PLACEHOLDER_SECRETS = new Set([DEV_CURSOR_SECRET, 'change-me-to-a-long-random-value']);

export interface ShopifyAppSettings {
  apiKey: string;
  apiSecret: string;
  /** Scheme, host and port merchants and Shopify reach the service at, without a trailing slash. */
  appUrl: string;
  /** A shop's origin, `{shop}` filled in (production: `https://{shop}`). */
  shopUrl: string;
}

export type ApiConfig = Readonly<{
  port: number;
  host: string;
  publicBaseUrl: string | undefined;
  maxBodyBytes: number;
  labelJsonCacheEntries: number;
  idempotencyLeaseMs: number;
  rateLimitLockTimeoutMs: number;
  hotPoolSize: number;
  trustProxy: boolean;
  keepAliveTimeoutMs: number;
  cursorSecret: string;
  /** The public Shopify app; undefined without SHOPIFY_API_KEY and SHOPIFY_API_SECRET (custom apps only). */
  shopifyApp: Readonly<ShopifyAppSettings> | undefined;
}>;

export function apiSettings(e: ApiEnv): ApiConfig {
  if (e.NODE_ENV === 'production' && (!e.CURSOR_SECRET || PLACEHOLDER_SECRETS.has(e.CURSOR_SECRET)))
    throw invalidConfiguration(['CURSOR_SECRET: required in production (a long random value of your own)']);
  if (Boolean(e.SHOPIFY_API_KEY) !== Boolean(e.SHOPIFY_API_SECRET))
    throw invalidConfiguration(['SHOPIFY_API_KEY, SHOPIFY_API_SECRET: set both (the app) or neither']);
  const shopifyAppUrl = (e.SHOPIFY_APP_URL ?? e.PUBLIC_BASE_URL)?.replace(/\/+$/, '');
  if (e.SHOPIFY_API_KEY && !shopifyAppUrl)
    throw invalidConfiguration(['SHOPIFY_APP_URL: required with SHOPIFY_API_KEY (or PUBLIC_BASE_URL)']);
  if (e.NODE_ENV === 'production' && e.SHOPIFY_API_KEY && !shopifyAppUrl!.startsWith('https://'))
    throw invalidConfiguration(['SHOPIFY_APP_URL: must be https:// in production']);
  if (e.NODE_ENV === 'production' && !e.SHOPIFY_SHOP_URL.startsWith('https://'))
    throw invalidConfiguration(['SHOPIFY_SHOP_URL: must be https:// in production']);
  return {
    port: e.PORT,
    host: e.HOST,
    publicBaseUrl: e.PUBLIC_BASE_URL?.replace(/\/+$/, ''),
    maxBodyBytes: e.MAX_BODY_BYTES,
    labelJsonCacheEntries: e.LABEL_JSON_CACHE_ENTRIES,
    idempotencyLeaseMs: e.IDEMPOTENCY_LEASE,
    rateLimitLockTimeoutMs: e.RATE_LIMIT_LOCK_TIMEOUT,
    hotPoolSize: e.HOT_POOL_SIZE,
    trustProxy: e.TRUST_PROXY === 'true',
    keepAliveTimeoutMs: e.HTTP_KEEP_ALIVE_TIMEOUT,
    cursorSecret: e.CURSOR_SECRET ?? DEV_CURSOR_SECRET,
    shopifyApp:
      e.SHOPIFY_API_KEY && e.SHOPIFY_API_SECRET && shopifyAppUrl
        ? Object.freeze({
            apiKey: e.SHOPIFY_API_KEY,
            apiSecret: e.SHOPIFY_API_SECRET,
            appUrl: shopifyAppUrl,
            shopUrl: e.SHOPIFY_SHOP_URL.replace(/\/+$/, ''),
          })
        : undefined,
  };
}

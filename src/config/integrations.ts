import { createHash } from 'node:crypto';
import { z } from 'zod';
import { parseLocalOrigins } from '../net/target-guard';
import { duration, invalidConfiguration, type CoreEnv } from './core';

/**
 * What the services of both processes reach outside: the sandbox, operators' own endpoints, the Shopify Admin API,
 * custom pickup point providers, and the key that seals the secrets operators configure for them.
 */
export const integrationsShape = {
  /** The sandbox (store platform and carrier simulators, src/sandbox-server.ts); test mode talks to it. */
  SANDBOX_URL: z.string().url().default('http://127.0.0.1:4010'),
  /**
   * Packeta's REST/XML API, for carrier A accounts whose endpoint is `packeta` (docs/carriers/packeta.md). The tests
   * and `npm run dev -- --packeta` point it at the sandbox's fake Packeta (`{SANDBOX_URL}/packeta/api/rest`).
   */
  PACKETA_API_URL: z.string().url().default('https://www.zasilkovna.cz/api/rest'),
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
  /** Where customer data exports (Shopify's `customers/data_request`) are sent from the outbox; unset: SUPPORT_EMAIL. */
  PRIVACY_EXPORT_EMAIL: z.string().email().optional(),
  /** How long a customer redaction waits between looks at creations still in flight for its orders (tests shorten it). */
  SHOPIFY_REDACT_RETRY: duration('10m'),
  /** Custom pickup point providers (docs/decisions/0202): time box per call, answer cache, stale answers. */
  PICKUP_PROVIDER_TIMEOUT: duration('3s'),
  PICKUP_POINT_CACHE_TTL: duration('5m'),
  PICKUP_POINT_STALE_TTL: duration('24h'),
};

type IntegrationsEnv = z.infer<z.ZodObject<typeof integrationsShape>> & Pick<CoreEnv, 'NODE_ENV' | 'SUPPORT_EMAIL'>;

const DEV_SETTINGS_KEY = createHash('sha256').update('development-only-settings-encryption-key').digest();

export type IntegrationsConfig = Readonly<{
  sandboxUrl: string;
  packetaApiUrl: string;
  /** Loopback origins the SSRF guard lets through outside production (always empty in production). */
  localOutboundOrigins: readonly string[];
  settingsEncryptionKey: Buffer;
  shopify: Readonly<{ apiVersion: string; adminUrl: string; timeoutMs: number }>;
  privacy: Readonly<{ exportEmail: string; redactRetryMs: number }>;
  pickupPoints: Readonly<{ providerTimeoutMs: number; cacheTtlMs: number; staleTtlMs: number }>;
}>;

export function integrationsSettings(e: IntegrationsEnv): IntegrationsConfig {
  if (e.NODE_ENV === 'production' && !e.SETTINGS_ENCRYPTION_KEY)
    throw invalidConfiguration(['SETTINGS_ENCRYPTION_KEY: required in production']);
  if (e.NODE_ENV === 'production' && !e.SHOPIFY_ADMIN_URL.startsWith('https://'))
    throw invalidConfiguration(['SHOPIFY_ADMIN_URL: must be https:// in production']);
  if (e.NODE_ENV === 'production' && !e.PACKETA_API_URL.startsWith('https://'))
    throw invalidConfiguration(['PACKETA_API_URL: must be https:// in production (the API password travels in it)']);
  if (e.NODE_ENV === 'production' && e.LOCAL_OUTBOUND_ORIGINS.length > 0)
    throw invalidConfiguration([
      'LOCAL_OUTBOUND_ORIGINS: not allowed in production (providers and webhook endpoints must be public HTTPS there)',
    ]);
  return {
    sandboxUrl: e.SANDBOX_URL.replace(/\/+$/, ''),
    packetaApiUrl: e.PACKETA_API_URL,
    localOutboundOrigins: Object.freeze(e.LOCAL_OUTBOUND_ORIGINS),
    settingsEncryptionKey: e.SETTINGS_ENCRYPTION_KEY ?? DEV_SETTINGS_KEY,
    shopify: Object.freeze({
      apiVersion: e.SHOPIFY_API_VERSION,
      adminUrl: e.SHOPIFY_ADMIN_URL,
      timeoutMs: e.SHOPIFY_TIMEOUT,
    }),
    privacy: Object.freeze({
      exportEmail: e.PRIVACY_EXPORT_EMAIL ?? e.SUPPORT_EMAIL,
      redactRetryMs: e.SHOPIFY_REDACT_RETRY,
    }),
    pickupPoints: Object.freeze({
      providerTimeoutMs: e.PICKUP_PROVIDER_TIMEOUT,
      cacheTtlMs: e.PICKUP_POINT_CACHE_TTL,
      staleTtlMs: e.PICKUP_POINT_STALE_TTL,
    }),
  };
}

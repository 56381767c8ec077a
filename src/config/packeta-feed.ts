import { z } from 'zod';
import { duration, invalidConfiguration, type CoreEnv } from './core';

/**
 * Packeta's pickup-point feed (decision 1220, docs/operators.md "Packeta pickup-point feed"): the worker imports it on
 * a Schedule into PostgreSQL, where the searches of Packeta accounts read it. Without an API key there is no import
 * (and no Schedule).
 */
export const packetaFeedShape = {
  /** Packeta's API key (16 characters, client section, "User support"); a secret, it is part of the feed's URL. */
  PACKETA_FEED_API_KEY: z
    .string()
    .regex(/^[A-Za-z0-9]+$/, 'letters and digits only (the API key, not the 32-character API password)')
    .optional(),
  /** Where the feed's files are, before `/{API key}/branch.json`; the sandbox serves a fake at `{SANDBOX_URL}/packeta-feed/v5`. */
  PACKETA_FEED_URL: z.string().url().default('https://pickup-point.api.packeta.com/v5'),
  /** How often the feed is fetched: Packeta asks for hourly at peak, at least daily; its exports are cached 55 minutes. */
  PACKETA_FEED_INTERVAL: duration('1h'),
  /** One file's whole download. */
  PACKETA_FEED_TIMEOUT: duration('5m'),
  /** A reading of a file that would mark more than this share of its points vanished at once is not applied. */
  PACKETA_FEED_MAX_VANISHED_SHARE: z.coerce.number().gt(0).max(1).default(0.2),
};

type PacketaFeedEnv = z.infer<z.ZodObject<typeof packetaFeedShape>> & Pick<CoreEnv, 'NODE_ENV'>;

export type PacketaFeedConfig = Readonly<{
  /** Null: no API key, no import. */
  packetaFeed: Readonly<{
    /** The feed's base URL, without a trailing slash. */
    baseUrl: string;
    apiKey: string;
    timeoutMs: number;
    intervalMs: number;
    maxVanishedShare: number;
  }> | null;
}>;

export function packetaFeedSettings(e: PacketaFeedEnv): PacketaFeedConfig {
  if (e.NODE_ENV === 'production' && e.PACKETA_FEED_API_KEY && !e.PACKETA_FEED_URL.startsWith('https://'))
    throw invalidConfiguration(['PACKETA_FEED_URL: must be https:// in production (the API key is part of the URL)']);
  if (!e.PACKETA_FEED_API_KEY) return { packetaFeed: null };
  return {
    packetaFeed: Object.freeze({
      baseUrl: e.PACKETA_FEED_URL.replace(/\/+$/, ''),
      apiKey: e.PACKETA_FEED_API_KEY,
      timeoutMs: e.PACKETA_FEED_TIMEOUT,
      intervalMs: e.PACKETA_FEED_INTERVAL,
      maxVanishedShare: e.PACKETA_FEED_MAX_VANISHED_SHARE,
    }),
  };
}

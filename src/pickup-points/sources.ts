import type { CarrierPort } from '../carriers/port';
import type { Config } from '../config';
import type { Logger } from '../logger';
import { createProviderClient, PROVIDER_CLIENT_DEFAULTS, type ProviderClient } from './provider-client';
import { createProviderSearch } from './provider-search';
import type { PickupPointSources } from './search';
import { systemResolver, targetPolicy, type Resolver } from '../net/target-guard';

export type PickupPointConfig = Pick<Config, 'env' | 'sandboxUrl' | 'localOutboundOrigins' | 'pickupPoints'>;

/** The HTTP client for custom providers with the configured time box and the SSRF policy. */
export function providerClientFor(config: PickupPointConfig, resolve: Resolver = systemResolver): ProviderClient {
  return createProviderClient({
    ...PROVIDER_CLIENT_DEFAULTS,
    timeoutMs: config.pickupPoints.providerTimeoutMs,
    resolve,
    policy: targetPolicy(config),
  });
}

/** Carrier networks through the carrier port, custom providers through the cached provider search. */
export function createPickupPointSources(
  config: PickupPointConfig,
  carrierFor: (carrierCode: string) => CarrierPort,
  logger: Logger,
  options: {
    resolve?: Resolver;
    now?: () => Date;
    /** Counts what providers' answers held that is not shown (the API's metric). */
    onDropped?: (part: string, count: number) => void;
  } = {},
): PickupPointSources {
  return {
    carrierFor,
    logger,
    providerSearch: createProviderSearch({
      client: providerClientFor(config, options.resolve),
      cacheTtlMs: config.pickupPoints.cacheTtlMs,
      staleTtlMs: config.pickupPoints.staleTtlMs,
      now: options.now ?? (() => new Date()),
      logger,
      ...(options.onDropped ? { onDropped: options.onDropped } : {}),
    }),
  };
}

import { sandboxCarrierAdapter } from './carriers/sandbox-adapter';
import { ENDPOINT_ADAPTERS, EndpointRoutedCarrier } from './carriers/endpoints';
import { packetaPickupNetwork } from './carriers/packeta/feed/network';
import { ENDPOINT_CARRIERS } from './domain/carrier-catalog';
import type { CarrierPort } from './carriers/port';
import type { Config } from './config';
import { createLogger, type Logger } from './logger';
import type { PickupPointSources } from './pickup-points/search';
import { createPickupPointSources } from './pickup-points/sources';
import type { Orm } from './db/orm';
import { carrierRenderer } from './documents/carrier-renderer';
import type { LabelRenderer } from './documents/ports';
import type { CallMeter } from './metrics/call-meter';
import { measuredCarrier, measuredPlatform } from './metrics/port-metrics';
import type { StorePlatformPort } from './platform/port';
import { SandboxPlatformAdapter } from './platform/sandbox-adapter';
import { ShopifyGraphqlClient, type ShopifyObserver } from './platform/shopify/graphql-client';
import { StorePlatforms } from './platform/store-platforms';
import { ShopifyApp } from './platform/shopify/app';
import { ShopifyTokens } from './shopify-app/session-tokens';
import { platformConnection } from './db/platform-sessions-repository';
import { packetaPointsStore } from './db/packeta-pickup-points';

export interface Adapters {
  platform: StorePlatformPort;
  /** The public Shopify app's token endpoint (refresh, migration); null without SHOPIFY_API_KEY. */
  shopifyApp: ShopifyApp | null;
  carrierFor: (carrierCode: string) => CarrierPort;
  renderer: LabelRenderer;
  /** Carrier pickup networks and custom pickup point providers. */
  pickupPoints: PickupPointSources;
}

const PLATFORM_TIMEOUT_MS = 10_000;

/** Shopify's answers besides their data, for operators: a log line each and a metric (docs/shopify.md). */
function shopifyObserver(pinned: string, logger: Logger, meter: CallMeter | undefined): ShopifyObserver {
  // Every answer counts; a log line once per process for each version served and each deprecation reported.
  const told = new Set<string>();
  const once = (key: string) => !told.has(key) && Boolean(told.add(key));
  return {
    versionServed(shop, served) {
      meter?.shopifyVersionServed(served);
      if (once(`version:${served}`))
        logger.warn(
          { shop, pinned, served },
          'Shopify served another Admin API version than SHOPIFY_API_VERSION: the pinned one is past its support; move to a supported one (docs/shopify.md)',
        );
    },
    deprecated(shop, reason) {
      if (once(`deprecated:${reason}`))
        logger.warn({ shop, deprecated: reason }, 'Shopify reports deprecated fields in the adapter’s documents');
    },
    accessDenied(shop, what, access) {
      meter?.platformAccessDenied(access);
      logger.warn(
        { shop, what, access },
        'Shopify refused the app access: the store’s installation lacks it (labelctl store platform shows the scopes)',
      );
    },
  };
}

/** The public app through Shopify's library, for its token endpoint; null without its credentials. */
function publicShopifyApp(config: Pick<Config, 'shopify' | 'shopifyApp'>, logger: Logger): ShopifyApp | null {
  if (!config.shopifyApp) return null;
  const log = logger.child({ component: 'shopify-app' });
  return new ShopifyApp(
    { ...config.shopifyApp, apiVersion: config.shopify.apiVersion, timeoutMs: config.shopify.timeoutMs },
    (level, message) => log[level](message),
  );
}

/** Token refreshes for operators (decision 0710): a line each, a warning when the store's access is lost. */
function tokenObserver(logger: Logger) {
  return {
    refreshed(shop: string, outcome: string) {
      logger.info({ shop, outcome }, 'Shopify access token refresh');
    },
    accessLost(shop: string, reason: string) {
      logger.warn(
        { shop, reason },
        'Shopify no longer accepts the app’s tokens for this store: it is access_required until the merchant installs the app again',
      );
    },
  };
}

/**
 * The one place that picks adapters for the carrier and store-platform ports. Carriers are the sandbox adapters (test
 * mode, the demo and the tests), and for carrier A accounts on the `packeta` endpoint Packeta's API; the store platform is chosen per store: Shopify for a store connected to it
 * (`labelctl store connect`), else the sandbox platform.
 */
export function composeAdapters(
  config: Pick<
    Config,
    | 'sandboxUrl'
    | 'packetaApiUrl'
    | 'env'
    | 'localOutboundOrigins'
    | 'pickupPoints'
    | 'carrierTimeoutMs'
    | 'shopify'
    | 'shopifyApp'
    | 'settingsEncryptionKey'
  >,
  orm: Orm,
  logger: Logger = createLogger('silent'),
  /** Times every carrier and platform call (src/metrics/port-metrics.ts); none for scripts and labelctl. */
  meter?: CallMeter,
): Adapters {
  const carriers = new Map<string, CarrierPort>();
  const carrierFor = (carrierCode: string): CarrierPort => {
    let adapter = carriers.get(carrierCode);
    if (!adapter) {
      adapter = sandboxCarrierAdapter(carrierCode, { baseUrl: config.sandboxUrl, timeoutMs: config.carrierTimeoutMs });
      if (carrierCode === ENDPOINT_CARRIERS.packeta)
        adapter = new EndpointRoutedCarrier(adapter, {
          packeta: ENDPOINT_ADAPTERS.packeta({
            endpoint: { url: config.packetaApiUrl, timeoutMs: config.carrierTimeoutMs },
            settingsKey: config.settingsEncryptionKey,
            // Packeta's network as its feed was last imported (decisions 1220 to 1222).
            pickupPoints: packetaPickupNetwork(packetaPointsStore(orm.em)),
          }),
        });
      if (meter) adapter = measuredCarrier(carrierCode, adapter, meter);
      carriers.set(carrierCode, adapter);
    }
    return adapter;
  };
  const shopifyApp = publicShopifyApp(config, logger);
  const platform = new StorePlatforms(
    new SandboxPlatformAdapter({ baseUrl: config.sandboxUrl, timeoutMs: PLATFORM_TIMEOUT_MS }),
    new ShopifyGraphqlClient(config.shopify, undefined, shopifyObserver(config.shopify.apiVersion, logger, meter)),
    (shop) => platformConnection(orm.em.fork(), config.settingsEncryptionKey, shop),
    new ShopifyTokens({
      orm,
      settingsKey: config.settingsEncryptionKey,
      endpoint: shopifyApp,
      now: () => new Date(),
      observer: tokenObserver(logger),
    }),
  );
  return {
    platform: meter ? measuredPlatform(platform, meter) : platform,
    shopifyApp,
    carrierFor,
    renderer: carrierRenderer({ orm, carrierFor }),
    pickupPoints: createPickupPointSources(config, carrierFor, logger, {
      ...(meter ? { onDropped: (part: string, count: number) => meter.pickupProviderDropped(part, count) } : {}),
    }),
  };
}

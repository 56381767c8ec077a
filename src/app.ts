import Koa from 'koa';
import type { Client } from '@temporalio/client';
import type { Config } from './config';
import type { Orm } from './db/orm';
import type { Logger } from './logger';
import { healthRoutes } from './api/health/routes';
import { createLabelRoutes } from './api/labels/routes';
import { createMetaRoutes } from './api/meta/routes';
import { createShopRoutes } from './api/shop/routes';
import { createDocumentRoutes } from './api/documents/routes';
import { createPrintedRoutes } from './api/labels/printed';
import { createLabelCreationRoutes } from './api/labels/create';
import { createCarrierProtection } from './creation/carrier-protection';
import type { LiveCreation } from './creation/live-creation';
import { createCarrierAccountRoutes } from './api/carrier-accounts/routes';
import { createLabelCreationResourceRoutes } from './api/label-creations/routes';
import { createWriteLimits } from './limits/write-limits';
import { createOrderRoutes } from './api/orders/routes';
import type { PickupPointSources } from './pickup-points/search';
import type { LabelRenderer } from './documents/ports';
import type { StorePlatformPort } from './platform/port';
import { bodyLimit, refuseKeyInQuery, requestContext, requireHost, versionSelection } from './http/middleware';
import { requestLog, type RequestLogWriter } from './http/request-log';
import type { RouteDefinition } from './http/route';
import { buildRouter, type Authorizer } from './http/router';
import type { RequestLimiter } from './http/request-limiter';
import type { Admission } from './http/admission';
import type { AppState } from './http/state';
import { traceRequests } from './http/tracing';
import { activeTracer } from './tracing/spans';
import { createApiMetrics, metricsEndpoint, type ApiMetrics } from './metrics/api-metrics';
import { shopifyRoutes } from './api/shopify/routes';
import { ShopifyApp } from './platform/shopify/app';
import { ShopifyGraphqlClient } from './platform/shopify/graphql-client';
import { ShopifyPlatform } from './platform/shopify/shopify-platform';

export interface AppDeps {
  config: Config;
  orm: Orm;
  temporal: Client;
  logger: Logger;
  /** The store's API request log, written in batches. */
  requestLog: RequestLogWriter;
  /** Injectable clock: tests move time instead of sleeping. */
  now: () => Date;
  authorize: Authorizer;
  /** Rate limits of every key route (src/limits/). */
  limiter: RequestLimiter;
  /** Authentication and rate limit in one statement on routes with a fixed class and no body. */
  admission?: Admission;
  /** Carrier port's side-effect-free print call, for labels rendered on demand. */
  renderer: LabelRenderer;
  /** Store-platform port. */
  platform: StorePlatformPort;
  /** Live `POST /labels` after request validation: the creation workflow's API side. */
  liveCreation: LiveCreation;
  /** The API's Prometheus registry; one of its own when not given. */
  metrics?: ApiMetrics;
  /** Carrier pickup networks and custom pickup point providers. */
  pickupPoints: PickupPointSources;
  /** Extra routes (tests exercise the pipeline with them). */
  extraRoutes?: RouteDefinition[];
}

/** Builds the Koa app; never listens (server.ts does). */
export function createApp(deps: AppDeps): Koa<AppState> {
  const app = new Koa<AppState>();
  app.proxy = deps.config.trustProxy;
  const routes: RouteDefinition[] = [];
  routes.push(...createMetaRoutes({ publicBaseUrl: deps.config.publicBaseUrl, routes: () => routes }));
  routes.push(...createShopRoutes({ orm: deps.orm, requestLogRetentionMs: deps.config.requestLog.retentionMs }));
  routes.push(...createLabelRoutes({ orm: deps.orm, now: deps.now, config: deps.config }));
  routes.push(
    ...createPrintedRoutes({
      orm: deps.orm,
      now: deps.now,
      platform: deps.platform,
      publicBaseUrl: deps.config.publicBaseUrl,
      idempotencyLeaseMs: deps.config.idempotencyLeaseMs,
    }),
  );
  routes.push(...createDocumentRoutes({ orm: deps.orm, now: deps.now, renderer: deps.renderer }));
  routes.push(
    ...createLabelCreationRoutes({
      orm: deps.orm,
      now: deps.now,
      platform: deps.platform,
      publicBaseUrl: deps.config.publicBaseUrl,
      liveCreation: deps.liveCreation,
      carrierProtection: createCarrierProtection({
        orm: deps.orm,
        now: deps.now,
        settings: deps.config.carrierProtection,
      }),
    }),
  );
  routes.push(
    ...createLabelCreationResourceRoutes({
      orm: deps.orm,
      logger: deps.logger,
      temporal: deps.temporal,
      now: deps.now,
      config: deps.config,
      waitHolds: createWriteLimits({ orm: deps.orm, now: deps.now }).waitHolds,
    }),
  );
  routes.push(...createCarrierAccountRoutes({ orm: deps.orm }));
  routes.push(
    ...createOrderRoutes({
      orm: deps.orm,
      now: deps.now,
      platform: deps.platform,
      pickupPoints: deps.pickupPoints,
      settingsKey: deps.config.settingsEncryptionKey,
      publicBaseUrl: deps.config.publicBaseUrl,
    }),
  );
  routes.push(...(deps.extraRoutes ?? []));

  const metrics = deps.metrics ?? createApiMetrics();
  app.use(metrics.middleware);
  app.use(requestLog(deps.requestLog));
  app.use(requestContext({ logger: deps.logger, publicBaseUrl: deps.config.publicBaseUrl }));
  // Only with tracing on (src/tracing/provider.ts): off, the request pays for no middleware at all.
  const tracer = activeTracer();
  if (tracer) app.use(traceRequests(tracer));
  app.use(refuseKeyInQuery());
  app.use(requireHost());
  app.use(
    healthRoutes([
      { name: 'postgres', check: async () => void (await deps.orm.em.fork().execute('select 1')) },
      { name: 'temporal', check: async () => void (await deps.temporal.workflowService.getSystemInfo({})) },
    ]),
  );
  // Without METRICS_PORT, /metrics is served here (outside /v1, no key); with it, only on that port (server.ts).
  if (deps.config.metrics.apiPort === undefined) app.use(metricsEndpoint(metrics.registry));
  app.use(versionSelection());
  app.use(bodyLimit(deps.config.maxBodyBytes));
  // Shopify's own endpoints (install, callback, webhooks) when the public app is configured (docs/shopify.md).
  const shopifyApp = deps.config.shopifyApp;
  if (shopifyApp) {
    const log = deps.logger.child({ component: 'shopify-app' });
    app.use(
      shopifyRoutes({
        app: new ShopifyApp(
          {
            ...shopifyApp,
            apiVersion: deps.config.shopify.apiVersion,
            timeoutMs: deps.config.shopify.timeoutMs,
          },
          (level, message) => log[level](message),
        ),
        orm: deps.orm,
        temporal: deps.temporal,
        taskQueue: deps.config.temporal.taskQueue,
        logger: deps.logger,
        now: deps.now,
        settingsKey: deps.config.settingsEncryptionKey,
        supportEmail: deps.config.supportEmail,
        maxBodyBytes: deps.config.maxBodyBytes,
        redactRetryMs: deps.config.privacy.redactRetryMs,
        shopContact: (shop, token) =>
          new ShopifyPlatform(new ShopifyGraphqlClient(deps.config.shopify), () => Promise.resolve(token)).shopContact(
            shop,
          ),
        pickupPointDefinition: (shop, token) =>
          new ShopifyPlatform(new ShopifyGraphqlClient(deps.config.shopify), () =>
            Promise.resolve(token),
          ).ensurePickupPointDefinition(shop),
      }),
    );
  }
  app.use(
    buildRouter(routes, {
      authorize: deps.authorize,
      limiter: deps.limiter,
      ...(deps.admission ? { admission: deps.admission } : {}),
      maxBodyBytes: deps.config.maxBodyBytes,
      prefix: '/v1',
    }),
  );
  return app;
}

import type { Client } from '@temporalio/client';
import { createAdmission } from './http/admission';
import { createAuthorizer, keyStatements } from './http/authorizer';
import { composeAdapters } from './adapters';
import type { AppDeps } from './app';
import type { Config } from './config';
import { openHotPool } from './db/hot-pool';
import { openOrm } from './db/orm';
import { createCarrierProtection } from './creation/carrier-protection';
import { temporalLiveCreation } from './creation/live-creation';
import { RequestLogWriter } from './http/request-log';
import { postgresCounterStore } from './limits/counter-store';
import { createRequestLimiter } from './http/request-limiter';
import { createWriteLimits } from './limits/write-limits';
import { createLogger, type Logger } from './logger';
import { createApiMetrics, type ApiMetrics } from './metrics/api-metrics';
import { promCallMeter } from './metrics/call-meter';
import { ormPoolReader, pgPoolReader, registerPoolMetrics } from './metrics/pool-metrics';
import { readOperationalState, registerStateMetrics } from './metrics/state-metrics';
import { connectTemporal } from './temporal/connection';
import { activeTracer } from './tracing/spans';
import { tracingClientInterceptors } from './tracing/temporal';

export interface OpenedAppDeps {
  deps: AppDeps & { metrics: ApiMetrics };
  /** Releases what was opened (Temporal connection, database pools). */
  close: () => Promise<void>;
}

/**
 * Everything the API needs, opened from the configuration: the one wiring shared by `src/server.ts`, the test app and
 * the benchmarks, so none of them can drift from production. Tests inject a clock and, where a test needs one, a
 * different renderer, platform or extra routes; the benchmark passes a lazy Temporal client.
 */
export async function openAppDeps(
  config: Config,
  options: {
    now?: () => Date;
    logger?: Logger;
    temporal?: Client;
    overrides?: Partial<Pick<AppDeps, 'renderer' | 'platform' | 'pickupPoints' | 'extraRoutes' | 'limiter'>> & {
      /** The benchmark's baseline: the admission statement without its rate-limit take (read class). */
      admissionTakes?: boolean;
    };
  } = {},
): Promise<OpenedAppDeps> {
  const now = options.now ?? (() => new Date());
  const logger = options.logger ?? createLogger(config.logLevel, 'shipping-label-api', config.log);
  const orm = await openOrm(config.databaseUrl);
  const temporal =
    options.temporal ??
    (await connectTemporal(config.temporal, undefined, activeTracer() ? tracingClientInterceptors() : undefined));
  // The API's registry: HTTP answers, the carrier and platform calls, the pools and the state waiting in PostgreSQL.
  const metrics = createApiMetrics();
  const adapters = composeAdapters(config, orm, logger, promCallMeter(metrics.registry));
  const requestLog = new RequestLogWriter(orm, logger);
  const hotPool = openHotPool(config.databaseUrl, {
    lockTimeoutMs: config.rateLimitLockTimeoutMs,
    max: config.hotPoolSize,
  });
  registerPoolMetrics(metrics.registry, [ormPoolReader(orm), pgPoolReader('hot', hotPool)]);
  registerStateMetrics(metrics.registry, () =>
    readOperationalState({
      orm,
      now,
      settings: config.carrierProtection,
      platformQueueMax: config.creation.platformQueueMax,
    }),
  );
  const keys = keyStatements(hotPool);
  const limiter =
    options.overrides?.limiter ?? createRequestLimiter({ take: postgresCounterStore(hotPool).take, now, logger });
  const deps: AppDeps & { metrics: ApiMetrics } = {
    config,
    metrics,
    orm,
    temporal,
    logger,
    requestLog,
    liveCreation: temporalLiveCreation({
      orm,
      logger,
      temporal,
      config,
      now,
      platform: options.overrides?.platform ?? adapters.platform,
      carrierProtection: createCarrierProtection({ orm, now, settings: config.carrierProtection }),
      limits: createWriteLimits({ orm, now, platformQueueMax: config.creation.platformQueueMax }),
    }),
    now,
    authorize: createAuthorizer({ keys, now, supportEmail: config.supportEmail }),
    limiter,
    // A replaced limiter (the benchmark's baselines) charges on its own: no combined statement then.
    ...(options.overrides?.limiter
      ? {}
      : {
          admission: createAdmission({
            pool: hotPool,
            keys,
            limiter,
            now,
            logger,
            supportEmail: config.supportEmail,
            takes: options.overrides?.admissionTakes ?? true,
          }),
        }),
    renderer: options.overrides?.renderer ?? adapters.renderer,
    platform: options.overrides?.platform ?? adapters.platform,
    pickupPoints: options.overrides?.pickupPoints ?? adapters.pickupPoints,
    ...(options.overrides?.extraRoutes ? { extraRoutes: options.overrides.extraRoutes } : {}),
  };
  return {
    deps,
    close: async () => {
      await requestLog.close();
      await Promise.allSettled([temporal.connection.close(), orm.close(), hotPool.end()]);
    },
  };
}

import type { Client } from '@temporalio/client';
import { createActivities } from '../../activities';
import { composeAdapters } from '../adapters';
import { creationWire } from '../api/label-creations/creation-wire';
import type { Config } from '../config';
import type { Orm } from '../db/orm';
import type { Logger } from '../logger';
import type { CallMeter } from '../metrics/call-meter';
import { systemResolver, targetPolicy } from '../net/target-guard';

/** The worker's activities over the configured adapters: what `src/worker.ts` registers (and a test's own worker). */
export function workerActivities(
  config: Config,
  deps: { orm: Orm; logger: Logger; temporal: Client; meter?: CallMeter },
) {
  // Absolute URLs in event payloads, without `/v1`: the API's public base URL.
  const baseUrl = config.publicBaseUrl ?? `http://${config.host}:${config.port}`;
  return createActivities({
    orm: deps.orm,
    logger: deps.logger,
    now: () => new Date(),
    smtpUrl: config.mail.smtpUrl,
    mailFrom: config.mail.from,
    carrierProtection: config.carrierProtection,
    ...composeAdapters(config, deps.orm, deps.logger, deps.meter),
    temporal: deps.temporal,
    privacy: { exportEmail: config.privacy.exportEmail },
    packetaFeed: config.packetaFeed,
    webhooks: {
      taskQueue: config.temporal.taskQueue,
      renderCreation: (row, now) => creationWire(deps.orm, row, { baseUrl, now }),
      retry: config.webhooks.retry,
      timeoutMs: config.webhooks.timeoutMs,
      settingsKey: config.settingsEncryptionKey,
      resolve: systemResolver,
      policy: targetPolicy(config),
    },
  });
}

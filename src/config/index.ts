import { z } from 'zod';
import { apiSettings, apiShape, type ApiConfig } from './api';
import { coreSettings, coreShape, parseEnv, type CoreConfig } from './core';
import { creationSettings, creationShape, type CreationConfig } from './creation';
import { integrationsSettings, integrationsShape, type IntegrationsConfig } from './integrations';
import { packetaFeedSettings, packetaFeedShape, type PacketaFeedConfig } from './packeta-feed';
import { temporalSettings, temporalShape, type TemporalConfig } from './temporal';
import { tracingSettings, tracingShape, type TracingConfig } from './tracing';
import { workerSettings, workerShape, type WorkerConfig } from './worker';

/**
 * The service's configuration: the shared core and each process's part (docs/decisions/1131). The API, the worker and
 * labelctl compose the same services, so each reads the whole and refuses to start on any bad variable, listed at once.
 */
const serviceShape = {
  ...coreShape,
  ...temporalShape,
  ...tracingShape,
  ...apiShape,
  ...workerShape,
  ...creationShape,
  ...integrationsShape,
  ...packetaFeedShape,
};

/** Every variable the service reads, by name (the sandbox's own are in src/config/sandbox.ts). */
export const SERVICE_VARIABLES: readonly string[] = Object.keys(serviceShape);

export type Config = CoreConfig &
  TemporalConfig &
  TracingConfig &
  ApiConfig &
  WorkerConfig &
  CreationConfig &
  IntegrationsConfig &
  PacketaFeedConfig;

/** Parses the environment once into a frozen object; throws one readable message listing every bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const e: z.infer<z.ZodObject<typeof serviceShape>> = parseEnv(serviceShape, env);
  return Object.freeze({
    ...temporalSettings(e),
    ...apiSettings(e),
    ...integrationsSettings(e),
    ...coreSettings(e),
    ...tracingSettings(e),
    ...workerSettings(e),
    ...creationSettings(e),
    ...packetaFeedSettings(e),
  });
}

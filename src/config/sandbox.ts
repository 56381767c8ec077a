import { z } from 'zod';
import { logShape, parseEnv, type LogSettings } from './core';

/** The sandbox process (src/sandbox-server.ts): where it listens, and logs as the API's and the worker's do. */
export const sandboxShape = {
  SANDBOX_PORT: z.coerce.number().int().min(0).max(65535).default(4010),
  SANDBOX_HOST: z.string().default('127.0.0.1'),
  ...logShape,
};

export type SandboxConfig = Readonly<{ port: number; host: string; logLevel: string; log: Readonly<LogSettings> }>;

export function loadSandboxConfig(env: NodeJS.ProcessEnv = process.env): SandboxConfig {
  const e = parseEnv(sandboxShape, env);
  return Object.freeze({
    port: e.SANDBOX_PORT,
    host: e.SANDBOX_HOST,
    logLevel: e.LOG_LEVEL,
    log: Object.freeze({ format: e.LOG_FORMAT, requests: e.LOG_REQUESTS }),
  });
}

import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import type { Client } from '@temporalio/client';
import { createApp, type AppDeps } from '../../src/app';
import { loadConfig, type Config } from '../../src/config';
import { openOrm, type Orm } from '../../src/db/orm';
import { createLogger } from '../../src/logger';
import { connectTemporal } from '../../src/temporal/connection';
import { createAuthorizer } from '../../src/access/authorizer';
import { createPorts } from '../../src/ports';

export interface TestClock {
  now: () => Date;
  set: (date: Date | string) => void;
  advance: (ms: number) => void;
  reset: () => void;
}

/** A clock tests move by hand; `reset` returns to real time. */
export function testClock(): TestClock {
  let fixed: Date | null = null;
  return {
    now: () => (fixed ? new Date(fixed) : new Date()),
    set: (date) => {
      fixed = new Date(date);
    },
    advance: (ms) => {
      fixed = new Date((fixed ?? new Date()).getTime() + ms);
    },
    reset: () => {
      fixed = null;
    },
  };
}

export interface TestResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
  bytes: Buffer;
}

export interface TestApp {
  baseUrl: string;
  orm: Orm;
  temporal: Client;
  config: Config;
  clock: TestClock;
  request: <T = any>(
    method: string,
    path: string,
    options?: { headers?: Record<string, string>; body?: unknown; rawBody?: string | Buffer },
  ) => Promise<TestResponse<T>>;
  close: () => Promise<void>;
}

/**
 * The real app on a free port, against the run's PostgreSQL database and Temporal server (global setup), with
 * an injectable clock. Tests talk to it over HTTP.
 */
export async function startTestApp(
  overrides: Partial<Pick<AppDeps, 'extraRoutes' | 'renderer' | 'platform' | 'pickupPoints'>> & {
    env?: Record<string, string>;
  } = {},
): Promise<TestApp> {
  const config = loadConfig({ ...process.env, ...overrides.env });
  const logger = createLogger(process.env.TEST_LOG_LEVEL ?? 'silent');
  const orm = await openOrm(config.databaseUrl);
  const temporal = await connectTemporal(config.temporal.address, config.temporal.namespace);
  const clock = testClock();
  // The sandbox the global setup started: real HTTP simulators behind the production ports.
  const ports = createPorts(config, orm, logger);
  const app = createApp({
    config,
    orm,
    temporal,
    logger,
    now: clock.now,
    authorize: createAuthorizer({ orm, now: clock.now, supportEmail: config.supportEmail }),
    renderer: overrides.renderer ?? ports.renderer,
    platform: overrides.platform ?? ports.platform,
    pickupPoints: overrides.pickupPoints ?? ports.pickupPoints,
    ...(overrides.extraRoutes ? { extraRoutes: overrides.extraRoutes } : {}),
  });
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const request: TestApp['request'] = async (method, path, options = {}) => {
    const headers: Record<string, string> = { ...options.headers };
    let body: string | Buffer | undefined = options.rawBody;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const response = await fetch(`${baseUrl}${path}`, { method, headers, body });
    const bytes = Buffer.from(await response.arrayBuffer());
    const text = bytes.toString('utf8');
    let parsed: unknown = undefined;
    if ((response.headers.get('content-type') ?? '').includes('json')) parsed = JSON.parse(text);
    return { status: response.status, headers: response.headers, body: parsed as any, text, bytes };
  };

  return {
    baseUrl,
    orm,
    temporal,
    config,
    clock,
    request,
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await temporal.connection.close();
      await orm.close();
    },
  };
}

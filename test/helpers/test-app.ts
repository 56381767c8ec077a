import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import type { Client } from '@temporalio/client';
import pino from 'pino';
import { createApp, type AppDeps } from '../../src/app';
import { loadConfig, type Config } from '../../src/config';
import type { Orm } from '../../src/db/orm';
import { openAppDeps } from '../../src/dependencies';
import { serveConnections } from '../../src/http/connections';
import { createLogger, type Logger } from '../../src/logger';
import { servedContract } from './contract';
import { encodeTarget, sendRaw, type RawRequest } from './raw-http';

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
  /** Sends exactly these bytes (raw-http.ts), for requests no client library sends; checked like `request`. */
  rawRequest: <T = any>(request: RawRequest) => Promise<TestResponse<T>>;
  /** Writes the batched request log now, for tests that read it. */
  flushRequestLog: () => Promise<void>;
  close: () => Promise<void>;
}

/**
 * The real app on a free port, against the run's PostgreSQL database and Temporal server (global setup), with
 * an injectable clock. Tests talk to it over HTTP.
 */
export async function startTestApp(
  overrides: Partial<Pick<AppDeps, 'extraRoutes' | 'renderer' | 'platform' | 'pickupPoints'>> & {
    env?: Record<string, string>;
    /** A port chosen beforehand (the Shopify app's URL is configured before the app listens); 0: any free one. */
    port?: number;
  } = {},
): Promise<TestApp> {
  const { env, port, ...replaced } = overrides;
  const config = loadConfig({ ...process.env, ...env });
  const clock = testClock();
  // The same wiring as src/server.ts, against the sandbox the global setup started, with a clock tests move.
  const { logger, unhandled } = testLogger();
  const { deps, close } = await openAppDeps(config, { now: clock.now, logger, overrides: replaced });
  const { orm, temporal } = deps;
  const app = createApp(deps);
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(port ?? 0, '127.0.0.1', () => resolve(s));
  });
  serveConnections(server, {
    logger,
    publicBaseUrl: config.publicBaseUrl,
    keepAliveTimeoutMs: config.keepAliveTimeoutMs,
  });
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // Every answer, deliberately wrong requests included, is checked against the served /v1/openapi.json.
  const checkContract = servedContract(baseUrl);

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
    await checkContract({ method, url: `${baseUrl}${path}`, status: response.status, headers: response.headers, text });
    if (response.status === 500) unhandled(response.headers.get('x-request-id'));
    return { status: response.status, headers: response.headers, body: parsed as any, text, bytes };
  };

  const rawRequest: TestApp['rawRequest'] = async (raw) => {
    const res = await sendRaw(baseUrl, raw);
    const headers = new Headers(Object.entries(res.headers));
    const parsed: unknown = (headers.get('content-type') ?? '').includes('json') ? JSON.parse(res.text) : undefined;
    const url = `${baseUrl}${encodeTarget(raw.target)}`;
    await checkContract({ method: raw.method, url, status: res.status, headers, text: res.text });
    if (res.status === 500) unhandled(headers.get('x-request-id'));
    return { status: res.status, headers, body: parsed as any, text: res.text, bytes: res.body };
  };

  return {
    baseUrl,
    orm,
    temporal,
    config,
    clock,
    request,
    rawRequest,
    flushRequestLog: () => deps.requestLog.flush(),
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await close();
    },
  };
}

/**
 * The app's logger: TEST_LOG_LEVEL's level to stdout when it is set; else errors only, kept in memory. A 500 answer
 * prints what the app logged for its request (the stack the client never sees), so a test that meets an unexpected
 * `internal_error` says why in the run's output.
 */
function testLogger(): { logger: Logger; unhandled: (requestId: string | null) => void } {
  if (process.env.TEST_LOG_LEVEL) return { logger: createLogger(process.env.TEST_LOG_LEVEL), unhandled: () => {} };
  const lines: string[] = [];
  const logger = pino(
    { level: 'error' },
    {
      write: (line: string) => {
        lines.push(line);
        if (lines.length > 200) lines.shift();
      },
    },
  );
  const unhandled = (requestId: string | null) => {
    const logged = requestId ? lines.filter((line) => line.includes(`"${requestId}"`)) : [];
    process.stderr.write(`[test app] 500 for ${requestId ?? 'a request without X-Request-Id'}; the app logged:\n`);
    process.stderr.write(logged.length > 0 ? logged.join('') : '(nothing)\n');
  };
  return { logger, unhandled };
}

import type { Middleware } from 'koa';
import type { Logger } from '../logger';
import { newId } from '../ids';
import { isDatabaseUnreachable } from '../db/unreachable';
import { DomainError } from '../domain/errors';
import { ApiError, apiErrorFromDomain } from './api-error';
import { declaredBodyTooLarge } from './body';
import { errorBody } from './error-body';
import { CURRENT_VERSION, SUPPORTED_VERSIONS } from '../domain/versions';
import type { AppState } from './state';

// The gates below are plain functions that return `next()`: a middleware that only checks costs the read path no
// promise of its own (Koa composes them either way).
type AppMiddleware = Middleware<AppState>;

export const DEFAULT_CACHE_CONTROL = 'no-store, private';

/** Spec `temporarily_unavailable` (`Retry-After: 5`), for any request that met PostgreSQL unreachable. */
const DATABASE_UNREACHABLE = new DomainError('temporarily_unavailable', {
  message: 'The service cannot reach its database right now. Send the same request again shortly.',
  retryAfterSeconds: 5,
});

/**
 * Base of absolute URLs we return (without /v1): PUBLIC_BASE_URL, else the request's own scheme and host, else (a
 * request without Host) the address it reached.
 */
export function baseUrl(
  ctx: { protocol: string; host: string; req?: { socket?: { localAddress?: string; localPort?: number } | null } },
  publicBaseUrl: string | undefined,
): string {
  if (publicBaseUrl) return publicBaseUrl;
  if (ctx.host) return `${ctx.protocol}://${ctx.host}`;
  const local = ctx.req?.socket;
  const address = local?.localAddress?.includes(':') ? `[${local.localAddress}]` : local?.localAddress;
  return `${ctx.protocol}://${address ?? 'localhost'}:${local?.localPort ?? 80}`;
}

/**
 * The message of a 404 for a path no route answers: where the API lives, and what a base URL that lacks `/v1` or
 * repeats it (`$BASE/v1/...` with a `$BASE` that ends in `/v1`) sends instead.
 */
export function unknownPathMessage(method: string, path: string): string {
  const shown = path.length > 200 ? `${path.slice(0, 200)}…` : path;
  const hint =
    path === '/v1/v1' || path.startsWith('/v1/v1/')
      ? ' The path repeats /v1: with a base URL that ends in /v1, the paths follow it without /v1 ($BASE/labels).'
      : path === '/v1' || path.startsWith('/v1/')
        ? ''
        : ' The API is under /v1 (GET /v1/labels).';
  return `No endpoint answers ${method} ${shown}.${hint} Every endpoint is listed at /v1/docs (/v1/openapi.json).`;
}

/**
 * Outermost middleware: the request id, the headers every response carries (errors included), the access log
 * line, and the spec's error body for every failure. Unexpected errors become 500 `internal_error` without
 * details; the stack goes to the log with the request id, never to the client.
 */
export function requestContext(options: { logger: Logger; publicBaseUrl: string | undefined }): AppMiddleware {
  return async (ctx, next) => {
    const started = process.hrtime.bigint();
    ctx.state.requestId = newId('request');
    ctx.state.apiVersion = CURRENT_VERSION;
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined)
        throw new ApiError('not_found', { message: unknownPathMessage(ctx.method, ctx.path) });
    } catch (error) {
      renderError(ctx, error, options);
    } finally {
      ctx.set('X-Request-Id', ctx.state.requestId);
      ctx.set('Service-Version', ctx.state.apiVersion);
      if (!ctx.response.get('Cache-Control')) ctx.set('Cache-Control', DEFAULT_CACHE_CONTROL);
      options.logger.info(
        {
          request_id: ctx.state.requestId,
          method: ctx.method,
          route: ctx.state.route?.path ?? null,
          path: ctx.path,
          status: ctx.status,
          error_code: ctx.state.errorCode ?? null,
          store_id: ctx.state.auth?.storeId ?? null,
          api_key_id: ctx.state.auth?.apiKeyId ?? null,
          ms: Number(process.hrtime.bigint() - started) / 1e6,
        },
        'request',
      );
    }
  };
}

function renderError(
  ctx: Parameters<AppMiddleware>[0],
  error: unknown,
  options: { logger: Logger; publicBaseUrl: string | undefined },
): void {
  let apiError: ApiError;
  if (error instanceof ApiError) {
    apiError = error;
  } else if (error instanceof DomainError) {
    apiError = apiErrorFromDomain(error);
  } else if (isDatabaseUnreachable(error)) {
    // PostgreSQL down or unreachable (a failover, a network cut): the same request may succeed shortly
    // (docs/decisions/0403-counters-unavailable.md).
    options.logger.error({ request_id: ctx.state.requestId, err: error }, 'database unreachable');
    apiError = apiErrorFromDomain(DATABASE_UNREACHABLE);
  } else {
    options.logger.error({ request_id: ctx.state.requestId, err: error }, 'unhandled error');
    apiError = new ApiError('internal_error');
  }
  // Headers set by the failed handler (Content-Disposition of a PDF, ...) must not leak onto the error body.
  for (const name of Object.keys(ctx.response.headers)) {
    if (!/^(x-ratelimit-|service-version$|x-request-id$)/i.test(name)) ctx.remove(name);
  }
  ctx.state.errorCode = apiError.code;
  ctx.status = apiError.status;
  for (const [name, value] of Object.entries(apiError.headers)) ctx.set(name, value);
  ctx.body = errorBody(apiError, ctx.state.requestId, baseUrl(ctx, options.publicBaseUrl));
}

/** Spec "Authentication" 2: a key in the query string is refused on every path, before anything else. */
export function refuseKeyInQuery(): AppMiddleware {
  return (ctx, next) => {
    if (Object.prototype.hasOwnProperty.call(ctx.query, 'api_key')) {
      throw new ApiError('validation_error', {
        status: 400,
        message: 'Send the API key in the Authorization header, never in the query string.',
        details: { parameter: 'api_key', allowed: ['Authorization: Bearer <API_KEY>'] },
      });
    }
    return next();
  };
}

/**
 * RFC 9112 3.2: an HTTP/1.1 request without `Host` is refused with 400. Node's own refusal has no body, so the server
 * hands such requests to the app (src/http/client-error.ts) and this answers with the error body.
 */
export function requireHost(): AppMiddleware {
  return (ctx, next) => {
    if (ctx.req.httpVersion === '1.1' && ctx.req.headers.host === undefined) {
      throw new ApiError('validation_error', {
        status: 400,
        message: 'An HTTP/1.1 request carries a Host header.',
        details: { header: 'Host', received: null },
      });
    }
    return next();
  };
}

/** Validates `Service-Version`; the version used is the requested one, else the key's pinned one (set by auth). */
export function versionSelection(): AppMiddleware {
  return (ctx, next) => {
    const requested = ctx.get('Service-Version');
    if (requested) {
      if (!SUPPORTED_VERSIONS.includes(requested)) {
        throw new ApiError('unsupported_version', {
          message: `Service-Version ${JSON.stringify(requested.slice(0, 40))} is not a version of this API.`,
          details: { requested_version: requested.slice(0, 40), allowed_versions: [...SUPPORTED_VERSIONS] },
        });
      }
      ctx.state.requestedVersion = requested;
      ctx.state.apiVersion = requested;
    }
    return next();
  };
}

export function bodyLimit(maxBytes: number): AppMiddleware {
  return (ctx, next) => {
    const refusal = declaredBodyTooLarge(ctx, maxBytes);
    if (refusal) throw refusal;
    return next();
  };
}

import { httpCall, HttpCallError } from '../net/http-call';
import { ORIGIN_SERVICE, type ProviderSearchRequest } from './provider-contract';
import {
  BlockedTargetError,
  checkEndpointUrl,
  guardedLookup,
  needsGuard,
  type Resolver,
  type TargetPolicy,
} from '../net/target-guard';

/**
 * One search call to a custom pickup point provider over HTTP, with the limits of decision 0202: a time box per
 * attempt, one retry for 5xx answers and network errors only (never for a timeout, a 4xx or a blocked target),
 * a cap on the answer's size, no redirects followed, and the SSRF guard on the connection's DNS lookup.
 */

export interface ProviderHeader {
  name: string;
  value: string;
}

export interface ProviderEndpoint {
  url: string;
  /** The operator's custom headers, sent as configured. */
  headers: readonly ProviderHeader[];
}

export interface ProviderClientOptions {
  timeoutMs: number;
  /** Attempts in total; 2 = one retry. */
  maxAttempts: number;
  retryDelayMs: number;
  maxResponseBytes: number;
  resolve: Resolver;
  policy: TargetPolicy;
}

export const PROVIDER_CLIENT_DEFAULTS = {
  maxAttempts: 2,
  retryDelayMs: 200,
  maxResponseBytes: 512 * 1024,
} as const;

export type ProviderFailureKind =
  'blocked_target' | 'timeout' | 'network' | 'http_error' | 'too_large' | 'not_json' | 'invalid_answer';

/**
 * Why a provider call failed. `providerMessage` is the provider's own `{error}` text: for the operator (logs,
 * `labelctl pickup-points verify`), never for API clients.
 */
export class ProviderCallError extends Error {
  override readonly name = 'ProviderCallError';
  constructor(
    readonly kind: ProviderFailureKind,
    message: string,
    readonly details: { status: number | null; providerMessage: string | null; attempts: number },
  ) {
    super(message);
  }
}

export interface ProviderHttpAnswer {
  status: number;
  body: unknown;
  attempts: number;
}

/** Header names the service sets itself; an operator cannot configure them. */
export const RESERVED_HEADER_NAMES = [
  'content-type',
  'content-length',
  'x-origin-service',
  'host',
  'connection',
  'transfer-encoding',
  'expect',
  'upgrade',
] as const;

const printable = (text: string, max: number) =>
  text
    .replace(/\p{Cc}+/gu, ' ')
    .trim()
    .slice(0, max);

/** The provider's `{error: "..."}` message, cleaned for a log line. */
function providerMessageOf(bytes: Buffer): string | null {
  try {
    const body = JSON.parse(bytes.toString('utf8')) as { error?: unknown };
    return typeof body?.error === 'string' ? printable(body.error, 300) : null;
  } catch {
    return null;
  }
}

/** One attempt: the answer whole, or the failure as the decision's kinds (the guard's refusal is `blocked_target`). */
async function attempt(url: URL, endpoint: ProviderEndpoint, payload: string, options: ProviderClientOptions) {
  const headers: Record<string, string> = {};
  for (const h of endpoint.headers) headers[h.name] = h.value;
  Object.assign(headers, { 'Content-Type': 'application/json', 'X-Origin-Service': ORIGIN_SERVICE });
  try {
    return await httpCall({
      url,
      method: 'POST',
      headers,
      body: payload,
      timeoutMs: options.timeoutMs,
      maxResponseBytes: options.maxResponseBytes,
      agent: false,
      ...(needsGuard(url, options.policy) ? { lookup: guardedLookup(options.resolve) } : {}),
    });
  } catch (error) {
    if (!(error instanceof HttpCallError)) throw error;
    const blocked = error.cause instanceof BlockedTargetError;
    const kind: ProviderFailureKind = blocked ? 'blocked_target' : error.kind;
    const message = blocked ? error.cause.message : providerMessage(error);
    throw new ProviderCallError(kind, message, { status: error.status, providerMessage: null, attempts: 1 });
  }
}

/** The decision's wording: a connection that never answered is "cannot reach"; the rest as `httpCall` says. */
function providerMessage(error: HttpCallError): string {
  if (error.kind !== 'network' || error.status !== null) return error.message;
  return `cannot reach the provider: ${error.cause instanceof Error ? error.cause.message : error.message}`;
}

const retriable = (error: ProviderCallError) =>
  error.kind === 'network' || (error.kind === 'http_error' && (error.details.status ?? 0) >= 500);

export type ProviderClient = (endpoint: ProviderEndpoint, search: ProviderSearchRequest) => Promise<ProviderHttpAnswer>;

export function createProviderClient(options: ProviderClientOptions): ProviderClient {
  return async (endpoint, search) => {
    let url: URL;
    try {
      url = checkEndpointUrl(endpoint.url, options.policy);
    } catch (error) {
      if (!(error instanceof BlockedTargetError)) throw error;
      throw new ProviderCallError('blocked_target', error.message, {
        status: null,
        providerMessage: null,
        attempts: 0,
      });
    }
    const payload = JSON.stringify({
      latitude: search.latitude,
      longitude: search.longitude,
      countryCode: search.countryCode,
      shop: search.shop,
    });
    for (let attempts = 1; ; attempts += 1) {
      let failure: ProviderCallError;
      try {
        const answer = await attempt(url, endpoint, payload, options);
        if (answer.status >= 200 && answer.status < 300) {
          try {
            return { status: answer.status, body: JSON.parse(answer.bytes.toString('utf8')) as unknown, attempts };
          } catch {
            throw new ProviderCallError('not_json', 'the answer is not JSON', {
              status: answer.status,
              providerMessage: null,
              attempts,
            });
          }
        }
        const providerMessage = providerMessageOf(answer.bytes);
        failure = new ProviderCallError(
          'http_error',
          `the provider answered HTTP ${answer.status}${providerMessage ? `: ${providerMessage}` : ''}`,
          { status: answer.status, providerMessage, attempts },
        );
      } catch (error) {
        if (!(error instanceof ProviderCallError)) throw error;
        failure = new ProviderCallError(error.kind, error.message, { ...error.details, attempts });
      }
      if (attempts >= options.maxAttempts || !retriable(failure)) throw failure;
      await new Promise((resolve) => setTimeout(resolve, options.retryDelayMs));
    }
  };
}

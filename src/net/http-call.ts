import http, { type IncomingHttpHeaders } from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { SpanKind } from '@opentelemetry/api';
import { inSpan } from '../tracing/spans';

/**
 * One outbound HTTP request over node:http, answered whole or failed with a kind the caller maps to its own error.
 *
 * The store platform and carrier adapters call it on every creation: `fetch` (undici) cost several times the CPU per
 * call (web streams, abort signals, DOMExceptions) and was the worker's largest single item after PostgreSQL's
 * sockets in the creation benchmark. Connections are kept alive by default; node's agent closes an idle one a second
 * before the server's announced `Keep-Alive: timeout` (`Agent.keepSocketAlive`), as undici did.
 */
export interface HttpCall {
  url: URL | string;
  method: string;
  headers?: Record<string, string>;
  body?: string;
  /** The whole exchange: connect, send, and the complete answer. */
  timeoutMs: number;
  /** An answer past this many bytes fails `too_large` (unbounded when not given). */
  maxResponseBytes?: number;
  /** Reads only this many bytes of the answer and answers with them: the status is what counts, not a long body. */
  readAtMost?: number;
  /** `false`: a connection of its own, closed after the answer (the outbound calls whose lookup is guarded). */
  agent?: http.Agent | false;
  lookup?: LookupFunction;
}

export interface HttpAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  bytes: Buffer;
}

/** `timeout`: no complete answer in time; `network`: no connection, or it broke off; `too_large`: over the limit. */
export type HttpFailureKind = 'timeout' | 'network' | 'too_large';

export class HttpCallError extends Error {
  override readonly name = 'HttpCallError';
  constructor(
    readonly kind: HttpFailureKind,
    message: string,
    /** The answer's status when one had begun, else null. */
    readonly status: number | null = null,
    /** What the connection failed with (a lookup's refusal, a reset), when it did. */
    override readonly cause?: unknown,
  ) {
    super(message);
  }
}

const keepAlive = { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) };

/**
 * With tracing on, a client span per call (the URL without its query, which may carry credentials). No
 * `traceparent` goes out: carriers, platforms and receivers are not ours, and the baggage names our request.
 */
export function httpCall(call: HttpCall): Promise<HttpAnswer> {
  const url = typeof call.url === 'string' ? new URL(call.url) : call.url;
  const attributes = { 'http.request.method': call.method, 'url.full': `${url.origin}${url.pathname}` };
  return inSpan(`${call.method}`, { kind: SpanKind.CLIENT, attributes }, async (span) => {
    const answer = await send(call, url);
    span?.setAttribute('http.response.status_code', answer.status);
    return answer;
  });
}

function send(call: HttpCall, url: URL): Promise<HttpAnswer> {
  const secure = url.protocol === 'https:';
  return new Promise<HttpAnswer>((resolve, reject) => {
    let settled = false;
    const fail = (error: HttpCallError) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request.destroy();
      reject(error);
    };
    const headers = { ...call.headers };
    if (call.body !== undefined) headers['content-length'] = String(Buffer.byteLength(call.body));
    const request = (secure ? https : http).request(
      url,
      {
        method: call.method,
        headers,
        agent: call.agent ?? (secure ? keepAlive.https : keepAlive.http),
        ...(call.lookup ? { lookup: call.lookup } : {}),
      },
      (response) => {
        const status = response.statusCode ?? 0;
        const limit = call.maxResponseBytes ?? Infinity;
        const declared = Number(response.headers['content-length']);
        if (Number.isFinite(declared) && declared > limit) {
          fail(new HttpCallError('too_large', `the answer declares ${declared} bytes, over ${limit}`, status));
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        const answer = () => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          resolve({ status, headers: response.headers, bytes: Buffer.concat(chunks) });
          if (!response.complete) request.destroy();
        };
        response.on('data', (chunk: Buffer) => {
          if (call.readAtMost !== undefined && size + chunk.length >= call.readAtMost) {
            chunks.push(chunk.subarray(0, call.readAtMost - size));
            answer();
            return;
          }
          size += chunk.length;
          if (size > limit) fail(new HttpCallError('too_large', `the answer is over ${limit} bytes`, status));
          else chunks.push(chunk);
        });
        response.on('end', answer);
        response.on('error', (error) =>
          fail(new HttpCallError('network', `the answer broke off: ${error.message}`, status, error)),
        );
        response.on('aborted', () => fail(new HttpCallError('network', 'the answer broke off', status)));
      },
    );
    const timer = setTimeout(
      () => fail(new HttpCallError('timeout', `no complete answer within ${call.timeoutMs} ms`)),
      call.timeoutMs,
    );
    request.on('error', (error) => fail(new HttpCallError('network', `cannot connect: ${error.message}`, null, error)));
    request.end(call.body);
  });
}

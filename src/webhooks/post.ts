import http from 'node:http';
import https from 'node:https';
import {
  BlockedTargetError,
  checkEndpointUrl,
  guardedLookup,
  needsGuard,
  type Resolver,
  type TargetPolicy,
} from '../net/target-guard';

/**
 * One delivery request: POST the event's exact bytes, with a time box over the whole exchange, the SSRF guard on the
 * connection's own DNS lookup, no redirects followed, and at most a few KB of the answer read (decision 0604).
 */

export interface PostOptions {
  timeoutMs: number;
  resolve: Resolver;
  policy: TargetPolicy;
}

export type PostResult =
  | { kind: 'answered'; statusCode: number; durationMs: number; bodyStart: string }
  | { kind: 'failed'; error: string; durationMs: number };

/** Enough of the answer for the log's excerpt; the rest is never read. */
const MAX_READ_BYTES = 4 * 1024;

export function postWebhook(
  rawUrl: string,
  headers: Record<string, string>,
  body: string,
  options: PostOptions,
): Promise<PostResult> {
  const started = process.hrtime.bigint();
  const elapsed = () => Number((process.hrtime.bigint() - started) / 1_000_000n);
  let url: URL;
  try {
    url = checkEndpointUrl(rawUrl, options.policy);
  } catch (error) {
    if (error instanceof BlockedTargetError)
      return Promise.resolve({ kind: 'failed', error: `refused: ${error.message}`, durationMs: 0 });
    throw error;
  }
  return new Promise<PostResult>((resolve) => {
    let settled = false;
    const settle = (result: PostResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request.destroy();
      resolve(result);
    };
    const request = (url.protocol === 'https:' ? https : http).request(
      url,
      {
        method: 'POST',
        headers: { ...headers, 'Content-Length': String(Buffer.byteLength(body)) },
        agent: false,
        ...(needsGuard(url, options.policy) ? { lookup: guardedLookup(options.resolve) } : {}),
      },
      (response) => {
        const statusCode = response.statusCode ?? 0;
        const chunks: Buffer[] = [];
        let size = 0;
        const done = () =>
          settle({
            kind: 'answered',
            statusCode,
            durationMs: elapsed(),
            bodyStart: Buffer.concat(chunks).toString('utf8'),
          });
        response.on('data', (chunk: Buffer) => {
          if (size < MAX_READ_BYTES) chunks.push(chunk.subarray(0, MAX_READ_BYTES - size));
          size += chunk.length;
          // The status is what counts; a receiver streaming a long answer is not waited for.
          if (size >= MAX_READ_BYTES) done();
        });
        response.on('end', done);
        response.on('error', done);
        response.on('aborted', done);
      },
    );
    const timer = setTimeout(
      () =>
        settle({ kind: 'failed', error: `timeout: no answer within ${options.timeoutMs} ms`, durationMs: elapsed() }),
      options.timeoutMs,
    );
    request.on('error', (error) =>
      settle({
        kind: 'failed',
        error: error instanceof BlockedTargetError ? `refused: ${error.message}` : `cannot connect: ${error.message}`,
        durationMs: elapsed(),
      }),
    );
    request.end(body);
  });
}

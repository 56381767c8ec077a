import { httpCall, HttpCallError } from '../net/http-call';
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

export async function postWebhook(
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
      return { kind: 'failed', error: `refused: ${error.message}`, durationMs: 0 };
    throw error;
  }
  try {
    const answer = await httpCall({
      url,
      method: 'POST',
      headers,
      body,
      timeoutMs: options.timeoutMs,
      readAtMost: MAX_READ_BYTES,
      agent: false,
      ...(needsGuard(url, options.policy) ? { lookup: guardedLookup(options.resolve) } : {}),
    });
    return {
      kind: 'answered',
      statusCode: answer.status,
      durationMs: elapsed(),
      bodyStart: answer.bytes.toString('utf8'),
    };
  } catch (error) {
    if (!(error instanceof HttpCallError)) throw error;
    // The status arrived and the answer broke off: the status is what counts.
    if (error.kind === 'network' && error.status !== null)
      return { kind: 'answered', statusCode: error.status, durationMs: elapsed(), bodyStart: '' };
    const cause = error.cause instanceof Error ? error.cause : null;
    const message =
      error.kind === 'timeout'
        ? `timeout: no answer within ${options.timeoutMs} ms`
        : cause instanceof BlockedTargetError
          ? `refused: ${cause.message}`
          : `cannot connect: ${cause?.message ?? error.message}`;
    return { kind: 'failed', error: message, durationMs: elapsed() };
  }
}

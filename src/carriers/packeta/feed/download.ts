import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import type { PacketaFeedFile } from '../../../db/packeta-pickup-points';

/**
 * Downloads one file of Packeta's pickup-point feed (`{base}/{API key}/{branch|box}.json?lang=en`, branch export v5)
 * to a file of its own, then offers it as text chunks. Packeta documents no version field in the files; its exports
 * are generated and cached (55 minutes, docs.packetery.com "Branch exports"), so the HTTP validators of that cached
 * file are what versions it: a stored `ETag` / `Last-Modified` goes back as `If-None-Match` / `If-Modified-Since` and
 * a 304 means unchanged. Whatever the server sends, the body's SHA-256 is the last word (decision 1220).
 *
 * The body goes to disk first (over 100 MB for the whole network), so the connection is not held open while the
 * import writes to PostgreSQL (a server gives up on a reader that slow), and an unchanged body is known by its digest
 * before a single point is parsed.
 */

export interface FeedSettings {
  /** `https://pickup-point.api.packeta.com/v5` in production. */
  baseUrl: string;
  apiKey: string;
  /** The whole download of one file. */
  timeoutMs: number;
}

export interface FeedValidators {
  etag: string | null;
  lastModified: string | null;
}

/** `refused`: the server will not serve this key or URL (retrying does not help); the others pass. */
export type FeedFailureKind = 'refused' | 'unavailable' | 'timeout';

export class FeedDownloadError extends Error {
  override readonly name = 'FeedDownloadError';
  constructor(
    readonly kind: FeedFailureKind,
    message: string,
    readonly status: number | null = null,
  ) {
    super(message);
  }
}

export type FeedDownload =
  | { kind: 'not_modified' }
  | {
      kind: 'body';
      validators: FeedValidators;
      /** SHA-256 of the body (the server's gzip undone). */
      digest: string;
      /** The body as text, chunk by chunk, read from the downloaded file. */
      chunks: () => AsyncIterable<string>;
      /** Removes the downloaded file. */
      discard: () => Promise<void>;
    };

function feedUrl(settings: FeedSettings, file: PacketaFeedFile): string {
  return `${settings.baseUrl}/${encodeURIComponent(settings.apiKey)}/${file}.json?lang=en`;
}

function failure(status: number, what: string): FeedDownloadError {
  // 401/403/404: a key or URL the server does not serve; it will not change by asking again in a minute.
  if (status === 401 || status === 403 || status === 404)
    return new FeedDownloadError('refused', `${what}: HTTP ${status} (is PACKETA_FEED_API_KEY right?)`, status);
  return new FeedDownloadError('unavailable', `${what}: HTTP ${status}`, status);
}

/** Why a request or its body failed, without the URL (the key is part of it). */
function broken(error: unknown, signal: AbortSignal, what: string, part: string): FeedDownloadError {
  if (signal.aborted) return new FeedDownloadError('timeout', `${what}: no complete answer in time`);
  const cause = (error as Error & { cause?: unknown }).cause;
  const reason = cause instanceof Error ? cause.message : (error as Error).message;
  return new FeedDownloadError('unavailable', `${what}: ${part} (${reason})`);
}

export async function downloadFeedFile(
  settings: FeedSettings,
  file: PacketaFeedFile,
  validators: FeedValidators | null,
): Promise<FeedDownload> {
  // Errors name the file, never the URL: the key is part of it.
  const what = `${file}.json`;
  const signal = AbortSignal.timeout(settings.timeoutMs);
  const headers: Record<string, string> = { accept: 'application/json' };
  if (validators?.etag) headers['if-none-match'] = validators.etag;
  if (validators?.lastModified) headers['if-modified-since'] = validators.lastModified;
  let response: Response;
  try {
    response = await fetch(feedUrl(settings, file), { headers, signal, redirect: 'follow' });
  } catch (error) {
    throw broken(error, signal, what, 'no answer');
  }
  if (response.status === 304) return { kind: 'not_modified' };
  if (response.status !== 200 || !response.body) {
    await response.body?.cancel();
    throw failure(response.status, what);
  }
  const directory = await mkdtemp(join(tmpdir(), 'packeta-feed-'));
  const discard = () => rm(directory, { recursive: true, force: true });
  const path = join(directory, `${file}.json`);
  const hash = createHash('sha256');
  try {
    const body = Readable.fromWeb(response.body as WebReadableStream<Uint8Array>);
    body.on('data', (bytes: Buffer) => hash.update(bytes));
    await pipeline(body, createWriteStream(path));
  } catch (error) {
    await discard();
    throw broken(error, signal, what, 'the download broke off');
  }
  return {
    kind: 'body',
    validators: { etag: response.headers.get('etag'), lastModified: response.headers.get('last-modified') },
    digest: hash.digest('base64url'),
    chunks: () => createReadStream(path, { encoding: 'utf8', highWaterMark: 1 << 20 }),
    discard,
  };
}

import { createHash } from 'node:crypto';
import type { PacketaFeedFile } from '../../../db/packeta-pickup-points';

/**
 * Downloads one file of Packeta's pickup-point feed (`{base}/{API key}/{branch|box}.json?lang=en`, branch export v5),
 * as a stream of text chunks. Packeta documents no version field in the files; its exports are generated and cached
 * (55 minutes, docs.packetery.com "Branch exports"), so the HTTP validators of that cached file are what versions it:
 * a stored `ETag` / `Last-Modified` goes back as `If-None-Match` / `If-Modified-Since` and a 304 means unchanged.
 * Whatever the server sends, the body's SHA-256 is the last word (decision 1220).
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
      /** The body as text, chunk by chunk (the server's gzip undone). */
      chunks: AsyncIterable<string>;
      /** SHA-256 of the body, once `chunks` has been read to its end. */
      digest: () => string;
    };

function feedUrl(settings: FeedSettings, file: PacketaFeedFile): string {
  return `${settings.baseUrl}/${encodeURIComponent(settings.apiKey)}/${file}.json?lang=en`;
}

async function* decoded(
  body: AsyncIterable<Uint8Array>,
  hash: ReturnType<typeof createHash>,
  signal: AbortSignal,
  what: string,
): AsyncIterable<string> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  try {
    for await (const bytes of body) {
      hash.update(bytes);
      yield decoder.decode(bytes, { stream: true });
    }
    const rest = decoder.decode();
    if (rest) yield rest;
  } catch (error) {
    if (signal.aborted) throw new FeedDownloadError('timeout', `${what}: no complete answer in time`);
    if (error instanceof TypeError && /decode|encoded/i.test(error.message))
      throw new FeedDownloadError('unavailable', `${what}: the body is not UTF-8`);
    throw new FeedDownloadError('unavailable', `${what}: the download broke off (${(error as Error).message})`);
  }
}

function failure(status: number, what: string): FeedDownloadError {
  // 401/403/404: a key or URL the server does not serve; it will not change by asking again in a minute.
  if (status === 401 || status === 403 || status === 404)
    return new FeedDownloadError('refused', `${what}: HTTP ${status} (is PACKETA_FEED_API_KEY right?)`, status);
  return new FeedDownloadError('unavailable', `${what}: HTTP ${status}`, status);
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
    if (signal.aborted) throw new FeedDownloadError('timeout', `${what}: no answer in time`);
    const cause = (error as Error & { cause?: unknown }).cause;
    throw new FeedDownloadError(
      'unavailable',
      `${what}: ${cause instanceof Error ? cause.message : (error as Error).message}`,
    );
  }
  if (response.status === 304) return { kind: 'not_modified' };
  if (response.status !== 200 || !response.body) {
    await response.body?.cancel();
    throw failure(response.status, what);
  }
  const hash = createHash('sha256');
  return {
    kind: 'body',
    validators: { etag: response.headers.get('etag'), lastModified: response.headers.get('last-modified') },
    chunks: decoded(response.body, hash, signal, what),
    digest: () => hash.copy().digest('base64url'),
  };
}

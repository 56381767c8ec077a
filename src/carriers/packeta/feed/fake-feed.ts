import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import type { PacketaFeedFile } from '../../../db/packeta-pickup-points';
import type { Router } from '../../../sandbox/http';
import { FAKE_BRANCHES } from '../fake/network';

/**
 * A fake of Packeta's pickup-point feed, served the way Packeta documents it (branch export v5):
 * `GET /v5/{API key}/branch.json?lang=xx` and `/v5/{API key}/box.json?lang=xx`, each a JSON array, `lang` two letters
 * of ISO 639-1 only. Packeta generates the files and caches them; the fake serves what a test published last, with
 * that version's `ETag` and `Last-Modified`, and answers a conditional request for it with 304 (`validators` off: a
 * server that sends neither, the case where only the body's digest tells). What Packeta leaves undocumented is the
 * fake's choice and said so: an unknown key is 401, a path it does not serve 404. Tests script faults: an HTTP status
 * for the next requests, or a body cut off half-way.
 */

export interface PublishedFile {
  text: string;
  etag: string;
  lastModified: string;
}

export type FeedFault = { kind: 'status'; status: number } | { kind: 'cut' };

export interface FeedRequest {
  file: PacketaFeedFile;
  apiKey: string;
  conditional: boolean;
  status: number;
}

export class FakeFeed {
  private readonly files = new Map<PacketaFeedFile, PublishedFile>();
  private readonly faults: FeedFault[] = [];
  /** Send and honour `ETag` / `Last-Modified`. */
  validators = true;
  /** The latest requests (at most 100 kept: the sandbox's feed runs for days). */
  readonly requests: FeedRequest[] = [];

  /** `any`: every key is served (the sandbox's feed). */
  constructor(readonly apiKeys: ReadonlySet<string> | 'any') {}

  /** A new version of a file (the array's text), as of `at`. */
  publish(file: PacketaFeedFile, text: string, at: Date): void {
    const etag = `"${createHash('sha256').update(text).digest('base64url').slice(0, 16)}"`;
    this.files.set(file, { text, etag, lastModified: at.toUTCString() });
  }

  publishPoints(file: PacketaFeedFile, points: readonly unknown[], at: Date): void {
    this.publish(file, JSON.stringify(points), at);
  }

  /** The next requests (one fault each) fail this way. */
  failNext(...faults: FeedFault[]): void {
    this.faults.push(...faults);
  }

  answer(request: { apiKey: string; fileName: string; lang: string | null; headers: IncomingMessage['headers'] }): {
    status: number;
    headers: Record<string, string>;
    body: string;
    cut: boolean;
  } {
    const plain = (status: number, body: string) => ({
      status,
      headers: { 'content-type': 'text/plain; charset=utf-8' },
      body,
      cut: false,
    });
    const file = /^(branch|box)\.json$/.exec(request.fileName)?.[1] as PacketaFeedFile | undefined;
    const published = file ? this.files.get(file) : undefined;
    const log = (status: number) => {
      if (this.requests.length >= 100) this.requests.shift();
      if (file)
        this.requests.push({
          file,
          apiKey: request.apiKey,
          conditional: Boolean(request.headers['if-none-match'] ?? request.headers['if-modified-since']),
          status,
        });
    };
    if (!file || !published) return plain(404, 'Not Found');
    if (this.apiKeys !== 'any' && !this.apiKeys.has(request.apiKey)) {
      log(401);
      return plain(401, 'Invalid API key');
    }
    if (request.lang !== null && !/^[a-z]{2}$/.test(request.lang)) {
      log(400);
      return plain(400, 'lang must be a two-letter ISO 639-1 code');
    }
    const fault = this.faults.shift();
    if (fault?.kind === 'status') {
      log(fault.status);
      return plain(fault.status, 'Service Unavailable');
    }
    const versioned: Record<string, string> = this.validators
      ? { etag: published.etag, 'last-modified': published.lastModified }
      : {};
    if (this.validators && this.unchangedFor(published, request.headers)) {
      log(304);
      return { status: 304, headers: versioned, body: '', cut: false };
    }
    log(200);
    return {
      status: 200,
      headers: { 'content-type': 'application/json; charset=utf-8', ...versioned },
      body: published.text,
      cut: fault?.kind === 'cut',
    };
  }

  private unchangedFor(published: PublishedFile, headers: IncomingMessage['headers']): boolean {
    const ifNoneMatch = headers['if-none-match'];
    if (ifNoneMatch !== undefined) return ifNoneMatch.split(',').some((tag) => tag.trim() === published.etag);
    const since = headers['if-modified-since'];
    return since !== undefined && Date.parse(since) >= Date.parse(published.lastModified);
  }
}

const PATH = /^\/v5\/([^/]+)\/([^/]+)$/;

/** The fake on an HTTP server of its own (gzip when asked, as a real export server does): tests and the benchmark. */
export function fakeFeedListener(feed: FakeFeed) {
  // Each version is compressed once, as an export server caches its file.
  const compressed = new Map<string, Buffer>();
  const gzipped = (text: string) => {
    let bytes = compressed.get(text);
    if (!bytes) {
      // Two files, a version or two each: older versions go.
      if (compressed.size >= 4) compressed.clear();
      bytes = gzipSync(text);
      compressed.set(text, bytes);
    }
    return bytes;
  };
  return (req: IncomingMessage, res: ServerResponse): void => {
    const url = new URL(req.url ?? '/', 'http://feed');
    const match = PATH.exec(url.pathname);
    const answer = match
      ? feed.answer({
          apiKey: decodeURIComponent(match[1]!),
          fileName: match[2]!,
          lang: url.searchParams.get('lang'),
          headers: req.headers,
        })
      : { status: 404, headers: {}, body: 'Not Found', cut: false };
    const gzip = answer.status === 200 && /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''));
    const body = gzip ? gzipped(answer.body) : Buffer.from(answer.body);
    res.writeHead(answer.status, {
      ...answer.headers,
      ...(gzip ? { 'content-encoding': 'gzip' } : {}),
      'content-length': String(body.length),
    });
    if (!answer.cut) {
      res.end(body);
      return;
    }
    // Half the body, then the connection is gone: what a download that breaks off looks like.
    res.write(body.subarray(0, Math.floor(body.length / 2)), () => res.socket?.destroy());
  };
}

export async function startFakeFeedServer(feed: FakeFeed): Promise<{ baseUrl: string; close: () => Promise<void> }> {
  const server = createServer(fakeFeedListener(feed));
  server.keepAliveTimeout = 120_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v5`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const DAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;

/** The fake Packeta's network (src/carriers/packeta/fake/network.ts) as its feed writes it: one network, two views. */
export function fakePacketaFeed(): Record<PacketaFeedFile, Array<Record<string, unknown>>> {
  const files: Record<PacketaFeedFile, Array<Record<string, unknown>>> = { branch: [], box: [] };
  for (const b of FAKE_BRANCHES) {
    const box = b.type === 'zbox';
    const hours = (day: (typeof DAYS)[number]) => (box ? '00:00–23:59' : day === 'sunday' ? '' : '08:00–18:00');
    files[box ? 'box' : 'branch'].push({
      id: b.id,
      ...(box ? { type: 'zbox', codAllowed: b.codAllowed ? '1' : '0' } : {}),
      name: b.name,
      place: box ? 'Z-BOX' : 'Packeta',
      street: b.street,
      city: b.city,
      zip: b.zip,
      country: b.country.toLowerCase(),
      currency: b.currency,
      status: { statusId: String(b.statusId), description: b.statusId === 1 ? 'In operation' : 'Ended cooperation' },
      displayFrontend: '1',
      latitude: String(b.latitude),
      longitude: String(b.longitude),
      maxWeight: String(b.maxWeightKg),
      openingHours: { regular: Object.fromEntries(DAYS.map((d) => [d, hours(d)])), exceptions: {} },
    });
  }
  return files;
}

/**
 * The sandbox serves the fake Packeta's network as Packeta's feed at `/packeta-feed/v5/{any key}/{branch,box}.json`,
 * so the points `npm run dev -- --packeta` imports are the ones the fake Packeta takes packets to (docs/sandbox.md).
 */
export function registerPacketaFeedSandbox(router: Router): void {
  const feed = new FakeFeed('any');
  const files = fakePacketaFeed();
  // A fixed version: the network never changes, so every import after the first is answered 304.
  for (const file of ['branch', 'box'] as const) feed.publishPoints(file, files[file], new Date(0));
  router.add('GET', '/packeta-feed/v5/:key/:file', async (request) => {
    const answer = feed.answer({
      apiKey: request.params.key!,
      fileName: request.params.file!,
      lang: request.query.get('lang'),
      headers: request.headers,
    });
    const { 'content-type': contentType = 'text/plain', ...headers } = answer.headers;
    return { kind: 'raw', status: answer.status, contentType, body: answer.body, headers };
  });
}

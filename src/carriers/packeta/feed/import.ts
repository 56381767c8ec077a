import type {
  PacketaFeedFile,
  PacketaFeedFileState,
  PacketaPointRecord,
  PacketaPointsStore,
  StoredPacketaPoint,
} from '../../../db/packeta-pickup-points';
import type { Logger } from '../../../logger';
import { noCounts, pointChange, refusalOfReading, vanishedIds, type ImportCounts } from './diff';
import { FeedDownloadError, type FeedDownload, type FeedValidators } from './download';
import { parseFeedPoint } from './feed-point';
import { JsonArraySplitter, MalformedFeedError } from './json-array';

/**
 * One import of Packeta's pickup-point feed (decision 1220): each file (`branch`, then `box`) is asked for with the
 * validators of its last import; a 304 or a body with the same digest writes nothing but the time of the check.
 * Otherwise the file is read one point at a time and only new, changed and returned points are written, in batches,
 * while the reading goes on; once the whole file has been read, the points it no longer lists are marked vanished,
 * and only then is its version recorded. A download that breaks off therefore leaves correct points and no false
 * vanishing, and the next run starts again. Files fail on their own: a failure is recorded on its file, the other
 * file still imports, and the import then fails with every file's reason.
 */

export const FEED_FILES: readonly PacketaFeedFile[] = ['branch', 'box'];
const BATCH = 1_000;
/** Refused elements logged one by one per file; the rest only counted. */
const LOGGED_REFUSALS = 5;

export interface FeedImportDeps {
  store: PacketaPointsStore;
  download: (file: PacketaFeedFile, validators: FeedValidators | null) => Promise<FeedDownload>;
  now: () => Date;
  logger: Logger;
  /** The largest share of a file's points one reading may mark vanished (PACKETA_FEED_MAX_VANISHED_SHARE). */
  maxVanishedShare: number;
}

export type FileOutcome = 'not_modified' | 'unchanged' | 'applied';

export interface FileImport {
  file: PacketaFeedFile;
  outcome: FileOutcome;
  /** Points the file lists; null when the server answered 304. */
  points: number | null;
  /** What the reading found; all zero when the file was not read (304, or the same digest as last time). */
  counts: ImportCounts;
  /** Values dropped with a warning (a malformed date, one day's hours). */
  warnings: number;
}

/** A file that could not be imported; `retryable` false when asking again soon cannot help. */
export class FeedImportError extends Error {
  override readonly name = 'FeedImportError';
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly imported: FileImport[],
  ) {
    super(message);
  }
}

class ReadingRefused extends Error {}

interface Reading {
  stored: Map<string, StoredPacketaPoint>;
  seen: Set<string>;
  batch: Map<string, PacketaPointRecord>;
  counts: ImportCounts;
  warnings: number;
}

async function flush(deps: FeedImportDeps, reading: Reading, now: Date): Promise<void> {
  if (reading.batch.size === 0) return;
  const points = [...reading.batch.values()];
  await deps.store.writePoints(points, now);
  for (const p of points) reading.stored.set(p.id, { feedFile: p.feedFile, contentHash: p.contentHash, inFeed: true });
  reading.batch.clear();
}

function take(deps: FeedImportDeps, reading: Reading, file: PacketaFeedFile, element: string): void {
  let raw: unknown;
  try {
    raw = JSON.parse(element);
  } catch {
    throw new MalformedFeedError(`a point of ${file}.json is not valid JSON`);
  }
  const parsed = parseFeedPoint(raw, file);
  if (!parsed.ok) {
    // A listed point that cannot be read keeps what was stored of it: it is in the feed, so it has not vanished.
    if (parsed.id !== null && /^\d{1,10}$/.test(parsed.id)) reading.seen.add(String(Number(parsed.id)));
    if (reading.counts.refused < LOGGED_REFUSALS)
      deps.logger.warn({ feed_file: file, point_id: parsed.id, problem: parsed.problem }, 'Packeta feed point refused');
    reading.counts.refused += 1;
    return;
  }
  const { point } = parsed;
  reading.warnings += parsed.warnings.length;
  if (reading.seen.has(point.id)) reading.warnings += 1;
  reading.seen.add(point.id);
  const change = pointChange(reading.stored.get(point.id), point.contentHash);
  reading.counts[change] += 1;
  if (change !== 'unchanged') reading.batch.set(point.id, point);
}

async function readFile(
  deps: FeedImportDeps,
  file: PacketaFeedFile,
  download: Extract<FeedDownload, { kind: 'body' }>,
  stored: Map<string, StoredPacketaPoint>,
): Promise<Reading> {
  const now = deps.now();
  const reading: Reading = { stored, seen: new Set(), batch: new Map(), counts: noCounts(), warnings: 0 };
  const splitter = new JsonArraySplitter();
  for await (const chunk of download.chunks()) {
    for (const element of splitter.push(chunk)) take(deps, reading, file, element);
    if (reading.batch.size >= BATCH) await flush(deps, reading, now);
  }
  splitter.end();
  await flush(deps, reading, now);
  return reading;
}

async function importFile(
  deps: FeedImportDeps,
  file: PacketaFeedFile,
  state: PacketaFeedFileState | undefined,
  stored: () => Promise<Map<string, StoredPacketaPoint>>,
): Promise<FileImport> {
  // Validators only once the file has been imported whole: a 304 must mean "as we have it".
  const known = state?.digest ? { etag: state.etag, lastModified: state.lastModified } : null;
  const download = await deps.download(file, known);
  if (download.kind === 'not_modified') {
    if (!known || !state)
      throw new FeedDownloadError('unavailable', `${file}.json: 304 to a request without validators`);
    await deps.store.recordChecked(
      file,
      { etag: state.etag, lastModified: state.lastModified, digest: state.digest, points: null },
      false,
      deps.now(),
    );
    return { file, outcome: 'not_modified', points: null, counts: noCounts(), warnings: 0 };
  }
  try {
    // The same body as last time: nothing to read (a server without validators, or an export made again).
    if (state?.digest === download.digest) {
      await deps.store.recordChecked(
        file,
        { ...download.validators, digest: download.digest, points: null },
        false,
        deps.now(),
      );
      return { file, outcome: 'unchanged', points: state.points, counts: noCounts(), warnings: 0 };
    }
    return await applyReading(deps, file, download, await stored());
  } finally {
    await download.discard();
  }
}

async function applyReading(
  deps: FeedImportDeps,
  file: PacketaFeedFile,
  download: Extract<FeedDownload, { kind: 'body' }>,
  points: Map<string, StoredPacketaPoint>,
): Promise<FileImport> {
  const inFeedBefore = [...points.values()].filter((p) => p.feedFile === file && p.inFeed).length;
  const reading = await readFile(deps, file, download, points);
  const vanished = vanishedIds(points, file, reading.seen);
  const refusal = refusalOfReading({
    inFeedBefore,
    listed: reading.seen.size,
    vanished: vanished.length,
    maxVanishedShare: deps.maxVanishedShare,
  });
  if (refusal) throw new ReadingRefused(`${file}.json: ${refusal}`);
  const now = deps.now();
  await deps.store.markVanished(vanished, now);
  for (const id of vanished) points.set(id, { ...points.get(id)!, inFeed: false });
  reading.counts.vanished = vanished.length;
  const { counts } = reading;
  const changed = counts.new + counts.changed + counts.returned + counts.vanished > 0;
  const version = { ...download.validators, digest: download.digest, points: reading.seen.size };
  await deps.store.recordChecked(file, version, changed, now);
  return {
    file,
    outcome: changed ? 'applied' : 'unchanged',
    points: reading.seen.size,
    counts,
    warnings: reading.warnings,
  };
}

/** Imports both files; throws FeedImportError naming each file that failed, after recording it. */
export async function importPacketaFeed(deps: FeedImportDeps): Promise<FileImport[]> {
  const states = new Map((await deps.store.fileStates()).map((s) => [s.feedFile, s]));
  let stored: Promise<Map<string, StoredPacketaPoint>> | null = null;
  const imported: FileImport[] = [];
  const failures: Array<{ message: string; retryable: boolean }> = [];
  for (const file of FEED_FILES) {
    try {
      const result = await importFile(deps, file, states.get(file), () => (stored ??= deps.store.storedPoints()));
      deps.logger.info({ feed_file: file, ...result }, 'Packeta pickup-point feed imported');
      imported.push(result);
    } catch (error) {
      if (!(
        error instanceof FeedDownloadError ||
        error instanceof MalformedFeedError ||
        error instanceof ReadingRefused
      ))
        throw error;
      const message = error instanceof MalformedFeedError ? `${file}.json: ${error.message}` : error.message;
      await deps.store.recordFailure(file, message, deps.now());
      deps.logger.error({ feed_file: file, problem: message }, 'Packeta pickup-point feed not imported');
      // A refused key or URL, or a reading that would empty the network, waits for an operator; the rest may pass.
      const waitsForOperator =
        error instanceof ReadingRefused || (error instanceof FeedDownloadError && error.kind === 'refused');
      failures.push({ message, retryable: !waitsForOperator });
    }
  }
  if (failures.length > 0)
    throw new FeedImportError(
      failures.map((f) => f.message).join('; '),
      failures.some((f) => f.retryable),
      imported,
    );
  return imported;
}

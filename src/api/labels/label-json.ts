import { isFullRow, toView, type LabelRef, type ViewRow } from '../../db/labels-query';
import { documentStableThroughMs } from '../../domain/document-availability';
import { serializeLabel } from './serializer';

/** A label's wire JSON as the serializer wrote it, and what it was written for. */
interface Entry {
  version: string;
  baseUrl: string;
  /** `document.availability` moves with age: the JSON holds through this instant (milliseconds). */
  stableThroughMs: number;
  json: string;
}

export interface LabelJsonContext {
  storeId: string;
  /** Base of the label's `document.url` (no `/v1`). */
  baseUrl: string;
  now: Date;
}

/**
 * The wire JSON of labels read by reference (docs/decisions/0020-label-json-cache.md). The hot reads ask PostgreSQL
 * only for IDs and row versions; a label whose version, base URL and document state are the ones in memory answers
 * with the JSON `serializeLabel` wrote for it, the others are read in full in one statement and serialized again.
 * Bounded: past `maxEntries` the oldest entries go first.
 */
export interface LabelJson {
  /**
   * The labels' JSON texts in the order of `refs`; a label deleted since its reference was read is left out. A full
   * row (a page after a cursor) is written from itself when its version is not the one in memory.
   */
  of(refs: ReadonlyArray<LabelRef | ViewRow>, context: LabelJsonContext): Promise<string[]>;
}

export function createLabelJson(options: {
  maxEntries: number;
  /** Full rows of the store's labels by ID (`readLabelRows`). */
  readRows: (storeId: string, ids: string[]) => Promise<ViewRow[]>;
}): LabelJson {
  const entries = new Map<string, Entry>();

  function remember(id: string, entry: Entry) {
    // Re-inserted at the end, so the Map's order is the order of last writes: the first key is the oldest.
    entries.delete(id);
    entries.set(id, entry);
    if (entries.size > options.maxEntries) entries.delete(entries.keys().next().value!);
  }

  /** Serializes a full row and keeps its JSON under the row's version. */
  function write(row: ViewRow, context: LabelJsonContext): string {
    const view = toView(row);
    const json = JSON.stringify(serializeLabel(view, { baseUrl: context.baseUrl, now: context.now }));
    remember(row.id, {
      version: String(row.row_version),
      baseUrl: context.baseUrl,
      stableThroughMs: documentStableThroughMs(view.label.createdAt, context.now),
      json,
    });
    return json;
  }

  return {
    async of(refs, context) {
      const nowMs = context.now.getTime();
      const texts = new Array<string | undefined>(refs.length);
      let missing: string[] | null = null;
      for (let i = 0; i < refs.length; i += 1) {
        const ref = refs[i]!;
        const entry = entries.get(ref.id);
        if (
          entry &&
          entry.version === String(ref.row_version) &&
          entry.baseUrl === context.baseUrl &&
          nowMs <= entry.stableThroughMs
        ) {
          texts[i] = entry.json;
        } else if (isFullRow(ref)) {
          texts[i] = write(ref, context);
        } else {
          (missing ??= []).push(ref.id);
        }
      }
      if (!missing) return texts as string[];
      const written = new Map<string, string>();
      for (const row of await options.readRows(context.storeId, missing)) written.set(row.id, write(row, context));
      return refs.flatMap((ref, i) => texts[i] ?? written.get(ref.id) ?? []);
    },
  };
}

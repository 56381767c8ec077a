import type { PacketaFeedFile, StoredPacketaPoint } from '../../../db/packeta-pickup-points';

/**
 * What an import does with each point, decided from what is stored (decision 1220): a point is written only when it
 * is new, changed, or back after leaving the feed; a stored point of the file that the feed no longer lists is marked
 * vanished, never deleted (an order may name it); and a feed that would take away too large a share of the network at
 * once is not believed.
 */

export type PointChange = 'new' | 'changed' | 'returned' | 'unchanged';

export function pointChange(stored: StoredPacketaPoint | undefined, contentHash: string): PointChange {
  if (!stored) return 'new';
  if (!stored.inFeed) return 'returned';
  return stored.contentHash === contentHash ? 'unchanged' : 'changed';
}

/** The file's points still in the feed by the last import that this complete reading of the file did not list. */
export function vanishedIds(
  stored: ReadonlyMap<string, StoredPacketaPoint>,
  file: PacketaFeedFile,
  seen: ReadonlySet<string>,
): string[] {
  const gone: string[] = [];
  for (const [id, point] of stored) if (point.feedFile === file && point.inFeed && !seen.has(id)) gone.push(id);
  return gone;
}

export interface ImportCounts {
  new: number;
  changed: number;
  returned: number;
  unchanged: number;
  vanished: number;
  /** Elements refused (no ID, coordinates, ...): left as they were stored. */
  refused: number;
}

export const noCounts = (): ImportCounts => ({
  new: 0,
  changed: 0,
  returned: 0,
  unchanged: 0,
  vanished: 0,
  refused: 0,
});

/**
 * Why a reading of a file is not applied, or null. An empty file, or one that would remove more than `maxVanishedShare`
 * of the file's points at once, is what a broken export looks like, not a network that shrank overnight: the points
 * stay offered and an operator looks (docs/operators.md, "Packeta pickup-point feed").
 */
export function refusalOfReading(input: {
  inFeedBefore: number;
  listed: number;
  vanished: number;
  maxVanishedShare: number;
}): string | null {
  if (input.listed === 0) return 'the file lists no points';
  if (input.inFeedBefore > 0 && input.vanished / input.inFeedBefore > input.maxVanishedShare)
    return `the file would remove ${input.vanished} of ${input.inFeedBefore} points at once (more than ${Math.round(
      input.maxVanishedShare * 100,
    )} %)`;
  return null;
}

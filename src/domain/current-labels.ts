import type { CurrentSet, LabelKind, LabelStatus } from './labels';

/**
 * Spec "Derived label properties": which labels of one order and direction are current, which supersede which,
 * and whether the current set is ambiguous. Pure; the labels repository stores the result as a projection.
 *
 * Coverage: a label covers its fulfillment orders. A whole-order label (no fulfillment orders) and an older label
 * recorded without per-fulfillment-order coverage both count as covering every fulfillment order of the order
 * (docs/decisions/0100-whole-order-and-unknown-coverage.md).
 */
export interface CoverageInput {
  id: string;
  /** Orders labels from older to newer; insertion order breaks ties within one second. */
  createdAt: Date;
  seq: number;
  status: LabelStatus;
  kind: LabelKind;
  fulfillmentOrderIds: readonly string[];
  coverageKnown: boolean;
}

export interface DerivedLabelProperties {
  current: boolean;
  supersedes: string[];
  supersededBy: string[];
  currentSet: CurrentSet;
}

type Coverage = { all: true } | { all: false; ids: ReadonlySet<string> };

function coverageOf(label: CoverageInput): Coverage {
  if (!label.coverageKnown || label.fulfillmentOrderIds.length === 0) return { all: true };
  return { all: false, ids: new Set(label.fulfillmentOrderIds) };
}

function overlaps(a: Coverage, b: Coverage): boolean {
  if (a.all || b.all) return true;
  for (const id of a.ids) if (b.ids.has(id)) return true;
  return false;
}

/** Whether `newer` together cover every fulfillment order of `older`. */
function fullyCovered(older: Coverage, newer: readonly Coverage[]): boolean {
  if (older.all) return newer.some((c) => c.all);
  for (const id of older.ids) {
    if (!newer.some((c) => c.all || c.ids.has(id))) return false;
  }
  return true;
}

/** Failed labels and claims are never current and neither supersede nor are superseded. */
function takesPart(label: CoverageInput): boolean {
  return label.status !== 'failed' && label.kind !== 'claim';
}

function newerFirst(a: CoverageInput, b: CoverageInput): number {
  return a.createdAt.getTime() - b.createdAt.getTime() || a.seq - b.seq;
}

/** Derives the properties of every label of one order and direction; the result is keyed by label id. */
export function deriveCurrentLabels(labels: readonly CoverageInput[]): Map<string, DerivedLabelProperties> {
  const ordered = [...labels].sort(newerFirst);
  const coverage = new Map(ordered.map((l) => [l.id, coverageOf(l)]));
  const result = new Map<string, DerivedLabelProperties>();
  for (const l of ordered) result.set(l.id, { current: false, supersedes: [], supersededBy: [], currentSet: 'ok' });

  const participants = ordered.filter(takesPart);
  participants.forEach((label, index) => {
    const own = coverage.get(label.id)!;
    const newer = participants.slice(index + 1).filter((n) => overlaps(own, coverage.get(n.id)!));
    const props = result.get(label.id)!;
    if (
      newer.length > 0 &&
      fullyCovered(
        own,
        newer.map((n) => coverage.get(n.id)!),
      )
    ) {
      props.supersededBy = newer.map((n) => n.id);
      for (const n of newer) result.get(n.id)!.supersedes.push(label.id);
    } else {
      props.current = true;
    }
  });

  const current = participants.filter((l) => result.get(l.id)!.current);
  const ambiguous = current.some((a, i) =>
    current.slice(i + 1).some((b) => overlaps(coverage.get(a.id)!, coverage.get(b.id)!)),
  );
  if (ambiguous) for (const props of result.values()) props.currentSet = 'ambiguous';
  return result;
}

/** A current label's coverage as the document endpoints know it. */
export interface CoverageOfLabel {
  id: string;
  coverageKnown: boolean;
  fulfillmentOrders: ReadonlyArray<{ gid: string; legacyId: string }>;
}

/**
 * Spec `ambiguous_current_set` `details.conflicting_fulfillment_orders`: the fulfillment orders that two or more of
 * the given current labels cover. A whole-order label, or one without recorded coverage, covers every fulfillment
 * order (docs/decisions/0100-whole-order-and-unknown-coverage.md). Sorted by GID.
 */
export function conflictingFulfillmentOrders(
  labels: readonly CoverageOfLabel[],
): Array<{ id: string; legacy_id: string }> {
  const wholeOrder = labels.filter((l) => !l.coverageKnown || l.fulfillmentOrders.length === 0).length;
  const byFo = new Map<string, { legacyId: string; labels: Set<string> }>();
  for (const label of labels) {
    if (!label.coverageKnown) continue;
    for (const fo of label.fulfillmentOrders) {
      const entry = byFo.get(fo.gid) ?? { legacyId: fo.legacyId, labels: new Set<string>() };
      entry.labels.add(label.id);
      byFo.set(fo.gid, entry);
    }
  }
  return [...byFo.entries()]
    .filter(([, entry]) => entry.labels.size + wholeOrder >= 2)
    .map(([gid, entry]) => ({ id: gid, legacy_id: entry.legacyId }))
    .sort((a, b) => a.id.localeCompare(b.id));
}

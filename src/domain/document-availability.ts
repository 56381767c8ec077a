import type { DocumentMode } from './carrier-catalog';
import type { DocumentAvailability, DocumentFormat, DocumentSource, LabelKind, LabelStatus } from './labels';

export type { DocumentAvailability, DocumentFormat, DocumentSource } from './labels';

/** Spec "Limits": documents are available 60 days after label creation. */
export const DOCUMENT_RETENTION_MS = 60 * 24 * 60 * 60 * 1000;

export interface DocumentAvailabilityInput {
  kind: LabelKind;
  status: LabelStatus;
  createdAt: Date;
  carrier: { documentMode: DocumentMode; formats: readonly DocumentFormat[] };
  /** The stored copy, if any. */
  storedDocument: { notIsolated: boolean } | null;
  /** A redaction removed the stored document (decision 0708): not served, not rendered at the carrier either. */
  redacted?: boolean;
}

export interface DerivedDocument {
  availability: DocumentAvailability;
  source: DocumentSource | null;
  formats: DocumentFormat[];
  availableUntil: Date;
}

export function documentAvailableUntil(createdAt: Date): Date {
  return new Date(createdAt.getTime() + DOCUMENT_RETENTION_MS);
}

/**
 * The last instant (milliseconds) at which `deriveDocument` still answers for a label what it answers at `now`: age is
 * its only input that moves with time, and it changes the answer once, when the document expires. Infinity once
 * expired.
 */
export function documentStableThroughMs(createdAt: Date, now: Date): number {
  const until = documentAvailableUntil(createdAt).getTime();
  return now.getTime() > until ? Infinity : until;
}

/** Where the document comes from: the stored copy, else the carrier's render; null when neither exists. */
function sourceOf(input: DocumentAvailabilityInput): DocumentSource | null {
  if (input.storedDocument) return 'stored';
  if (input.carrier.documentMode === 'render') return 'carrier';
  // A carrier that stores copies at creation will have one once the PDF is stored.
  if (input.carrier.documentMode === 'stored') return 'stored';
  return null;
}

/**
 * Spec "document.availability". Precedence (docs/decisions/0101-document-availability-precedence.md): nothing to
 * serve at all (claim, collection, failed; excluded carrier) comes first, then age, then the label's own state.
 */
export function deriveDocument(input: DocumentAvailabilityInput, now: Date): DerivedDocument {
  const availableUntil = documentAvailableUntil(input.createdAt);
  const formats = [...input.carrier.formats];
  if (input.kind !== 'shipment' || input.status === 'failed') {
    return { availability: 'not_applicable', source: null, formats: [], availableUntil };
  }
  if (input.carrier.documentMode === 'excluded') {
    return { availability: 'carrier_excluded', source: null, formats: [], availableUntil };
  }
  const source = sourceOf(input);
  if (now.getTime() > availableUntil.getTime()) return { availability: 'expired', source, formats, availableUntil };
  if (input.status === 'pending') return { availability: 'pending', source, formats, availableUntil };
  if (input.redacted) return { availability: 'not_reissuable', source: null, formats, availableUntil };
  if (input.storedDocument) {
    return {
      availability: input.storedDocument.notIsolated ? 'not_isolated' : 'available',
      source,
      formats,
      availableUntil,
    };
  }
  switch (input.carrier.documentMode) {
    case 'render':
      return { availability: 'available', source, formats, availableUntil };
    case 'stored':
      return { availability: 'pending', source, formats, availableUntil };
    case 'stored_only':
      return { availability: 'not_reissuable', source, formats, availableUntil };
  }
}

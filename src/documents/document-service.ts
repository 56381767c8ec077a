import { carrierDefinition } from '../domain/carrier-catalog';
import { LabelDocument } from '../db/entities/label';
import type { Orm } from '../db/orm';
import { deriveDocument } from '../domain/document-availability';
import { DomainError } from '../domain/errors';
import type { DocumentFormat, DocumentSource, RequestedDocumentFormat } from '../domain/labels';
import { placeOnA4 } from '../pdf/a4';
import { looksLikePdf, PdfUnreadableError } from '../pdf/errors';
import { mergePdfs } from '../pdf/merge';
import { RenderFailedError, type LabelRenderer } from './ports';
import { documentRefusal, type DocumentSubject } from './refusals';
import { withRenderLease } from './render-leases';

/** What the document endpoints need of a label: its state and how the carrier reaches its shipment. */
export interface DocumentLabel extends DocumentSubject {
  storeId: string;
  orderName: string;
  carrierCode: string;
  carrierAccountId: string | null;
  carrierShipmentId: string | null;
  trackingNumber: string | null;
  /** Removed by a redaction (decision 0708); absent: not redacted. */
  documentRedacted?: boolean;
}

export interface ServableDocument {
  label: DocumentLabel;
  pdf: Uint8Array;
  source: DocumentSource;
  format: DocumentFormat;
}

export interface DocumentDeps {
  orm: Orm;
  renderer: LabelRenderer;
  now: () => Date;
}

const RETRY_AFTER_SECONDS = 5;

function unavailable(label: DocumentLabel, reason: 'storage_error' | 'render_error' | 'timeout' | 'carrier_error') {
  return new DomainError('carrier_unavailable', {
    message:
      reason === 'storage_error'
        ? 'The stored label file cannot be read right now; try again shortly.'
        : 'The carrier could not render the label now; try again shortly.',
    details: { reason, label_id: label.id, retry_after_seconds: RETRY_AFTER_SECONDS },
    retryAfterSeconds: RETRY_AFTER_SECONDS,
  });
}

/**
 * Whether a label's document can be served in the format, without fetching it: the same answer the single-label
 * endpoint gives, so merged requests fail with the failing label's own error. The format is checked first (`zpl` is
 * reserved; some carriers offer one format only): no availability answer can make an impossible format possible, so a
 * client must not be told to wait and retry for it.
 */
export function checkServable(
  label: DocumentLabel,
  storedDocument: { notIsolated: boolean } | null,
  format: RequestedDocumentFormat,
  now: Date,
): { source: DocumentSource; format: DocumentFormat } {
  const carrier = carrierDefinition(label.carrierCode);
  const offered = carrier.documentMode === 'excluded' ? null : carrier.formats;
  if (format === 'zpl' || (offered && !offered.includes(format))) {
    throw new DomainError('format_not_supported', {
      message:
        format === 'zpl' ? '`zpl` is reserved and not produced yet.' : `This label is not offered as \`${format}\`.`,
      details: { label_id: label.id, requested_format: format, supported: offered ?? [] },
    });
  }
  const derived = deriveDocument(
    {
      kind: label.kind,
      status: label.status,
      createdAt: label.createdAt,
      carrier: { documentMode: carrier.documentMode, formats: carrier.formats },
      storedDocument,
      redacted: label.documentRedacted ?? false,
    },
    now,
  );
  const refusal = documentRefusal(label, derived.availability, now);
  if (refusal) throw refusal;
  return { source: derived.source ?? 'stored', format };
}

/** How many documents a request serves from storage and renders at the carrier: what the rate limits count. */
export interface DocumentUsage {
  stored: number;
  rendered: number;
}

/**
 * Loads (or renders at the carrier) the PDFs of labels in the requested format, in the order given. Every label is
 * checked before anything is rendered, so a merged request fails with the first failing label's own error and renders
 * nothing; the stored copies come in one query. `meter` runs once every label is known servable and before anything is
 * served or rendered: a merged PDF counts one document per label (spec "Limits"), and a refusal there serves nothing.
 * A stored copy that cannot be read or parsed is a storage error (503 `carrier_unavailable`, reason
 * `storage_error`), never a 500.
 */
export async function loadDocuments(
  deps: DocumentDeps,
  labels: DocumentLabel[],
  format: RequestedDocumentFormat,
  options: { meter: (usage: DocumentUsage) => Promise<void> },
): Promise<ServableDocument[]> {
  const now = deps.now();
  const copies = await deps.orm.em
    .fork()
    .find(LabelDocument, { labelId: { $in: labels.map((l) => l.id) } }, { populate: ['pdf'] })
    .catch(() => {
      throw unavailable(labels[0]!, 'storage_error');
    });
  const storedOf = (label: DocumentLabel) => copies.find((d) => d.labelId === label.id) ?? null;
  const checked = labels.map((label) => ({
    label,
    stored: storedOf(label),
    ...checkServable(label, storedOf(label), format, now),
  }));
  const rendered = checked.filter((c) => !c.stored).length;
  await options.meter({ stored: checked.length - rendered, rendered });
  const documents: ServableDocument[] = [];
  for (const { label, stored, source, format: servedFormat } of checked) {
    if (stored && !looksLikePdf(stored.pdf)) throw unavailable(label, 'storage_error');
    let pdf: Uint8Array = stored ? stored.pdf : await renderAtCarrier(deps, label, servedFormat, now);
    if (servedFormat === 'a4') {
      pdf = await placeOnA4(pdf).catch((error: unknown) => {
        if (error instanceof PdfUnreadableError) throw unavailable(label, stored ? 'storage_error' : 'render_error');
        throw error;
      });
    }
    documents.push({ label, pdf, source, format: servedFormat });
  }
  return documents;
}

/** One PDF for the documents, in their order: the single file as it is, or all of them merged. */
export async function combineDocuments(documents: ServableDocument[]): Promise<Uint8Array> {
  if (documents.length === 1) return documents[0]!.pdf;
  return mergePdfs(documents.map((d) => d.pdf)).catch((error: unknown) => {
    if (!(error instanceof PdfUnreadableError)) throw error;
    const failed = documents[error.index]!;
    throw unavailable(failed.label, failed.source === 'stored' ? 'storage_error' : 'render_error');
  });
}

async function renderAtCarrier(
  deps: DocumentDeps,
  label: DocumentLabel,
  format: DocumentFormat,
  now: Date,
): Promise<Uint8Array> {
  return withRenderLease(deps.orm, { storeId: label.storeId, labelId: label.id, format, now }, async () => {
    try {
      const pdf = await deps.renderer.renderLabel({
        storeId: label.storeId,
        carrierCode: label.carrierCode,
        carrierAccountId: label.carrierAccountId,
        carrierShipmentId: label.carrierShipmentId,
        trackingNumber: label.trackingNumber,
      });
      if (!looksLikePdf(pdf))
        throw new RenderFailedError('render_error', 'the carrier returned something else than a PDF');
      return pdf;
    } catch (error) {
      throw unavailable(label, error instanceof RenderFailedError ? error.reason : 'carrier_error');
    }
  });
}

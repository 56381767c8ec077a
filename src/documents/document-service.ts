import { carrierDefinition } from '../carriers/catalog';
import { Label, LabelDocument } from '../db/entities/label';
import type { Orm } from '../db/orm';
import { deriveDocument } from '../domain/document-availability';
import type { DocumentFormat, DocumentSource, RequestedDocumentFormat } from '../domain/labels';
import { ApiError } from '../http/api-error';
import { placeOnA4 } from '../pdf/a4';
import { RenderFailedError, type LabelRenderer } from './ports';
import { documentRefusal } from './refusals';
import { withRenderLease } from './render-leases';

export type RequestedFormat = RequestedDocumentFormat;

export interface ServableDocument {
  label: Label;
  pdf: Uint8Array;
  source: DocumentSource;
  format: DocumentFormat;
}

export interface DocumentDeps {
  orm: Orm;
  renderer: LabelRenderer;
  now: () => Date;
}

/**
 * Checks whether a label's document can be served in the format, without fetching it: the same answer the
 * single-label endpoint gives, so merged requests fail with the failing label's own error.
 */
export function checkServable(
  label: Label,
  storedDocument: { notIsolated: boolean } | null,
  format: RequestedFormat,
  now: Date,
) {
  const carrier = carrierDefinition(label.carrierCode);
  const derived = deriveDocument(
    {
      kind: label.kind,
      status: label.status,
      createdAt: label.createdAt,
      carrier: { documentMode: carrier.documentMode, formats: carrier.formats },
      storedDocument,
    },
    now,
  );
  const refusal = documentRefusal(
    {
      id: label.id,
      status: label.status,
      kind: label.kind,
      source: label.source,
      labelCreationId: label.labelCreationId,
      createdAt: label.createdAt,
    },
    derived.availability,
    now,
  );
  if (refusal) throw refusal;
  if (format === 'zpl' || !derived.formats.includes(format)) {
    throw new ApiError('format_not_supported', {
      message:
        format === 'zpl' ? '`zpl` is reserved and not produced yet.' : `This label is not offered as \`${format}\`.`,
      details: { label_id: label.id, requested_format: format, supported: derived.formats },
    });
  }
  return { source: derived.source ?? 'stored', format: format };
}

/**
 * Loads (or renders at the carrier) the PDFs of labels in the requested format, in the order given. Every label is
 * checked before anything is rendered, so a merged request fails with the first failing label's own error and renders
 * nothing; the stored copies come in one query.
 */
export async function loadDocuments(
  deps: DocumentDeps,
  labels: Label[],
  format: RequestedFormat,
): Promise<ServableDocument[]> {
  const now = deps.now();
  const copies = await deps.orm.em
    .fork()
    .find(LabelDocument, { labelId: { $in: labels.map((l) => l.id) } }, { populate: ['pdf'] });
  const storedOf = (label: Label) => copies.find((d) => d.labelId === label.id) ?? null;
  const checked = labels.map((label) => ({
    label,
    stored: storedOf(label),
    ...checkServable(label, storedOf(label), format, now),
  }));
  const documents: ServableDocument[] = [];
  for (const { label, stored, source, format: servedFormat } of checked) {
    let pdf: Uint8Array = stored ? stored.pdf : await renderAtCarrier(deps, label, servedFormat, now);
    if (servedFormat === 'a4') pdf = await placeOnA4(pdf);
    documents.push({ label, pdf, source, format: servedFormat });
  }
  return documents;
}

async function renderAtCarrier(
  deps: DocumentDeps,
  label: Label,
  format: DocumentFormat,
  now: Date,
): Promise<Uint8Array> {
  return withRenderLease(deps.orm, { storeId: label.storeId, labelId: label.id, format, now }, async () => {
    try {
      return await deps.renderer.renderLabel({
        storeId: label.storeId,
        carrierCode: label.carrierCode,
        carrierAccountId: label.carrierAccountId,
        carrierShipmentId: label.carrierShipmentId,
        trackingNumber: label.trackingNumber,
      });
    } catch (error) {
      const reason = error instanceof RenderFailedError ? error.reason : 'carrier_error';
      throw new ApiError('carrier_unavailable', {
        message: 'The carrier could not render the label now; try again shortly.',
        details: { reason, label_id: label.id, retry_after_seconds: 5 },
        headers: { 'Retry-After': '5' },
      });
    }
  });
}

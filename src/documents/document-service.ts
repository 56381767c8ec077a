import type { EntityManager } from '@mikro-orm/core';
import { carrierDefinition } from '../carriers/catalog';
import { Label, LabelDocument } from '../db/entities/label';
import type { Orm } from '../db/orm';
import { deriveDocument, type DocumentFormat } from '../domain/document-availability';
import { ApiError } from '../http/api-error';
import { placeOnA4 } from '../pdf/a4';
import { RenderFailedError, type LabelRenderer } from './ports';
import { documentRefusal } from './refusals';
import { withRenderLease } from './render-leases';

export const REQUESTABLE_FORMATS = ['label', 'a4', 'zpl'] as const;
export type RequestedFormat = (typeof REQUESTABLE_FORMATS)[number];

export interface ServableDocument {
  label: Label;
  pdf: Uint8Array;
  source: 'stored' | 'carrier';
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

async function storedCopy(em: EntityManager, labelId: string): Promise<{ notIsolated: boolean; pdf: Buffer } | null> {
  const document = await em.findOne(LabelDocument, { labelId }, { populate: ['pdf'] });
  return document ? { notIsolated: document.notIsolated, pdf: document.pdf } : null;
}

/** Loads (or renders at the carrier) one label's PDF in the requested format, or throws the spec's error. */
export async function loadDocument(
  deps: DocumentDeps,
  label: Label,
  format: RequestedFormat,
): Promise<ServableDocument> {
  const em = deps.orm.em.fork();
  const now = deps.now();
  const stored = await storedCopy(em, label.id);
  const servable = checkServable(label, stored, format, now);
  let pdf: Uint8Array;
  if (stored) {
    pdf = stored.pdf;
  } else {
    pdf = await withRenderLease(
      deps.orm,
      { storeId: label.storeId, labelId: label.id, format: servable.format, now },
      async () => {
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
      },
    );
  }
  if (servable.format === 'a4') pdf = await placeOnA4(pdf);
  return { label, pdf, source: servable.source, format: servable.format };
}

import type { LabelKind, LabelSource, LabelStatus } from '../domain/labels';
import type { DocumentAvailability } from '../domain/document-availability';
import { DomainError } from '../domain/errors';

export interface DocumentSubject {
  id: string;
  status: LabelStatus;
  kind: LabelKind;
  source: LabelSource | null;
  labelCreationId: string | null;
  createdAt: Date;
}

const TEN_MINUTES = 10 * 60_000;

/**
 * The document endpoints' answer for a label that cannot be served now (spec "`document.availability`" and the
 * 409/410/422 rows of "Errors"); null when it is available.
 */
export function documentRefusal(
  label: DocumentSubject,
  availability: DocumentAvailability,
  now: Date,
): DomainError | null {
  const ids = { label_id: label.id, label_creation_id: label.labelCreationId };
  switch (availability) {
    case 'available':
      return null;
    case 'pending':
      if (label.status === 'pending') {
        // API-created labels finish within seconds; admin and automation batches take longer.
        const retryAfter = label.source === 'api' ? 2 : 30;
        return new DomainError('label_pending', { details: ids, retryAfterSeconds: retryAfter });
      }
      return new DomainError('document_pending', {
        details: ids,
        retryAfterSeconds: now.getTime() - label.createdAt.getTime() < TEN_MINUTES ? 2 : 60,
      });
    case 'expired':
      return new DomainError('document_expired', { details: { label_id: label.id } });
    case 'not_reissuable':
      return new DomainError('label_not_reissuable', { details: { label_id: label.id } });
    case 'not_applicable':
      return new DomainError('document_unavailable', {
        message:
          label.status === 'failed'
            ? 'The label failed; it has no document.'
            : 'Claims and pickup orders have no document.',
        details: {
          label_id: label.id,
          reason: label.status === 'failed' && label.kind === 'shipment' ? 'label_failed' : 'no_label',
        },
      });
    case 'not_isolated':
      return new DomainError('document_unavailable', {
        message: 'The stored file may contain other labels of its batch; print it in the admin.',
        details: { label_id: label.id, reason: 'not_isolated' },
      });
    case 'carrier_excluded':
      return new DomainError('document_unavailable', {
        message: "This carrier's labels are printed in the admin only.",
        details: { label_id: label.id, reason: 'carrier_excluded' },
      });
  }
}

/** `attachment; filename="label-1001-lbl_x.pdf"`: prefix, order name without `#`, label ID; ASCII only. */
export function documentFileName(prefix: string, orderName: string | null, labelId: string): string {
  const order = (orderName ?? '')
    .replace(/^#/, '')
    .replace(/[^A-Za-z0-9_-]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return [prefix, order, labelId].filter(Boolean).join('-') + '.pdf';
}

export function contentDisposition(fileName: string): string {
  return `attachment; filename="${fileName}"`;
}

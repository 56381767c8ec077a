import type { CreationOutcome } from '../../creation/live-creation';
import type { CreationRow } from '../../creation/records';
import { LabelDocument } from '../../db/entities/label';
import type { Orm } from '../../db/orm';
import { ApiError } from '../../http/api-error';
import type { ErrorCode } from '../../domain/error-catalog';
import type { AppContext } from '../../http/state';
import type { LabelCreationWire } from '../label-creations/schemas';
import { creationWire } from '../label-creations/creation-wire';

export interface CreationAnswerOptions {
  /** Base of absolute URLs, without `/v1`. */
  baseUrl: string;
  now: Date;
  /** `include: ["document"]`: the creation's PDFs with the answer, from storage. */
  includeDocuments: boolean;
}

/**
 * `include: ["document"]` (docs/decisions/0013-include-document.md): the stored PDF of each label the creation made,
 * base64 in `documents`; labels whose PDF is not stored (yet) are left out and keep `document.availability`.
 */
async function withDocuments(orm: Orm, wire: LabelCreationWire, row: CreationRow): Promise<LabelCreationWire> {
  if (!row.created || row.label_ids.length === 0) return { ...wire, documents: [] };
  const copies = await orm.em.fork().find(LabelDocument, { labelId: { $in: row.label_ids } }, { populate: ['pdf'] });
  return {
    ...wire,
    documents: row.label_ids.flatMap((labelId) => {
      const copy = copies.find((c) => c.labelId === labelId);
      return copy
        ? [
            {
              label_id: labelId,
              format: 'label' as const,
              content_type: 'application/pdf' as const,
              data_base64: Buffer.from(copy.pdf).toString('base64'),
            },
          ]
        : [];
    }),
  };
}

/**
 * The answer of `POST /labels` for a creation's outcome (spec "Outcomes" and "Idempotency of POST /labels"): 201 new
 * label, 200 existing labels, 202 while processing or needing attention, the creation's error when it failed
 * (with `details.label_creation_id`), 409 `label_exists` (`shipment_outside_globe`) for an abandoned one.
 */
export async function renderCreation(
  ctx: AppContext,
  orm: Orm,
  outcome: CreationOutcome,
  options: CreationAnswerOptions,
): Promise<void> {
  const { row } = outcome;
  const creationUrl = `${options.baseUrl}/v1/label-creations/${row.id}`;
  if (row.status === 'failed') {
    const error = row.error!;
    throw new ApiError(error.code as ErrorCode, {
      message: error.message,
      details: { ...error.details, label_creation_id: error.details?.label_creation_id ?? row.id },
      ...(error.retryAfterSeconds !== undefined ? { headers: { 'Retry-After': String(error.retryAfterSeconds) } } : {}),
    });
  }
  if (row.status === 'abandoned') {
    throw new ApiError('label_exists', {
      message:
        'This key belongs to an abandoned creation: its shipment may exist at the carrier. A new label needs a new key, on_existing: create_new and this lcr_ ID in replaces.',
      details: { reason: 'shipment_outside_globe', label_creation_id: row.id, label_creation_ids: [row.id] },
    });
  }
  ctx.set('Preference-Applied', `wait=${outcome.waitSeconds}`);
  if (row.status === 'processing' || row.status === 'needs_attention') {
    ctx.status = 202;
    ctx.set('Location', creationUrl);
    if (row.status === 'processing') ctx.set('Retry-After', '2');
    ctx.body = await creationWire(orm, row, options);
    return;
  }
  ctx.status = row.created ? 201 : 200;
  if (row.created && row.label_ids[0]) ctx.set('Location', `${options.baseUrl}/v1/labels/${row.label_ids[0]}`);
  ctx.set('Content-Location', creationUrl);
  if (outcome.replayed) ctx.set('Idempotency-Replayed', 'true');
  const wire = await creationWire(orm, row, options);
  ctx.body = options.includeDocuments ? await withDocuments(orm, wire, row) : wire;
}

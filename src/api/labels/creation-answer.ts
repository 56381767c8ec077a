import type { CreationOutcome } from '../../creation/live-creation';
import { LabelDocument } from '../../db/entities/label';
import { looksLikePdf } from '../../pdf/errors';
import type { Orm } from '../../db/orm';
import { ApiError } from '../../http/api-error';
import type { ErrorCode } from '../../domain/error-catalog';
import type { AppContext } from '../../http/state';
import type { LabelCreationWire } from '../label-creations/schemas';
import { creationWire } from '../label-creations/creation-wire';
import type { LabelWire } from './schemas';

export interface CreationAnswerOptions {
  /** Base of absolute URLs, without `/v1`. */
  baseUrl: string;
  now: Date;
  /** `include: ["document"]`: the answer's PDFs with it, from storage. */
  includeDocuments: boolean;
}

type CreationDocument = NonNullable<LabelCreationWire['documents']>[number];

/** The labels whose PDF is served with the answer: downloadable now from storage, in the label-printer format. */
const fromStorage = (label: LabelWire) =>
  label.document.availability === 'available' &&
  label.document.source === 'stored' &&
  label.document.formats.includes('label');

/**
 * `include: ["document"]` (docs/decisions/0121-documents-with-creations.md): the stored PDF of each label of a
 * succeeded creation that can be downloaded from storage now, base64 in `documents`: a 201's new label and a 200's
 * existing labels alike, again on a replay ("PDF served again from storage"). They are metered as documents, one per
 * PDF (spec "Limits"); a meter that refuses serves none and names its bucket in `X-RateLimit-*`. A label left out
 * keeps its `document` object: it is downloaded from the document endpoint.
 */
async function withDocuments(ctx: AppContext, orm: Orm, wire: LabelCreationWire): Promise<LabelCreationWire> {
  const servable = wire.labels.filter(fromStorage);
  if (servable.length === 0) return { ...wire, documents: [] };
  const copies = await orm.em
    .fork()
    .find(LabelDocument, { labelId: { $in: servable.map((label) => label.id) } }, { populate: ['pdf'] });
  const pdfs = servable.flatMap((label) => {
    const copy = copies.find((c) => c.labelId === label.id);
    return copy && looksLikePdf(copy.pdf) ? [{ labelId: label.id, pdf: Buffer.from(copy.pdf) }] : [];
  });
  const metered =
    pdfs.length > 0 && (await ctx.state.limits!.tryCharge([{ limitClass: 'document', units: pdfs.length }]));
  if (!metered) return { ...wire, documents: [] };
  // The request log's label count and size, as for a document download (spec "Authentication" 5).
  ctx.state.logFields = { labelCount: pdfs.length, byteSize: pdfs.reduce((sum, { pdf }) => sum + pdf.byteLength, 0) };
  return {
    ...wire,
    documents: pdfs.map(({ labelId, pdf }): CreationDocument => ({
      label_id: labelId,
      format: 'label',
      content_type: 'application/pdf',
      data_base64: pdf.toString('base64'),
    })),
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
  ctx.body = options.includeDocuments ? await withDocuments(ctx, orm, wire) : wire;
}

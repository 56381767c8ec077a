import { Label, LabelFulfillmentOrder } from '../../db/entities/label';
import { findLabel } from '../../db/labels-query';
import {
  loadDocuments,
  type RequestedFormat,
  type DocumentDeps,
  type ServableDocument,
} from '../../documents/document-service';
import { contentDisposition, documentFileName } from '../../documents/refusals';
import { parseOrderId } from '../../domain/platform-ids';
import { ApiError } from '../../http/api-error';
import { defineRoute } from '../../http/route';
import type { AppContext } from '../../http/state';
import { hasPrefix } from '../../ids';
import { mergePdfs } from '../../pdf/merge';
import { labelParamsSchema } from '../labels/schemas';
import { documentQuerySchema, mergedDocumentQuerySchema, orderParamsSchema, pdfResponse } from './schemas';

const DOCUMENT_ERRORS = [
  'label_pending',
  'document_pending',
  'document_expired',
  'label_not_reissuable',
  'document_unavailable',
  'format_not_supported',
  'render_in_progress',
  'carrier_unavailable',
] as const;

function sendPdf(ctx: AppContext, pdf: Uint8Array, documents: ServableDocument[], fileName: string): void {
  const sources = new Set(documents.map((d) => d.source));
  ctx.status = 200;
  ctx.type = 'application/pdf';
  ctx.set('Content-Disposition', contentDisposition(fileName));
  // A merged file mixing stored and rendered labels says `carrier`: part of it was rendered now.
  ctx.set('Service-Label-Source', sources.has('carrier') ? 'carrier' : 'stored');
  ctx.set('Service-Label-Format', documents[0]!.format);
  ctx.body = Buffer.from(pdf);
  ctx.state.logFields = { labelCount: documents.length, byteSize: pdf.byteLength };
}

/** Loads every label (all-or-nothing) and answers one PDF named after the order when there is one. */
async function sendLabels(
  ctx: AppContext,
  deps: DocumentDeps,
  labels: Label[],
  format: RequestedFormat,
  orderName: string | null,
) {
  const documents = await loadDocuments(deps, labels, format);
  const pdf = documents.length === 1 ? documents[0]!.pdf : await mergePdfs(documents.map((d) => d.pdf));
  const name = documentFileName('labels', orderName, labels.length === 1 ? labels[0]!.id : `${labels.length}-labels`);
  sendPdf(ctx, pdf, documents, name);
}

export function createDocumentRoutes(deps: DocumentDeps) {
  return [
    defineRoute({
      method: 'GET',
      path: '/labels/{label_id}/document',
      operationId: 'getLabelDocument',
      summary: 'The label PDF',
      description: 'Success is `application/pdf`; errors are the JSON error body, so check the status first.',
      tag: 'Documents',
      access: { kind: 'key', scope: 'labels:print' },
      params: labelParamsSchema,
      query: documentQuerySchema,
      responses: { 200: pdfResponse },
      errors: [...DOCUMENT_ERRORS],
      handler: async (ctx, { params, query }) => {
        const storeId = ctx.state.auth!.storeId;
        if (!hasPrefix('label', params.label_id)) throw new ApiError('not_found');
        const label = await findLabel(deps.orm.em.fork(), storeId, params.label_id);
        if (!label) throw new ApiError('not_found');
        const [document] = await loadDocuments(deps, [label], query.format);
        sendPdf(ctx, document!.pdf, [document!], documentFileName('label', label.orderName, label.id));
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/orders/{order_id}/label-document',
      operationId: 'getOrderLabelDocument',
      summary: "The order's current outbound labels as one PDF, oldest first",
      description:
        'Return labels are never included. Two current labels sharing a fulfillment order: 409 `ambiguous_current_set`.',
      tag: 'Documents',
      access: { kind: 'key', scope: 'labels:print' },
      params: orderParamsSchema,
      query: documentQuerySchema,
      responses: { 200: pdfResponse },
      errors: [...DOCUMENT_ERRORS, 'ambiguous_current_set'],
      handler: async (ctx, { params, query }) => {
        const storeId = ctx.state.auth!.storeId;
        const order = parseOrderId(params.order_id);
        if (!order) throw new ApiError('not_found');
        const em = deps.orm.em.fork();
        const labels = await em.find(
          Label,
          { storeId, orderGid: order.gid, direction: 'outbound', current: true },
          { orderBy: { createdAt: 'asc', id: 'asc' } },
        );
        if (labels.length === 0) {
          throw new ApiError('not_found', {
            message: 'The order has no current outbound label.',
            details: { order_id: order.gid },
          });
        }
        if (labels.some((l) => l.currentSet === 'ambiguous')) {
          throw new ApiError('ambiguous_current_set', {
            details: {
              order_id: order.gid,
              current_label_ids: labels.map((l) => l.id),
              conflicting_fulfillment_orders: await conflictingFulfillmentOrders(deps, labels),
            },
          });
        }
        await sendLabels(ctx, deps, labels, query.format, labels[0]!.orderName);
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/label-documents',
      operationId: 'getMergedLabelDocuments',
      summary: 'Up to 50 labels as one PDF, in the order given',
      description:
        'All-or-nothing: one expired, pending or unavailable label fails the request with that label’s error. Any unknown ID: 404.',
      tag: 'Documents',
      access: { kind: 'key', scope: 'labels:print' },
      query: mergedDocumentQuerySchema,
      responses: { 200: pdfResponse },
      errors: [...DOCUMENT_ERRORS],
      handler: async (ctx, { query }) => {
        const storeId = ctx.state.auth!.storeId;
        const ids = query.label_ids;
        const found = ids.every((id) => hasPrefix('label', id))
          ? await deps.orm.em.fork().find(Label, { storeId, id: { $in: ids } })
          : [];
        const byId = new Map(found.map((l) => [l.id, l]));
        const missing = ids.find((id) => !byId.has(id));
        if (missing)
          throw new ApiError('not_found', {
            message: `No label ${JSON.stringify(missing.slice(0, 40))} in this store.`,
          });
        const labels = ids.map((id) => byId.get(id)!);
        await sendLabels(ctx, deps, labels, query.format, labels.length === 1 ? labels[0]!.orderName : null);
      },
    }),
  ];
}

/** Fulfillment orders covered by two or more current labels; a label without coverage covers them all. */
async function conflictingFulfillmentOrders(deps: DocumentDeps, labels: Label[]) {
  const coverage = await deps.orm.em.fork().find(LabelFulfillmentOrder, { labelId: { $in: labels.map((l) => l.id) } });
  const byFo = new Map<string, { legacyId: string; labels: Set<string> }>();
  for (const row of coverage) {
    const entry = byFo.get(row.fulfillmentOrderGid) ?? {
      legacyId: row.fulfillmentOrderLegacyId,
      labels: new Set<string>(),
    };
    entry.labels.add(row.labelId);
    byFo.set(row.fulfillmentOrderGid, entry);
  }
  const wholeOrder = labels.filter((l) => !l.coverageKnown || !coverage.some((c) => c.labelId === l.id)).length;
  return [...byFo.entries()]
    .filter(([, entry]) => entry.labels.size + wholeOrder >= 2)
    .map(([gid, entry]) => ({ id: gid, legacy_id: entry.legacyId }))
    .sort((a, b) => a.id.localeCompare(b.id));
}

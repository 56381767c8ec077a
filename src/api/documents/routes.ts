import { readCurrentOutboundViews, readLabelView, readLabelViews, type LabelView } from '../../db/labels-query';
import {
  combineDocuments,
  loadDocuments,
  type DocumentDeps,
  type DocumentUsage,
  type ServableDocument,
} from '../../documents/document-service';
import { contentDisposition, documentFileName } from '../../documents/refusals';
import { conflictingFulfillmentOrders } from '../../domain/current-labels';
import type { RequestedDocumentFormat } from '../../domain/labels';
import { parseOrderId } from '../../domain/platform-ids';
import { ApiError } from '../../http/api-error';
import { defineRoute } from '../../http/route';
import type { AppContext } from '../../http/state';
import { hasPrefix } from '../../ids';
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

/**
 * Documents are charged once the service knows what it serves (spec "Limits"): stored copies one `document` unit per
 * label, renders at the carrier one `render` unit each. Refusals before that (404, pending, expired) serve nothing.
 */
const DOCUMENT_LIMITS = { classes: ['document', 'render'], chargedBy: 'handler' } as const;

function meterOf(ctx: AppContext) {
  return async ({ stored, rendered }: DocumentUsage) =>
    ctx.state.limits!.charge([
      { limitClass: 'document', units: stored },
      { limitClass: 'render', units: rendered },
    ]);
}

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

/** Loads every label (all-or-nothing) and answers one PDF, named after the order when there is one. */
async function sendLabels(
  ctx: AppContext,
  deps: DocumentDeps,
  views: LabelView[],
  format: RequestedDocumentFormat,
  orderName: string | null,
) {
  const labels = views.map((v) => v.label);
  const documents = await loadDocuments(deps, labels, format, { meter: meterOf(ctx) });
  const pdf = await combineDocuments(documents);
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
      limits: DOCUMENT_LIMITS,
      params: labelParamsSchema,
      query: documentQuerySchema,
      responses: { 200: pdfResponse },
      errors: [...DOCUMENT_ERRORS],
      handler: async (ctx, { params, query }) => {
        const storeId = ctx.state.auth!.storeId;
        if (!hasPrefix('label', params.label_id)) throw new ApiError('not_found');
        const view = await readLabelView(deps.orm.em.fork(), storeId, params.label_id);
        if (!view) throw new ApiError('not_found');
        const [document] = await loadDocuments(deps, [view.label], query.format, { meter: meterOf(ctx) });
        sendPdf(ctx, document!.pdf, [document!], documentFileName('label', view.label.orderName, view.label.id));
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
      limits: DOCUMENT_LIMITS,
      params: orderParamsSchema,
      query: documentQuerySchema,
      responses: { 200: pdfResponse },
      errors: [...DOCUMENT_ERRORS, 'ambiguous_current_set'],
      handler: async (ctx, { params, query }) => {
        const storeId = ctx.state.auth!.storeId;
        const order = parseOrderId(params.order_id);
        if (!order) throw new ApiError('not_found');
        const views = await readCurrentOutboundViews(deps.orm.em.fork(), storeId, order.gid);
        if (views.length === 0) {
          throw new ApiError('not_found', {
            message: 'The order has no current outbound label.',
            details: { order_id: order.gid },
          });
        }
        if (views.some((v) => v.label.currentSet === 'ambiguous')) {
          throw new ApiError('ambiguous_current_set', {
            details: {
              order_id: order.gid,
              current_label_ids: views.map((v) => v.label.id),
              conflicting_fulfillment_orders: conflictingFulfillmentOrders(
                views.map((v) => ({
                  id: v.label.id,
                  coverageKnown: v.label.coverageKnown,
                  fulfillmentOrders: v.fulfillmentOrders,
                })),
              ),
            },
          });
        }
        await sendLabels(ctx, deps, views, query.format, views[0]!.label.orderName);
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
      limits: DOCUMENT_LIMITS,
      query: mergedDocumentQuerySchema,
      responses: { 200: pdfResponse },
      errors: [...DOCUMENT_ERRORS],
      handler: async (ctx, { query }) => {
        const storeId = ctx.state.auth!.storeId;
        const ids = query.label_ids;
        const views = ids.every((id) => hasPrefix('label', id))
          ? await readLabelViews(deps.orm.em.fork(), storeId, ids)
          : [];
        const missing = ids.find((id) => !views.some((v) => v.label.id === id));
        if (missing)
          throw new ApiError('not_found', {
            message: `No label ${JSON.stringify(missing.slice(0, 40))} in this store.`,
          });
        await sendLabels(ctx, deps, views, query.format, views.length === 1 ? views[0]!.label.orderName : null);
      },
    }),
  ];
}

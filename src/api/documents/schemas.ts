import { z } from 'zod';
import { ORDER_ID_MAX_LENGTH, ORDER_ID_PATTERN } from '../../domain/platform-ids';
import { commaSeparated, listMaxLength } from '../../http/query-params';
import { idMaxLength } from '../../ids';
import type { ResponseSpec } from '../../http/route';
import { DOCUMENT_FORMATS, DOCUMENT_SOURCES, REQUESTABLE_DOCUMENT_FORMATS } from '../../domain/labels';

export const MERGED_LABELS_MAX = 50;

export const formatQuery = z
  .enum(REQUESTABLE_DOCUMENT_FORMATS)
  .default('label')
  .describe(
    '`label`: the carrier’s label-printer size, never A4; `a4`: the label placed on an A4 page; `zpl` is reserved',
  );

export const documentQuerySchema = z.object({ format: formatQuery }).strict();

export const mergedDocumentQuerySchema = z
  .object({
    label_ids: commaSeparated(
      z
        .string()
        .max(listMaxLength(MERGED_LABELS_MAX, idMaxLength('label')))
        .transform((value) => value.split(',').map((id) => id.trim()))
        .pipe(
          z
            .array(z.string().min(1))
            .min(1)
            .max(MERGED_LABELS_MAX)
            .refine((ids) => new Set(ids).size === ids.length, { message: 'each label ID may appear once' }),
        )
        .describe(`Up to ${MERGED_LABELS_MAX} comma-separated \`lbl_\` IDs, printed in the order given`),
    ),
    format: formatQuery,
  })
  .strict();

export const orderParamsSchema = z.object({
  order_id: z
    .string()
    .max(ORDER_ID_MAX_LENGTH)
    .regex(new RegExp(ORDER_ID_PATTERN))
    .describe('Numeric order ID or GID (a malformed one answers 404 like an unknown one)'),
});

export const pdfResponse: ResponseSpec = {
  description: 'The PDF',
  contentType: 'application/pdf',
  headers: {
    'Content-Disposition': {
      description: 'attachment; file name from a prefix, the order name and the label ID, ending in .pdf',
      required: true,
    },
    'Service-Label-Source': {
      description: '`stored` (copy saved at creation) or `carrier` (rendered now)',
      required: true,
      schema: z.enum(DOCUMENT_SOURCES),
    },
    'Service-Label-Format': {
      description: 'Print format used: `label` or `a4`',
      required: true,
      schema: z.enum(DOCUMENT_FORMATS),
    },
  },
};

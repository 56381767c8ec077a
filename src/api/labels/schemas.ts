import { z } from 'zod';
import {
  COD_SOURCES,
  CURRENT_SET_VALUES,
  DOCUMENT_AVAILABILITIES,
  DOCUMENT_FORMATS,
  DOCUMENT_SOURCES,
  LABEL_DIRECTIONS,
  LABEL_FAILURE_REASONS,
  LABEL_KINDS,
  LABEL_SOURCES,
  LABEL_STATUSES,
} from '../../domain/labels';
import { ORDER_ID_MAX_LENGTH, orderNameExact, orderNameHint, parseOrderId } from '../../domain/platform-ids';
import {
  booleanParam,
  commaSeparated,
  idPathParam,
  instantParam,
  limitParam,
  listMaxLength,
} from '../../http/query-params';

const timestamp = z.string().describe('ISO 8601 UTC, second precision');
const moneyAmount = z
  .string()
  .regex(/^\d+\.\d{2}$/)
  .describe('Decimal string with two places');
const platformRef = z.object({
  id: z.string().describe('Global ID (GID)'),
  legacy_id: z.string().describe('Numeric platform ID'),
});

export const labelDocumentSchema = z
  .object({
    availability: z.enum(DOCUMENT_AVAILABILITIES),
    source: z.enum(DOCUMENT_SOURCES).nullable().describe('Where the PDF comes from; null when there is none'),
    formats: z.array(z.enum(DOCUMENT_FORMATS)),
    available_until: timestamp.describe('60 days after label creation'),
    url: z.string().describe('The document endpoint of the label'),
  })
  .describe('Label document object');

export const labelSchema = z
  .object({
    id: z.string().describe('`lbl_...`'),
    order: platformRef.extend({ name: z.string() }),
    fulfillment_orders: z
      .array(platformRef)
      .describe('Fulfillment orders the label covers; empty for whole-order labels'),
    direction: z.enum(LABEL_DIRECTIONS),
    kind: z.enum(LABEL_KINDS),
    status: z.enum(LABEL_STATUSES),
    failure_reason: z.enum(LABEL_FAILURE_REASONS).nullable(),
    current: z.boolean(),
    supersedes: z.array(z.string()),
    superseded_by: z.array(z.string()).describe('Newer labels that replaced this one'),
    current_set: z.enum(CURRENT_SET_VALUES).describe('Same value on every label of the order and direction'),
    carrier: z.object({ code: z.string(), name: z.string(), account_id: z.string().nullable().describe('`ca_...`') }),
    service: z
      .object({ code: z.string(), name: z.string() })
      .nullable()
      .describe('Only on labels created through the API'),
    source: z.enum(LABEL_SOURCES).nullable(),
    cod: z.object({ amount: moneyAmount, currency: z.string(), source: z.enum(COD_SOURCES) }).nullable(),
    declared_value: z.object({ amount: moneyAmount, currency: z.string() }).nullable(),
    tracking_number: z.string().nullable(),
    tracking_url: z.string().nullable(),
    parcels: z.array(
      z.object({
        tracking_number: z.string().nullable(),
        tracking_url: z.string().nullable(),
        weight_grams: z.number().int().nullable(),
      }),
    ),
    batch_id: z.string().nullable(),
    document: labelDocumentSchema,
    extras: z
      .record(z.string(), z.unknown())
      .describe('Carrier-specific values (carrier A: `consign_password`); `{}` for other carriers'),
    created_at: timestamp.describe('Insertion time; never changes'),
    updated_at: timestamp.nullable().describe('Last state change; null on labels from before the field existed'),
  })
  .describe('A label: one shipment booked at a carrier');

export type LabelWire = z.input<typeof labelSchema>;

export const labelListSchema = z.object({
  data: z.array(labelSchema),
  next_cursor: z.string().nullable().describe('Pass unchanged as `cursor`; always set in the sync feed'),
  has_more: z.boolean(),
});

export const labelParamsSchema = z.object({ label_id: idPathParam('label') });

/** Spec "Limits": `GET /labels` limit 1 to 250, default 50; `order_id` up to 50 values. */
export const LIST_LIMIT_MAX = 250;
export const LIST_LIMIT_DEFAULT = 50;
export const ORDER_ID_FILTER_MAX = 50;

const text = (description: string) => z.string().min(1).max(255).describe(description);

export const listLabelsQuerySchema = z
  .object({
    order_id: commaSeparated(
      z
        .string()
        .max(listMaxLength(ORDER_ID_FILTER_MAX, ORDER_ID_MAX_LENGTH))
        .describe(`Numeric order ID or GID; up to ${ORDER_ID_FILTER_MAX} comma-separated values`)
        .transform((value, ctx) => {
          const parts = value.split(',').map((p) => p.trim());
          if (parts.length > ORDER_ID_FILTER_MAX) {
            ctx.addIssue({
              code: 'too_big',
              origin: 'array',
              maximum: ORDER_ID_FILTER_MAX,
              inclusive: true,
              input: value,
              message: `at most ${ORDER_ID_FILTER_MAX} order IDs`,
            });
            return z.NEVER;
          }
          const gids: string[] = [];
          for (const part of parts) {
            const id = parseOrderId(part);
            if (!id) {
              ctx.addIssue({
                code: 'custom',
                message: `\`order_id\`: ${JSON.stringify(part.slice(0, 100))} is neither a numeric order ID nor an order GID${orderNameHint(part)}`,
                input: value,
              });
              return z.NEVER;
            }
            gids.push(id.gid);
          }
          return [...new Set(gids)].sort();
        })
        .optional(),
    ),
    order_name: text('Exact order name (case counts); leading `#` optional').transform(orderNameExact).optional(),
    batch_id: text('Batch the label was created in').optional(),
    tracking_number: text('Exact tracking number').optional(),
    direction: z.enum(LABEL_DIRECTIONS).optional(),
    current: booleanParam('Only current labels (`true`) or only superseded ones (`false`)').optional(),
    status: z.enum(LABEL_STATUSES).optional(),
    created_after: instantParam('Created at or after (inclusive, second precision)').optional(),
    created_before: instantParam('Created at or before (inclusive, second precision)').optional(),
    updated_after: instantParam('State changed at or after (inclusive, second precision)').optional(),
    sort: z
      .enum(['-created_at', 'created_at'])
      .default('-created_at')
      .describe('`-created_at` newest first; `created_at` the sync feed'),
    cursor: z.string().min(1).max(2000).describe('`next_cursor` of the previous page, unchanged').optional(),
    limit: limitParam(LIST_LIMIT_MAX, LIST_LIMIT_DEFAULT),
  })
  .strict();

export type ListLabelsQuery = z.output<typeof listLabelsQuerySchema>;

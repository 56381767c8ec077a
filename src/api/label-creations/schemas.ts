import { RESOLVE_OUTCOMES } from '../../domain/resolve';
import { z } from 'zod';
import { SELECTIONS } from '../../domain/carrier-selection';
import {
  COD_SOURCES,
  FULFILLMENT_MODES,
  FULFILLMENT_REQUESTS,
  LABEL_CREATION_PHASES,
  LABEL_CREATION_STATUSES,
  NEXT_ACTIONS,
  ON_EXISTING_MODES,
  WOULD_VALUES,
} from '../../domain/labels';
import { WARNING_CODES } from '../../domain/refusal';
import { ERROR_CODES, type ErrorCode } from '../../domain/error-catalog';
import { labelSchema } from '../labels/schemas';

const timestamp = z.string().describe('ISO 8601 UTC, second precision');
const amount = z
  .string()
  .regex(/^\d+\.\d{2}$/)
  .describe('Decimal string with two places');
const money = z.object({ amount, currency: z.string().describe('ISO 4217') });
const roundingRule = z
  .object({
    mode: z.enum(['whole', 'up_to_multiple']),
    multiple: z.number().int().optional().describe('With `up_to_multiple`: rounds up to a multiple of this'),
  })
  .describe('`whole`: to whole units, half up; `up_to_multiple`: up to the next multiple');

export const requestedSchema = z
  .object({
    order_id: z.string().nullable().describe('GID; null when the order was named by order_name'),
    order_name: z.string().nullable().describe('Lookup key: without `#`, lowercased'),
    fulfillment_order_ids: z.array(z.string()).nullable().describe('GIDs; null: every shippable fulfillment order'),
    all_locations: z.boolean(),
    carrier_account_id: z.string().nullable(),
    service_code: z.string().nullable(),
    parcels: z
      .array(z.object({ weight_grams: z.number().int() }))
      .nullable()
      .describe('null: derived'),
    cod: money.nullable().describe('null: derived'),
    declared_value: money.nullable().describe('null: derived'),
    carrier_options: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])),
    fulfillment: z.enum(FULFILLMENT_REQUESTS),
    on_existing: z.enum(ON_EXISTING_MODES),
    replaces: z.array(z.string()),
    include: z.array(z.enum(['document'])),
    client_reference: z.string().nullable(),
    dry_run: z.boolean(),
  })
  .describe(
    'Echo of the request after normalization (IDs as GIDs, defaults filled, amounts with two decimals); null where the value is derived. Sending it again as a body makes the same request.',
  );

const codDerivationSchema = z
  .object({
    base: money.nullable().describe('Order-level amount before the label’s share'),
    raw_metafield: z.string().nullable().describe('`service/cod_value` as read, when it decided'),
    matched_gateway: z.string().nullable().describe('The COD payment gateway that decided'),
    outstanding_balance: money.nullable(),
    share: money.nullable().describe('The label’s share of `base`'),
    split: z
      .object({
        label_goods_value: money,
        order_goods_value: money,
        fulfillment_order_ids: z.array(z.string()),
      })
      .nullable()
      .describe('Set when an automatic amount was split across the order’s fulfillment orders by goods value'),
    converted: z
      .object({ value: z.string(), currency: z.string() })
      .nullable()
      .describe('Carrier A: `custom.converted_value` / `custom.converted_currency` when they replaced the amount'),
  })
  .describe('How an automatic COD came about; all null for an explicit `cod`');

export const resolvedSchema = z
  .object({
    selection: z
      .enum(SELECTIONS)
      .nullable()
      .describe('`auto`: rules chose; `requested_account`: account from the request; `requested`: account and service'),
    matched_rule: z.object({ id: z.string(), priority: z.number().int() }).nullable(),
    carrier_account_id: z.string().nullable(),
    service_code: z.string().nullable(),
    parcels: z.array(z.object({ weight_grams: z.number().int(), source: z.enum(['request', 'order']) })).nullable(),
    fulfillment: z
      .object({ mode: z.enum(FULFILLMENT_MODES), source: z.enum(['request', 'account_default']) })
      .nullable(),
    cod: z
      .object({
        decided: money.extend({ source: z.enum(COD_SOURCES) }),
        to_carrier: money.extend({
          adjustments: z.array(
            z.object({ kind: z.enum(['carrier_rounding']), rule: roundingRule, from: amount, to: amount }),
          ),
          state: z.enum(['predicted', 'sent']).describe('`predicted` in a dry run'),
        }),
        derivation: codDerivationSchema,
      })
      .nullable(),
    declared_value: z
      .object({
        decided: money.extend({ source: z.enum(['request', 'order']) }).nullable(),
        to_carrier: money.nullable().describe('null where the carrier gets no declared value'),
      })
      .nullable(),
  })
  .describe('The decision: filled in while running, complete from `sending_to_carrier`; null fields are not decided');

export const warningSchema = z.object({
  code: z.enum(WARNING_CODES),
  message: z.string(),
  details: z.record(z.string(), z.unknown()).optional(),
});

const attentionSchema = z.object({
  reason: z.enum(['carrier_timeout', 'carrier_error', 'worker_lost', 'label_not_retrieved', 'confirmation_missing']),
  shipment_at_carrier: z.enum(['unknown', 'exists']),
  carrier: z.object({ code: z.string(), name: z.string(), account_id: z.string().nullable() }),
  carrier_reference: z.string().nullable(),
  carrier_note: z.enum(['draft_until_label_printed']).nullable(),
  sent_at: timestamp,
  resolve_allowed_at: timestamp,
});

const sideEffectStatus = z.enum(['pending', 'succeeded', 'failed', 'skipped']);

export const labelCreationSchema = z
  .object({
    id: z.string().nullable().describe('`lcr_...`; null in a dry run'),
    status: z.enum([...LABEL_CREATION_STATUSES, 'validated']),
    phase: z.enum(LABEL_CREATION_PHASES).nullable(),
    next_action: z.enum(NEXT_ACTIONS),
    created: z.boolean().nullable(),
    dry_run: z.boolean(),
    would: z.enum(WOULD_VALUES).nullable().describe('Dry runs only: what the live call would do'),
    waiting_for: z
      .object({
        reason: z.enum(['fulfillment_order_held', 'label_pending']),
        held_by: z.enum(['creation', 'export', 'unknown']).nullable(),
        label_creation_id: z.string().nullable(),
        label_id: z.string().nullable(),
        fulfillment_order_ids: z.array(z.string()),
      })
      .nullable()
      .describe('With `would: wait_for_existing`: what the live call would wait for'),
    order: z
      .object({ id: z.string().nullable(), legacy_id: z.string().nullable(), name: z.string().nullable() })
      .describe(
        '`{id, legacy_id, name}` (order GID, numeric ID, order name). An order named by `order_id` has its `name` in ' +
          'every answer, an early 202 included; `name` is null only when the store platform could not be read in ' +
          'time or has no such order. An order named by `order_name` has the name as the request gave it until the ' +
          'creation has found the order, and `id` and `legacy_id` null until then.',
      ),
    requested: requestedSchema,
    resolved: resolvedSchema,
    labels: z.array(labelSchema).describe('Labels of the creation (or the existing labels it returns)'),
    side_effects: z.object({
      fulfillment: z.object({ mode: z.enum(FULFILLMENT_MODES), status: sideEffectStatus }).nullable(),
      order_tags: z.object({ status: sideEffectStatus }).nullable(),
    }),
    warnings: z.array(warningSchema),
    error: z
      .object({
        code: z.enum(ERROR_CODES as [ErrorCode, ...ErrorCode[]]).or(z.literal('resolved_not_created')),
        message: z.string(),
        details: z.record(z.string(), z.unknown()).optional(),
        doc_url: z.string(),
      })
      .nullable()
      .describe(
        "The error that ended a `failed` creation, with the details of its code (see the error reference), e.g. `carrier_rejected` (`reason`), `carrier_unavailable` (`reason`: `circuit_open`, `account_rejecting`; the carrier was not called), `repeated_rejection` (`scope`, `blocked_until`, `carrier_rejected`); `details.retry` / `details.next_action` as in the direct answer of `POST /labels` (the value the error carried, else the error reference's default for its code; `resolved_not_created` retries `later`)",
      ),
    attention: attentionSchema
      .nullable()
      .describe(
        'Set while the outcome is unclear (`needs_attention`), kept on a creation resolved or abandoned from it',
      ),
    resolution: z
      .object({
        outcome: z.enum(RESOLVE_OUTCOMES),
        tracking_number: z.string().nullable(),
        note: z.string().nullable(),
        resolved_by: z.string().describe('The API key (`ak_...`) that resolved'),
        resolved_at: timestamp,
      })
      .nullable()
      .describe('The resolve taken for this creation (`POST /label-creations/{id}/resolve`); null when none'),
    client_reference: z.string().nullable(),
    idempotency_key: z.string().nullable().describe('null in a dry run'),
    url: z.string().nullable().describe('URL of the creation; null in a dry run'),
    created_at: timestamp.nullable(),
    updated_at: timestamp.nullable(),
    documents: z
      .array(
        z.object({
          label_id: z.string(),
          format: z.enum(['label']),
          content_type: z.enum(['application/pdf']),
          data_base64: z.string().describe('The stored PDF, base64'),
        }),
      )
      .optional()
      .describe(
        'Only with `include: ["document"]` on a succeeded creation (201, 200 with existing labels, and their replays): the stored PDF of each label that can be downloaded from storage now, in the label-printer format, counted as stored documents (one per PDF). A label left out keeps its `document` object and is downloaded from its document endpoint: its PDF is not stored (yet), is rendered at the carrier or unavailable, or the document rate limit refused it (then every PDF is left out and `X-RateLimit-*` names that bucket).',
      ),
  })
  .describe('A label creation (`lcr_...`): the decision, progress and result of one POST /labels');

export type LabelCreationWire = z.input<typeof labelCreationSchema>;

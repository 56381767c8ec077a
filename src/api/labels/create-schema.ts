import { z } from 'zod';
import { toHundredths } from '../../domain/cod-rounding';
import type { CreationRequestBody } from '../../domain/creation-request';
import { FULFILLMENT_REQUESTS, ON_EXISTING_MODES } from '../../domain/labels';
import {
  FULFILLMENT_ORDER_ID_MAX_LENGTH,
  ORDER_ID_MAX_LENGTH,
  orderNameHint,
  parseFulfillmentOrderId,
  parseOrderId,
} from '../../domain/platform-ids';
import { idMaxLength } from '../../ids';

/**
 * Spec "Limits": COD and declared amounts 0 to 9999999.99 (decimal strings with two decimals, as every amount on the
 * wire, `details.max` and `details.min` included); parcel weight 1 to 1,000,000 g; reference 64 chars.
 */
export const MAX_AMOUNT = '9999999.99';
export const MIN_AMOUNT = '0.00';
const MAX_AMOUNT_HUNDREDTHS = toHundredths(MAX_AMOUNT);
export const MAX_WEIGHT_GRAMS = 1_000_000;
export const CLIENT_REFERENCE_MAX = 64;
/** More IDs than this in `replaces` cannot all block one target (20 fulfillment orders, their labels, creations). */
const REPLACES_MAX = 100;

const AMOUNT = /^\d{1,18}(\.\d{1,2})?$/;
/** The longest amount AMOUNT matches (18 digits, a point, two decimals); longer ones are refused by it. */
const AMOUNT_MAX_LENGTH = 21;
const NEGATIVE_AMOUNT = /^-\d{1,18}(\.\d{1,2})?$/;

/** A well-formed amount as the wire writes amounts: `"10000000.5"` is `"10000000.50"`, `"-07"` is `"-7.00"`. */
function withTwoDecimals(value: string): string {
  const sign = value.startsWith('-') ? '-' : '';
  const [units, cents = ''] = value.slice(sign.length).split('.');
  return `${sign}${units!.replace(/^0+(?=\d)/, '')}.${cents.padEnd(2, '0')}`;
}

/**
 * One check for the whole amount, so an amount out of range names its bound (`min`, `max`) and what was received
 * as decimal strings (src/http/validation.ts takes them from the issue's `params`), never as numbers.
 */
const amount = z
  .string()
  .superRefine((value, ctx) => {
    const issue = (message: string, params?: Record<string, string>) =>
      ctx.addIssue({ code: 'custom', message, input: value, ...(params ? { params } : {}) });
    if (NEGATIVE_AMOUNT.test(value))
      issue(`must be at least ${MIN_AMOUNT}`, { min: MIN_AMOUNT, received: withTwoDecimals(value) });
    else if (!AMOUNT.test(value)) issue('must be a decimal string with at most two decimals, e.g. "499.00"');
    else if (toHundredths(value) > MAX_AMOUNT_HUNDREDTHS)
      issue(`must be at most ${MAX_AMOUNT}`, { max: MAX_AMOUNT, received: withTwoDecimals(value) });
  })
  .meta({ pattern: AMOUNT.source, maxLength: AMOUNT_MAX_LENGTH })
  .describe('Decimal string, 0 to 9999999.99, at most two decimals');

const money = (what: string) =>
  z
    .object({
      amount,
      currency: z
        .string()
        .regex(/^[A-Z]{3}$/, 'must be an ISO 4217 currency code such as CZK')
        .length(3)
        .describe('ISO 4217; must be the label currency'),
    })
    .strict()
    .describe(what);

const orderId = z
  .string()
  .max(ORDER_ID_MAX_LENGTH)
  .superRefine((value, ctx) => {
    if (parseOrderId(value) === null)
      ctx.addIssue({
        code: 'custom',
        input: value,
        message: `must be a numeric order ID or an order GID${orderNameHint(value)}`,
      });
  })
  .describe('Numeric order ID or GID');
const fulfillmentOrderId = z
  .string()
  .max(FULFILLMENT_ORDER_ID_MAX_LENGTH)
  .refine((v) => parseFulfillmentOrderId(v) !== null, 'must be a numeric fulfillment order ID or its GID');

const optionValue = z.union([z.string().max(255), z.number(), z.boolean()]);

/**
 * The `POST /labels` body (spec table): a closed schema, so an unknown field is 422 `validation_error` with
 * `parameter`. Cross-field rules come after the shapes; each names the field to fix.
 */
export const createLabelBodySchema = z
  .object({
    order_id: orderId.nullable().optional(),
    order_name: z
      .string()
      .min(1)
      .max(255)
      .nullable()
      .optional()
      .describe('Exact order name; `#` optional, case-insensitive. Send order_id or order_name.'),
    fulfillment_order_ids: z
      .array(fulfillmentOrderId)
      .length(1)
      .nullable()
      .optional()
      .describe('Exactly one fulfillment order ID (numeric or GID); default: every shippable fulfillment order'),
    all_locations: z
      .boolean()
      .optional()
      .describe('Without fulfillment_order_ids: one label for shippable fulfillment orders of every location'),
    carrier_account_id: z
      .string()
      .regex(/^ca_[A-Za-z0-9_]{1,64}$/, 'must be a carrier account ID (ca_...)')
      .max(idMaxLength('carrierAccount'))
      .nullable()
      .optional()
      .describe('`ca_...`; default: chosen by the store’s rules'),
    service_code: z
      .string()
      .min(1)
      .max(64)
      .nullable()
      .optional()
      .describe('A service of the carrier account; requires carrier_account_id'),
    parcels: z
      .array(
        z.object({ weight_grams: z.number().int().min(1).max(MAX_WEIGHT_GRAMS).meta({ format: 'int32' }) }).strict(),
      )
      .length(1)
      .nullable()
      .optional()
      .describe('Exactly one parcel, 1 to 1,000,000 g; default: the line items’ weight'),
    cod: money('Cash on delivery; amount zero ships without COD; default: derived').nullable().optional(),
    declared_value: money('Only where the account says declared_value.supported; default: derived')
      .nullable()
      .optional(),
    carrier_options: z
      .record(z.string().min(1).max(64), optionValue)
      .optional()
      .describe('Only keys the carrier account lists in `options`; default: the account’s defaults'),
    fulfillment: z.enum(FULFILLMENT_REQUESTS).optional().describe('Default `account_default`'),
    on_existing: z.enum(ON_EXISTING_MODES).optional().describe('Default `return`'),
    replaces: z
      .array(
        z
          .string()
          .regex(/^(lbl|lcr)_[A-Za-z0-9_]{1,64}$/, 'must be a label (lbl_...) or creation (lcr_...) ID')
          .max(idMaxLength('label')),
      )
      .max(REPLACES_MAX)
      .optional()
      .describe('With on_existing: create_new (required there): exactly what blocks the target today; [] when nothing'),
    include: z
      .array(z.enum(['document']))
      .max(1)
      .optional()
      .describe(
        '`["document"]` returns the stored PDFs of a succeeded creation (a new label or the existing ones) with it, counted as stored documents; needs labels:print; not with dry_run',
      ),
    client_reference: z
      .string()
      .max(CLIENT_REFERENCE_MAX)
      .nullable()
      .optional()
      .describe('Up to 64 characters; stored and returned, never sent to the carrier'),
    dry_run: z.boolean().optional().describe('Run the checks up to the carrier call; create nothing'),
  })
  .strict()
  .superRefine((body, ctx) => {
    const issue = (path: string, message: string, input: unknown) =>
      ctx.addIssue({ code: 'custom', path: [path], message, input });
    const hasId = body.order_id !== undefined && body.order_id !== null;
    const hasName = body.order_name !== undefined && body.order_name !== null;
    if (hasId && hasName) issue('order_name', 'send order_id or order_name, not both', body.order_name);
    if (!hasId && !hasName) issue('order_id', 'order_id or order_name is required', null);
    if (body.service_code != null && body.carrier_account_id == null)
      issue('service_code', 'service_code requires carrier_account_id', body.service_code);
    if (body.all_locations === true && body.fulfillment_order_ids != null)
      issue('all_locations', 'all_locations applies only without fulfillment_order_ids', true);
    if (body.on_existing === 'create_new' && body.replaces === undefined)
      issue('replaces', 'replaces is required with on_existing: create_new ([] when nothing blocks)', null);
    if (body.on_existing !== 'create_new' && body.replaces !== undefined && body.replaces.length > 0)
      issue('replaces', 'replaces applies only with on_existing: create_new', body.replaces);
    if (body.dry_run === true && body.include !== undefined && body.include.length > 0)
      issue('include', 'include is not allowed with dry_run', body.include);
  }) satisfies z.ZodType<CreationRequestBody>;

export type CreateLabelBody = z.output<typeof createLabelBodySchema>;

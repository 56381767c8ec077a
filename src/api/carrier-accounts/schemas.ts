import { z } from 'zod';
import { idPathParam } from '../../http/query-params';
import { FULFILLMENT_MODES } from '../../domain/labels';

const timestamp = z.string().describe('ISO 8601 UTC, second precision');

export const carrierAccountSchema = z
  .object({
    id: z.string().describe('`ca_...`'),
    name: z.string(),
    carrier: z.object({
      code: z.string().describe('Catalogue code, e.g. `carrier_a`'),
      name: z.string(),
      cod: z.object({
        supported: z.boolean().describe('Whether the carrier’s API takes COD at all'),
        rounding_by_currency: z
          .record(
            z.string(),
            z.object({
              mode: z.enum(['whole', 'up_to_multiple']),
              multiple: z.number().int().optional().describe('With `up_to_multiple`'),
            }),
          )
          .describe(
            'How the carrier rounds a COD amount, by ISO currency; `*` applies to every currency not listed; a currency without an entry is sent as is',
          ),
      }),
    }),
    currency: z.string().describe('The account’s currency'),
    api_creation: z
      .enum(['enabled', 'not_enabled'])
      .describe('`not_enabled`: POST /labels refuses the account (`carrier_selection_failed`, `carrier_not_enabled`)'),
    services: z.array(
      z.object({
        code: z.string().describe('`service_code` on POST /labels'),
        name: z.string(),
        cod_supported: z.boolean(),
        pickup_point_required: z.boolean().describe('Delivers only to a pickup point'),
      }),
    ),
    options: z
      .record(
        z.string(),
        z.object({
          type: z.enum(['string', 'number', 'boolean']),
          default: z.union([z.string(), z.number(), z.boolean()]).nullable(),
          description: z.string().nullable(),
        }),
      )
      .describe('The `carrier_options` keys POST /labels accepts for this account, with their defaults'),
    declared_value: z.object({ supported: z.boolean().describe('Whether `declared_value` may be sent') }),
    default_fulfillment: z
      .enum(FULFILLMENT_MODES)
      .describe('What `fulfillment: account_default` does with this account’s labels'),
    sender: z.object({ name: z.string(), country_code: z.string().nullable() }),
    print_tag: z.string().nullable().describe('Order tag added when a label of the account is marked printed'),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .describe('A carrier account of the store');

export type CarrierAccountWire = z.input<typeof carrierAccountSchema>;

export const carrierAccountListSchema = z.object({
  data: z.array(carrierAccountSchema).describe('Every matching account, oldest first; the list is never paged'),
});

export const carrierAccountParamsSchema = z.object({ carrier_account_id: idPathParam('carrierAccount') });

export const listCarrierAccountsQuerySchema = z
  .object({
    carrier: z.string().min(1).max(64).optional().describe('Only accounts of this carrier (catalogue code)'),
    api_creation: z.enum(['enabled', 'not_enabled']).optional().describe('Only accounts with this API creation state'),
  })
  .strict();

import { z } from 'zod';
import { DELIVERY_STATUSES, ORDER_REMINDER_CODES } from '../../domain/order-status';
import { MAX_PICKUP_POINTS, PICKUP_POINT_TYPES, WEEKDAYS } from '../../domain/pickup-points';
import { commaSeparated, coordinateParam, limitParam, listMaxLength } from '../../http/query-params';
import { labelSchema } from '../labels/schemas';

const timestamp = z.string().describe('ISO 8601 UTC, second precision');
const money = z.object({
  amount: z
    .string()
    .regex(/^\d+\.\d{2}$/)
    .describe('Decimal string with two places'),
  currency: z.string(),
});

const networkCode = z
  .string()
  .describe('Carrier code (`carrier_a`, `carrier_c`, `carrier_d`) or `custom:<code>` for a custom provider');

const openingRange = z.object({
  opens: z.string().describe('HH:MM'),
  closes: z.string().describe('HH:MM; 24:00 ends the day'),
});

export const pickupPointSchema = z
  .object({
    id: z.string().describe("The network's own ID of the point; send it with `carrier` to set the point"),
    carrier: z.object({
      code: networkCode,
      name: z.string(),
      account_id: z.string().nullable().describe('`ca_...` the carrier is reached through; null for custom providers'),
    }),
    type: z.enum(PICKUP_POINT_TYPES),
    name: z.string(),
    place: z.string().nullable().describe('General location or neighbourhood'),
    street: z.string(),
    city: z.string(),
    zip: z.string(),
    country: z.string().describe('ISO 3166-1 alpha-2'),
    latitude: z.number(),
    longitude: z.number(),
    distance_meters: z.number().int().describe('Great-circle distance from the searched location'),
    pin_url: z.string().nullable().describe('Map pin image, 50 x 75 pixels'),
    opening_hours: z
      .object(Object.fromEntries(WEEKDAYS.map((day) => [day, z.array(openingRange)])))
      .describe('Every weekday; an empty list is a closed day'),
    requires_customer_id: z
      .boolean()
      .describe('The point hands parcels out only to registered recipients; setting it needs `customer_id`'),
  })
  .describe('A pickup point');

export const pickupPointListSchema = z.object({
  data: z.array(pickupPointSchema).describe('Nearest first; each network keeps its own order'),
  search: z.object({
    latitude: z.number(),
    longitude: z.number(),
    country_code: z.string(),
    source: z
      .enum(['shipping_address', 'request'])
      .describe('The geocoded shipping address, or `latitude`/`longitude` of the request'),
  }),
  sources: z
    .array(
      z.object({
        carrier: z.object({ code: networkCode, name: z.string(), account_id: z.string().nullable() }),
        status: z
          .enum(['ok', 'stale', 'unavailable'])
          .describe('`stale`: a custom provider is down and its last answer (up to 24 hours old) stands in'),
        failure: z.enum(['timeout', 'error']).nullable().describe('Why a network is `unavailable`'),
        points_found: z.number().int(),
      }),
    )
    .describe('Every network searched, with how it answered'),
});

const pointQueryNumber = (name: string, max: number) =>
  coordinateParam(
    `${name} to search around instead of the shipping address; send with the other coordinate`,
    max,
  ).optional();

/** Network codes: a catalogue code or `custom:<code>`; at most this many in one search. */
const NETWORK_CODE_MAX_LENGTH = 64;
const NETWORKS_PER_SEARCH_MAX = 20;

export const PICKUP_POINT_LIST_DEFAULT = 10;

export const listPickupPointsQuerySchema = z
  .object({
    carrier: commaSeparated(
      z
        .string()
        .max(listMaxLength(NETWORKS_PER_SEARCH_MAX, NETWORK_CODE_MAX_LENGTH))
        .transform((value) => [...new Set(value.split(',').map((c) => c.trim()))])
        .pipe(z.array(z.string().min(1).max(NETWORK_CODE_MAX_LENGTH)).min(1).max(NETWORKS_PER_SEARCH_MAX))
        .optional()
        .describe('Comma-separated network codes to search (`carrier_a,custom:shops`); default every network allowed'),
    ),
    limit: limitParam(MAX_PICKUP_POINTS, PICKUP_POINT_LIST_DEFAULT),
    latitude: pointQueryNumber('Latitude', 90),
    longitude: pointQueryNumber('Longitude', 180),
    country_code: z
      .string()
      .regex(/^[A-Z]{2}$/, 'must be an ISO 3166-1 alpha-2 code')
      .length(2)
      .optional()
      .describe("Country to search in; default the shipping address's"),
  })
  .strict()
  .refine((q) => (q.latitude === undefined) === (q.longitude === undefined), {
    message: 'send `latitude` and `longitude` together',
    path: ['latitude'],
  });

export const setPickupPointBodySchema = z
  .object({
    carrier: networkCode.min(1).max(NETWORK_CODE_MAX_LENGTH),
    pickup_point_id: z.string().min(1).max(100).describe('`id` of a point from `GET /orders/{order_id}/pickup-points`'),
    customer_id: z
      .string()
      .min(1)
      .max(64)
      .nullable()
      .default(null)
      .describe("The recipient's registration at the network; required for points with `requires_customer_id`"),
  })
  .strict();

const fulfillmentOrderSchema = z.object({
  id: z.string(),
  legacy_id: z.string(),
  status: z.string().describe('Store platform status: `open`, `in_progress`, `closed`, ...'),
  delivery_method_type: z.string(),
  assigned_location_name: z.string(),
  held_by: z
    .enum(['creation', 'export', 'unknown'])
    .nullable()
    .describe('Who holds it now: a running label creation or an admin/automation export'),
  label_creation_id: z.string().nullable().describe('The holding creation (`lcr_...`)'),
});

export const orderSchema = z
  .object({
    id: z.string().describe('Order GID'),
    legacy_id: z.string().describe('Numeric order ID'),
    name: z.string(),
    currency: z.string(),
    cancelled_at: timestamp.nullable(),
    delivery_method: z.object({
      type: z.enum(['shipping', 'pickup', 'local', 'retail']),
      title: z.string().nullable(),
      pickup_point_method: z.boolean().describe('Whether the order is delivered to a pickup point'),
    }),
    pickup_point: z
      .object({
        id: z.string(),
        carrier: z.object({ code: networkCode.nullable(), name: z.string().nullable() }),
        name: z.string().nullable(),
        country: z.string(),
        customer_id_set: z.boolean().describe('Whether a `customer_id` is recorded (its value is never shown)'),
      })
      .nullable()
      .describe('The point the order is delivered to; null when none is set'),
    delivery: z.object({
      status: z.enum(DELIVERY_STATUSES),
      shipping_country: z.string().nullable(),
      fulfillment_orders: z.array(fulfillmentOrderSchema),
    }),
    reminders: z
      .array(z.object({ code: z.enum(ORDER_REMINDER_CODES), label_ids: z.array(z.string()) }))
      .describe('What still needs doing for the order, most pressing first'),
    cod: z
      .object({
        payment_gateways: z.array(z.string()).describe('As the store platform reports them'),
        cod_value_metafield: z.string().nullable().describe('`service/cod_value` exactly as stored; not interpreted'),
        currency_metafield: z.string().nullable().describe('`service/currency` exactly as stored'),
        order_currency: z.string(),
        total_price: money,
        total_outstanding: money.describe('What the customer still owes'),
      })
      .describe('The facts the COD decision of `POST /labels` reads; labels show what was collected'),
    labels: z.array(labelSchema).describe('Every label of the order, oldest first'),
  })
  .describe('An order as this API sees it');

export type OrderWire = z.input<typeof orderSchema>;
export type PickupPointWire = z.input<typeof pickupPointSchema>;
export type PickupPointListWire = z.input<typeof pickupPointListSchema>;

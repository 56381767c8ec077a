import { z } from 'zod';

const money = z.object({ amount: z.string().regex(/^\d+(\.\d{1,2})?$/), currency: z.string().length(3) }).strict();
const deliveryType = z.enum(['shipping', 'pickup', 'local', 'retail']);

export const pickupPointSchema = z
  .object({
    id: z.string().min(1),
    carrier_code: z.string().nullable().default(null),
    name: z.string().nullable().default(null),
    country: z.string().length(2),
    customer_id: z.string().nullable().default(null),
  })
  .strict();

export const fulfillmentOrderSchema = z
  .object({
    id: z.union([z.string(), z.number()]).transform(String),
    status: z
      .enum(['open', 'in_progress', 'scheduled', 'on_hold', 'incomplete', 'closed', 'cancelled'])
      .default('open'),
    assigned_location: z
      .object({
        id: z.union([z.string(), z.number()]).transform(String),
        name: z.string(),
        /** A fulfillment service's location (a third-party warehouse app fulfils from it); null: the merchant's own. */
        fulfillment_service: z.string().min(1).nullable().default(null),
      })
      .strict()
      .default({ id: '1', name: 'Warehouse', fulfillment_service: null }),
    delivery_method_type: deliveryType.default('shipping'),
    line_items: z
      .array(
        z
          .object({
            id: z.union([z.string(), z.number()]).transform(String),
            sku: z.string().nullable().default(null),
            /** Units still to fulfil; `total_after_discounts` is their value. */
            quantity: z.number().int().min(1),
            /** Units of the line already fulfilled (Shopify counts them in the line's total quantity). */
            fulfilled_quantity: z.number().int().min(0).default(0),
            total_after_discounts: money,
            weight_grams: z.number().int().min(0).nullable().default(null),
          })
          .strict(),
      )
      .default([]),
  })
  .strict();

/** What a test or fixture upserts; everything but the ID and name has a usable default. */
export const orderSchema = z
  .object({
    id: z.union([z.string(), z.number()]).transform(String),
    name: z.string().min(1),
    currency: z.string().length(3).default('CZK'),
    total_price: money.optional(),
    subtotal_price: money.optional(),
    total_outstanding: money.optional(),
    payment_gateways: z.array(z.string()).default([]),
    metafields: z.record(z.string(), z.string()).default({}),
    shipping_address: z
      .object({
        name: z.string(),
        company: z.string().nullable().default(null),
        street: z.string(),
        city: z.string(),
        postcode: z.string(),
        country: z.string().length(2),
        latitude: z.number().min(-90).max(90).nullable().default(null),
        longitude: z.number().min(-180).max(180).nullable().default(null),
        /** The phone given with the address at checkout (Shopify's `MailingAddress.phone`). */
        phone: z.string().nullable().default(null),
      })
      .strict()
      .nullable()
      .default(null),
    phone: z.string().nullable().default(null),
    /** The customer who placed it; their default phone (Shopify's `Customer.defaultPhoneNumber`). */
    customer: z
      .object({ phone: z.string().nullable().default(null) })
      .strict()
      .nullable()
      .default(null),
    email: z.string().nullable().default(null),
    delivery_method: z
      .object({
        type: deliveryType,
        title: z.string().nullable().default(null),
        pickup_point: pickupPointSchema.nullable().default(null),
      })
      .strict()
      .default({ type: 'shipping', title: null, pickup_point: null }),
    tags: z.array(z.string()).default([]),
    cancelled_at: z.string().nullable().default(null),
    /** When the customer placed it (ISO 8601); now when not given. Shopify's 60-day window counts from it. */
    created_at: z.iso.datetime({ offset: true }).optional(),
    fulfillment_orders: z.array(fulfillmentOrderSchema).default([]),
  })
  .strict();

export type OrderInput = z.infer<typeof orderSchema>;
export type FulfillmentOrderInput = z.infer<typeof fulfillmentOrderSchema>;

export const platformFaultSchema = z
  .object({
    type: z.enum(['slow', 'throttled', 'unavailable', 'unauthorized']),
    times: z.number().int().min(1).max(1000).default(1),
    delay_ms: z.number().int().min(0).max(120_000).default(500),
    retry_after_seconds: z.number().int().min(0).max(3600).default(2),
  })
  .strict();
export type PlatformFault = z.infer<typeof platformFaultSchema>;

export const fulfillBodySchema = z
  .object({
    fulfillment_order_ids: z.array(z.string()).min(1),
    tracking_number: z.string().nullable().default(null),
    tracking_url: z.string().nullable().default(null),
    carrier_name: z.string().nullable().default(null),
    notify_customer: z.boolean(),
  })
  .strict();

/** An app's hold (`POST /platform/stores/{domain}/fulfillment-orders/{id}/holds`). */
export const appHoldBodySchema = z
  .object({ reason: z.string().min(1).max(500), handle: z.string().min(1).max(64) })
  .strict();

export const orderEditSchema = z
  .object({
    /** Fulfillment orders the edit replaces; each gets a new open fulfillment order with the given line items. */
    replace: z.array(z.object({ fulfillment_order_id: z.string(), new: fulfillmentOrderSchema }).strict()).min(1),
  })
  .strict();

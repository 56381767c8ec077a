import { z } from 'zod';

const money = z.object({ amount: z.string().regex(/^\d+(\.\d{1,2})?$/), currency: z.string().length(3) }).strict();

/**
 * The shipment body every simulator reads (snake_case, like the public API). Real carriers each have their own
 * shapes; the sandbox keeps one so the simulators differ only in behaviour, paths and answers.
 */
export const simulatorShipmentSchema = z
  .object({
    reference: z.string().min(1).max(255),
    order_name: z.string(),
    service_code: z.string(),
    recipient: z.object({ name: z.string(), company: z.string().nullable().optional() }).strict(),
    address: z.object({ street: z.string(), city: z.string(), postcode: z.string(), country: z.string() }).strict(),
    phone: z.string().nullable(),
    email: z.string().nullable(),
    pickup_point: z.object({ id: z.string(), country: z.string() }).strict().nullable(),
    weight_grams: z.number().int(),
    cod: money.nullable(),
    declared_value: money.nullable(),
    options: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).default({}),
    sender_country: z.string().length(2),
    /** Carrier B: the account's bank account for COD payouts. */
    iban: z.string().nullable().optional(),
    /** Carrier B: the account's printer type decides the label size. */
    printer_type: z.enum(['a6', 'thermal']).nullable().optional(),
  })
  .strict();

export type SimulatorShipment = z.infer<typeof simulatorShipmentSchema>;

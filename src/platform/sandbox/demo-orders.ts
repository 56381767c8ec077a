import { z } from 'zod';
import { SANDBOX_PICKUP_NETWORKS } from '../../carriers/sandbox/pickup-networks';

/**
 * Fresh orders for the demo store (`POST /_control/stores/{domain}/demo-orders`, `labelctl demo orders add`): one of
 * each kind the demo shows, so a newcomer always has an order without a label to create one for.
 * - `home`: paid by card, one fulfillment order, delivered to a Praha address (the demo rules: carrier A `a_home`);
 * - `pickup_point`: to a carrier A pickup point in Praha, chosen at checkout (`a_pickup`), the address geocoded;
 * - `cod`: cash on delivery, the whole price outstanding (COD decided from the payment gateway);
 * - `two_fulfillment_orders`: two fulfillment orders at one location, which one label covers.
 */
export const DEMO_ORDER_KINDS = ['home', 'pickup_point', 'cod', 'two_fulfillment_orders'] as const;
export type DemoOrderKind = (typeof DEMO_ORDER_KINDS)[number];

export const demoOrdersBodySchema = z
  .object({
    /** How many orders; the kinds are taken in turn. Default: one of each kind. */
    count: z.number().int().min(1).max(50).optional(),
    kinds: z.array(z.enum(DEMO_ORDER_KINDS)).min(1).max(DEMO_ORDER_KINDS.length).optional(),
  })
  .strict();

const RECIPIENTS = [
  { name: 'Jana Nováková', street: 'Dlouhá 12', email: 'jana@example.com', phone: '+420600111222' },
  { name: 'Petr Svoboda', street: 'Vinohradská 48', email: 'petr@example.com', phone: '+420601222333' },
  { name: 'Eva Dvořáková', street: 'Národní 7', email: 'eva@example.com', phone: '+420602333444' },
  { name: 'Tomáš Černý', street: 'Palackého 21', email: 'tomas@example.com', phone: '+420603444555' },
] as const;

/** Praha, geocoded as the platform does for an address: the point a pickup-point search starts from. */
const PRAHA = { city: 'Praha', postcode: '110 00', country: 'CZ', latitude: 50.0755, longitude: 14.4378 } as const;

/** Carrier A's counter points in Praha (not lockers), which every pickup-point order of the demo is sent to. */
const PRAHA_POINTS = (SANDBOX_PICKUP_NETWORKS.carrier_a ?? []).filter(
  (p) => p.city === 'Praha' && p.kind === 'pickup_point',
);

const czk = (amount: string) => ({ amount, currency: 'CZK' });
const lineItem = (id: string, amount: string) => ({
  id,
  quantity: 1,
  total_after_discounts: czk(amount),
  weight_grams: 1200,
});

/**
 * One demo order of `kind` as the sandbox platform's control API takes it (`PUT /_control/stores/{domain}/orders`).
 * `sequence` picks the recipient and pickup point, so consecutive orders differ.
 */
export function demoOrder(
  kind: DemoOrderKind,
  ids: { orderId: string; name: string; fulfillmentOrderIds: [string, string] },
  sequence: number,
): Record<string, unknown> {
  const recipient = RECIPIENTS[sequence % RECIPIENTS.length]!;
  const address = { name: recipient.name, street: recipient.street, ...PRAHA };
  const [first, second] = ids.fulfillmentOrderIds;
  const base = {
    id: ids.orderId,
    name: ids.name,
    currency: 'CZK',
    phone: recipient.phone,
    email: recipient.email,
    shipping_address: address,
    tags: ['demo'],
  };
  switch (kind) {
    case 'home':
      return {
        ...base,
        payment_gateways: ['card'],
        total_price: czk('499.00'),
        total_outstanding: czk('0.00'),
        fulfillment_orders: [{ id: first, line_items: [lineItem(`${first}1`, '499.00')] }],
      };
    case 'pickup_point': {
      const point = PRAHA_POINTS[sequence % PRAHA_POINTS.length]!;
      return {
        ...base,
        payment_gateways: ['card'],
        total_price: czk('349.00'),
        total_outstanding: czk('0.00'),
        delivery_method: {
          type: 'pickup',
          title: 'Carrier A pickup point',
          pickup_point: { id: point.id, carrier_code: 'carrier_a', name: point.name, country: point.country },
        },
        // A parcel to a carrier's pickup point is shipped (the order's `pickup` delivery method names the point).
        fulfillment_orders: [{ id: first, line_items: [lineItem(`${first}1`, '349.00')] }],
      };
    }
    case 'cod':
      return {
        ...base,
        payment_gateways: ['Cash on Delivery (COD)'],
        total_price: czk('899.00'),
        total_outstanding: czk('899.00'),
        fulfillment_orders: [{ id: first, line_items: [lineItem(`${first}1`, '899.00')] }],
      };
    case 'two_fulfillment_orders':
      return {
        ...base,
        payment_gateways: ['card'],
        total_price: czk('698.00'),
        total_outstanding: czk('0.00'),
        fulfillment_orders: [
          { id: first, line_items: [lineItem(`${first}1`, '499.00')] },
          { id: second, line_items: [lineItem(`${second}1`, '199.00')] },
        ],
      };
  }
}

/**
 * IDs for the next demo orders of a store. Order IDs come from the clock (14 digits and a sequence), so an order made
 * after the sandbox restarted (its state is in memory) never takes the ID of one an earlier run's labels name; names
 * go on from the store's highest numeric name (`#1013` after the demo's `#1012`), as a shop's would.
 */
export function nextDemoIds(
  existing: { orderIds: ReadonlySet<string>; fulfillmentOrderIds: ReadonlySet<string>; names: Iterable<string> },
  count: number,
  nowMs: number,
): Array<{ orderId: string; name: string; fulfillmentOrderIds: [string, string] }> {
  let highest = 1000;
  for (const name of existing.names) {
    const number = /^#?(\d{1,9})$/.exec(name.trim());
    if (number) highest = Math.max(highest, Number(number[1]));
  }
  const out: Array<{ orderId: string; name: string; fulfillmentOrderIds: [string, string] }> = [];
  let candidate = nowMs * 10;
  for (let i = 0; i < count; i += 1) {
    while (
      existing.orderIds.has(String(candidate)) ||
      existing.fulfillmentOrderIds.has(`${candidate}1`) ||
      existing.fulfillmentOrderIds.has(`${candidate}2`)
    )
      candidate += 1;
    const orderId = String(candidate);
    out.push({ orderId, name: `#${highest + i + 1}`, fulfillmentOrderIds: [`${orderId}1`, `${orderId}2`] });
    candidate += 1;
  }
  return out;
}

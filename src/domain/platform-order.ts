/** The store platform's words for an order's delivery and a fulfillment order's state, which the decisions read. */
export type DeliveryMethodType = 'shipping' | 'pickup' | 'local' | 'retail';

export type FulfillmentOrderStatus =
  'open' | 'in_progress' | 'scheduled' | 'on_hold' | 'incomplete' | 'closed' | 'cancelled';

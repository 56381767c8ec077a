/**
 * Store-platform IDs: the API accepts the numeric ID or the full global ID (spec "Identifiers") and stores both.
 */
const ORDER_GID = /^gid:\/\/shopify\/Order\/([1-9][0-9]{0,19})$/;
const FULFILLMENT_ORDER_GID = /^gid:\/\/shopify\/FulfillmentOrder\/([1-9][0-9]{0,19})$/;
const NUMERIC = /^[1-9][0-9]{0,19}$/;

/** The longest order and fulfillment order IDs the parsers accept: a GID with 20 digits. */
export const ORDER_ID_MAX_LENGTH = 'gid://shopify/Order/'.length + 20;
export const FULFILLMENT_ORDER_ID_MAX_LENGTH = 'gid://shopify/FulfillmentOrder/'.length + 20;
/** The same shapes as patterns, for the OpenAPI document. */
export const ORDER_ID_PATTERN = `^([1-9][0-9]{0,19}|${ORDER_GID.source.slice(1, -1)})$`;

export interface PlatformId {
  gid: string;
  legacyId: string;
}

function parse(value: string, gidPattern: RegExp, type: string): PlatformId | null {
  if (NUMERIC.test(value)) return { gid: `gid://shopify/${type}/${value}`, legacyId: value };
  const match = gidPattern.exec(value);
  return match ? { gid: value, legacyId: match[1]! } : null;
}

export function parseOrderId(value: string): PlatformId | null {
  return parse(value, ORDER_GID, 'Order');
}

export function parseFulfillmentOrderId(value: string): PlatformId | null {
  return parse(value, FULFILLMENT_ORDER_GID, 'FulfillmentOrder');
}

/**
 * The case-insensitive key of an order name (`POST /labels` finds an order by it, `GET /label-creations` filters by it,
 * and labels keep it indexed): exact name, leading `#` optional, case-insensitive.
 */
export function orderNameKey(name: string): string {
  return orderNameExact(name).toLowerCase();
}

/** An order name as `GET /labels` matches it: exact, a leading `#` optional (spec "GET /labels", `order_name`). */
export function orderNameExact(name: string): string {
  return name.trim().replace(/^#/, '');
}

/**
 * What a refused `order_id` adds when it looks like an order's name (`#1022`, as the admin shows it): names are looked
 * up through `order_name`. Empty for anything else.
 */
export function orderNameHint(value: string): string {
  return value.trim().startsWith('#')
    ? `; ${JSON.stringify(value.slice(0, 100))} looks like an order name: send it as order_name`
    : '';
}

/**
 * The Admin API access scopes the Shopify adapter needs, in one place: the docs table (docs/shopify.md), the connect
 * check (`labelctl store connect`), `labelctl store platform` and the fake Shopify's default session read this list.
 * Each read or write below is what Shopify's own schema says the adapter's documents need (the vendored schema's
 * access annotations; test/unit/shopify-schema.test.ts checks every document against them).
 */
export const SHOPIFY_SCOPES = [
  {
    handle: 'write_orders',
    for: 'orders by ID and name (read), `tagsAdd` on orders (the label and print tags) and `metafieldsSet` for the pickup point and `metafieldDefinitionCreate` for its definition',
  },
  {
    handle: 'write_merchant_managed_fulfillment_orders',
    for: 'fulfillment orders at the merchant’s locations (read), their holds and fulfilments',
  },
  {
    handle: 'read_third_party_fulfillment_orders',
    for: 'fulfillment orders at a fulfillment service’s location, which Shopify otherwise leaves out of an order without a word (they never get a label here: the service ships them)',
  },
  {
    handle: 'read_locations',
    for: 'each fulfillment order’s location: its ID (one fulfilment per location) and whether a fulfillment service runs it',
  },
] as const;

export const REQUIRED_SHOPIFY_SCOPES: readonly string[] = SHOPIFY_SCOPES.map((s) => s.handle);

/** Optional: orders older than 60 days (Shopify approves it per app); without it they read as not found. */
export const ALL_ORDERS_SCOPE = 'read_all_orders';

/**
 * Optional: the customer's default phone, the recipient's phone when neither the shipping address nor the order has
 * one (decision 0716). Without it Shopify refuses that field alone and the order reads without it.
 */
export const CUSTOMER_PHONE_SCOPE = 'read_customers';

/** Whether `granted` gives `scope`: a `write_` scope includes its `read_` one, as Shopify grants them. */
export function grants(granted: Iterable<string>, scope: string): boolean {
  const set = new Set(granted);
  return set.has(scope) || (scope.startsWith('read_') && set.has(`write_${scope.slice('read_'.length)}`));
}

/** The required scopes `granted` lacks, in the list's order. */
export function missingScopes(granted: Iterable<string>): string[] {
  const set = [...granted];
  return REQUIRED_SHOPIFY_SCOPES.filter((scope) => !grants(set, scope));
}

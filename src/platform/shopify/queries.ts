/**
 * The Admin GraphQL documents the adapter sends, asking for exactly the fields the service reads. Money is the
 * presentment money (what the customer pays and a COD collects); see docs/shopify.md.
 */

const money = 'presentmentMoney { amount currencyCode }';

/** The order fields the port's `PlatformOrder` holds; metafields by alias, the pickup point in the app's namespace. */
const ORDER_FIELDS = `
fragment OrderFields on Order {
  id
  legacyResourceId
  name
  presentmentCurrencyCode
  totalPriceSet { ${money} }
  subtotalPriceSet { ${money} }
  totalOutstandingSet { ${money} }
  paymentGatewayNames
  codValue: metafield(namespace: "service", key: "cod_value") { value }
  codCurrency: metafield(namespace: "service", key: "currency") { value }
  convertedValue: metafield(namespace: "custom", key: "converted_value") { value }
  convertedCurrency: metafield(namespace: "custom", key: "converted_currency") { value }
  packetValue: metafield(namespace: "custom", key: "packet_value") { value }
  pickupPoint: metafield(key: "pickup_point") { value }
  shippingAddress { name company address1 address2 city zip countryCodeV2 latitude longitude }
  phone
  email
  shippingLine { title }
  fulfillmentOrders(first: 5) { nodes { deliveryMethod { methodType } } }
  tags
  cancelledAt
}`;

/** The metafield aliases above and the `namespace.key` the port reports them under. */
export const ORDER_METAFIELDS = {
  codValue: 'service.cod_value',
  codCurrency: 'service.currency',
  convertedValue: 'custom.converted_value',
  convertedCurrency: 'custom.converted_currency',
  packetValue: 'custom.packet_value',
} as const;

/** The app-owned metafield (app-reserved namespace) that holds the order's pickup point (decision 0701). */
export const PICKUP_POINT_METAFIELD_KEY = 'pickup_point';

export const ORDER_BY_ID = `query OrderById($id: ID!) { order(id: $id) { ...OrderFields } }
${ORDER_FIELDS}`;

/** Shopify's search is fuzzy; the adapter keeps only exact names of what it returns. */
export const ORDERS_BY_NAME = `query OrdersByName($query: String!) {
  orders(first: 10, query: $query) { nodes { ...OrderFields } }
}
${ORDER_FIELDS}`;

const LINE_FIELDS = `
fragment LineFields on FulfillmentOrderLineItem {
  id
  sku
  totalQuantity
  weight { unit value }
  lineItem { discountedUnitPriceAfterAllDiscountsSet { ${money} } }
}`;

/** Pages of 5 fulfillment orders with 20 lines each keep the requested cost well under the 1,000-point query limit. */
export const FULFILLMENT_ORDERS_PAGE_SIZE = 5;
const FULFILLMENT_ORDERS_PAGE = `fulfillmentOrders(first: ${FULFILLMENT_ORDERS_PAGE_SIZE}, after: $after) {
      nodes {
        id
        status
        assignedLocation { name location { id } }
        deliveryMethod { methodType }
        fulfillmentHolds { id handle reason reasonNotes heldByRequestingApp }
        lineItems(first: 20) { nodes { ...LineFields } pageInfo { hasNextPage endCursor } }
      }
      pageInfo { hasNextPage endCursor }
    }`;
export const FULFILLMENT_ORDERS = `query FulfillmentOrders($id: ID!, $after: String) {
  order(id: $id) {
    id
    ${FULFILLMENT_ORDERS_PAGE}
  }
}
${LINE_FIELDS}`;

/**
 * The order and its first page of fulfillment orders in one query (the creation's read of an order by ID); the page
 * under the alias `fulfillmentOrdersPage`, since the order's fields read its first delivery methods under the name.
 */
export const ORDER_WITH_FULFILLMENT_ORDERS = `query OrderWithFulfillmentOrders($id: ID!, $after: String) {
  order(id: $id) {
    ...OrderFields
    fulfillmentOrdersPage: ${FULFILLMENT_ORDERS_PAGE}
  }
}
${ORDER_FIELDS}
${LINE_FIELDS}`;

/** More lines of one fulfillment order, when it has more than the first page holds. */
export const FULFILLMENT_ORDER_LINES = `query FulfillmentOrderLines($id: ID!, $after: String) {
  fulfillmentOrder(id: $id) {
    lineItems(first: 50, after: $after) { nodes { ...LineFields } pageInfo { hasNextPage endCursor } }
  }
}
${LINE_FIELDS}`;

/** The holds of one fulfillment order: what a release needs (hold IDs by handle) and a refused hold's status. */
export const FULFILLMENT_ORDER_HOLDS = `query FulfillmentOrderHolds($id: ID!) {
  fulfillmentOrder(id: $id) { id status fulfillmentHolds { id handle heldByRequestingApp } }
}`;

export const FULFILLMENT_CREATE = `mutation FulfillmentCreate($fulfillment: FulfillmentInput!) {
  fulfillmentCreate(fulfillment: $fulfillment) {
    fulfillment { id trackingInfo { number url company } }
    userErrors { field message }
  }
}`;

export const TAGS_ADD = `mutation TagsAdd($id: ID!, $tags: [String!]!) {
  tagsAdd(id: $id, tags: $tags) {
    node { ... on Order { tags } }
    userErrors { field message }
  }
}`;

export const PICKUP_POINT_SET = `mutation PickupPointSet($metafields: [MetafieldsSetInput!]!) {
  metafieldsSet(metafields: $metafields) {
    metafields { key value }
    userErrors { field message code }
  }
}`;

export const FULFILLMENT_ORDER_HOLD = `mutation FulfillmentOrderHold($id: ID!, $hold: FulfillmentOrderHoldInput!) {
  fulfillmentOrderHold(id: $id, fulfillmentHold: $hold) {
    fulfillmentHold { id handle }
    userErrors { field message code }
  }
}`;

export const FULFILLMENT_ORDER_RELEASE_HOLD = `mutation FulfillmentOrderReleaseHold($id: ID!, $holdIds: [ID!]) {
  fulfillmentOrderReleaseHold(id: $id, holdIds: $holdIds) {
    fulfillmentOrder { id }
    userErrors { field message code }
  }
}`;

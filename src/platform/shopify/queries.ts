import type {
  FulfillmentCreateMutation,
  FulfillmentCreateMutationVariables,
  FulfillmentOrderHoldMutation,
  FulfillmentOrderHoldMutationVariables,
  FulfillmentOrderHoldsQuery,
  FulfillmentOrderHoldsQueryVariables,
  FulfillmentOrderLinesQuery,
  FulfillmentOrderLinesQueryVariables,
  FulfillmentOrderStatesQuery,
  FulfillmentOrderStatesQueryVariables,
  FulfillmentOrderReleaseHoldMutation,
  FulfillmentOrderReleaseHoldMutationVariables,
  FulfillmentOrdersQuery,
  FulfillmentOrdersQueryVariables,
  GrantedScopesQuery,
  GrantedScopesQueryVariables,
  ShopContactQuery,
  ShopContactQueryVariables,
  OrderByIdQuery,
  OrderByIdQueryVariables,
  OrderWithFulfillmentOrdersQuery,
  OrderWithFulfillmentOrdersQueryVariables,
  OrdersByNameQuery,
  OrdersByNameQueryVariables,
  PickupPointSetMutation,
  PickupPointSetMutationVariables,
  PickupPointDefinitionCreateMutation,
  PickupPointDefinitionCreateMutationVariables,
  TagsAddMutation,
  TagsAddMutationVariables,
} from './admin.generated';

/**
 * A document the adapter sends, typed by its result and variables as graphql-codegen generates them from Shopify's own
 * schema of the pinned version (admin.generated.ts, `npm run shopify:types`): the mapping code cannot read a field the
 * document does not ask for, and a field a newer version renames fails the build.
 */
export interface AdminDocument<Result, Variables> {
  readonly text: string;
  /** Response keys (aliases) of fields behind an optional scope: Shopify's refusal of one reads as null there. */
  readonly optionalFields?: readonly string[];
  /** Carries the types only; never set. */
  readonly types?: { result: Result; variables: Variables };
}

const adminDocument = <Result, Variables>(
  text: string,
  optionalFields?: readonly string[],
): AdminDocument<Result, Variables> => ({ text, ...(optionalFields ? { optionalFields } : {}) });

/** The order's fields behind an optional scope (`read_customers`), in every document that reads an order. */
const ORDER_OPTIONAL_FIELDS = ['customerPhone'] as const;

/**
 * The Admin GraphQL documents the adapter sends, asking for exactly the fields the service reads. Money is the
 * presentment money (what the customer pays and a COD collects); see docs/shopify.md.
 */

const money = 'presentmentMoney { amount currencyCode }';

/**
 * The order fields the port's `PlatformOrder` holds; metafields by alias, the pickup point in the app's namespace. The
 * recipient's phone from the shipping address, the order, then the customer (`customerPhone` needs the optional
 * `read_customers`: without it Shopify refuses that field alone, and the order reads without it; decision 0716). Only
 * displayable fulfillment orders give the delivery method: merged or moved ones are closed and hidden from the merchant.
 */
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
  sharedPickupPoint: metafield(namespace: "shipping_label", key: "pickup_point") { value }
  pickupPoint: metafield(key: "pickup_point") { value }
  shippingAddress { name company address1 address2 city zip countryCodeV2 latitude longitude phone }
  phone
  customerPhone: customer { defaultPhoneNumber { phoneNumber } }
  email
  shippingLine { title }
  fulfillmentOrders(first: 5, displayable: true) { nodes { deliveryMethod { methodType } } }
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

/**
 * The order's pickup point (decision 0719): `shipping_label.pickup_point`, a merchant-owned namespace every app on the
 * shop reads and writes, its definition giving checkout, storefront and customer accounts read access. `pickupPoint`
 * above is where it lived before (decision 0701), the app-reserved namespace: read when the shared place is empty.
 */
export const PICKUP_POINT_NAMESPACE = 'shipping_label';
export const PICKUP_POINT_METAFIELD_KEY = 'pickup_point';

export const ORDER_BY_ID = adminDocument<OrderByIdQuery, OrderByIdQueryVariables>(
  `query OrderById($id: ID!) { order(id: $id) { ...OrderFields } }
${ORDER_FIELDS}`,
  ORDER_OPTIONAL_FIELDS,
);

/** Shopify's search is fuzzy; the adapter keeps only exact names of what it returns. */
export const ORDERS_BY_NAME = adminDocument<OrdersByNameQuery, OrdersByNameQueryVariables>(
  `query OrdersByName($query: String!) {
  orders(first: 10, query: $query) { nodes { ...OrderFields } }
}
${ORDER_FIELDS}`,
  ORDER_OPTIONAL_FIELDS,
);

const LINE_FIELDS = `
fragment LineFields on FulfillmentOrderLineItem {
  id
  sku
  remainingQuantity
  weight { unit value }
  lineItem { discountedUnitPriceAfterAllDiscountsSet { ${money} } }
}`;

/** A fulfillment order closed by this label's fulfilment has it among its few; more than 10 is not ours to match. */
export const FULFILMENTS_PER_FULFILLMENT_ORDER = 10;

/** Pages of 5 fulfillment orders with 20 lines each keep the requested cost well under the 1,000-point query limit. */
export const FULFILLMENT_ORDERS_PAGE_SIZE = 5;
const FULFILLMENT_ORDER_FIELDS = `
fragment FulfillmentOrderFields on FulfillmentOrder {
  id
  status
  assignedLocation { name location { id isFulfillmentService fulfillmentService { serviceName } } }
  deliveryMethod { methodType }
  fulfillmentHolds { id handle reason reasonNotes heldByRequestingApp }
  lineItems(first: 20) { nodes { ...LineFields } pageInfo { hasNextPage endCursor } }
}
${LINE_FIELDS}`;
const FULFILLMENT_ORDERS_PAGE = `fulfillmentOrders(first: ${FULFILLMENT_ORDERS_PAGE_SIZE}, after: $after) {
      nodes { ...FulfillmentOrderFields }
      pageInfo { hasNextPage endCursor }
    }`;
export const FULFILLMENT_ORDERS = adminDocument<
  FulfillmentOrdersQuery,
  FulfillmentOrdersQueryVariables
>(`query FulfillmentOrders($id: ID!, $after: String) {
  order(id: $id) {
    id
    ${FULFILLMENT_ORDERS_PAGE}
  }
}
${FULFILLMENT_ORDER_FIELDS}`);

/**
 * The order and its first page of fulfillment orders in one query (the creation's read of an order by ID); the page
 * under the alias `fulfillmentOrdersPage`, since the order's fields read its first delivery methods under the name.
 */
export const ORDER_WITH_FULFILLMENT_ORDERS = adminDocument<
  OrderWithFulfillmentOrdersQuery,
  OrderWithFulfillmentOrdersQueryVariables
>(
  `query OrderWithFulfillmentOrders($id: ID!, $after: String) {
  order(id: $id) {
    ...OrderFields
    fulfillmentOrdersPage: ${FULFILLMENT_ORDERS_PAGE}
  }
}
${ORDER_FIELDS}
${FULFILLMENT_ORDER_FIELDS}`,
  ORDER_OPTIONAL_FIELDS,
);

/** More lines of one fulfillment order, when it has more than the first page holds. */
export const FULFILLMENT_ORDER_LINES = adminDocument<
  FulfillmentOrderLinesQuery,
  FulfillmentOrderLinesQueryVariables
>(`query FulfillmentOrderLines($id: ID!, $after: String) {
  fulfillmentOrder(id: $id) {
    lineItems(first: 50, after: $after) { nodes { ...LineFields } pageInfo { hasNextPage endCursor } }
  }
}
${LINE_FIELDS}`);

/** The holds of one fulfillment order: what a release needs (hold IDs by handle) and a refused hold's status. */
export const FULFILLMENT_ORDER_HOLDS = adminDocument<
  FulfillmentOrderHoldsQuery,
  FulfillmentOrderHoldsQueryVariables
>(`query FulfillmentOrderHolds($id: ID!) {
  fulfillmentOrder(id: $id) { id status fulfillmentHolds { id handle heldByRequestingApp } }
}`);

/**
 * Each fulfillment order's status, location and fulfilments with their tracking numbers, read before a label's
 * fulfilments (and on every retry): `fulfillmentCreate` takes one location's fulfillment orders per call and no
 * idempotency key, so what an earlier attempt fulfilled is found by the label's tracking number (decision 0715).
 */
export const FULFILLMENT_ORDER_STATES = adminDocument<
  FulfillmentOrderStatesQuery,
  FulfillmentOrderStatesQueryVariables
>(`query FulfillmentOrderStates($ids: [ID!]!) {
  nodes(ids: $ids) {
    ... on FulfillmentOrder {
      id
      status
      assignedLocation { location { id } }
      fulfillments(first: ${FULFILMENTS_PER_FULFILLMENT_ORDER}) { nodes { id status trackingInfo(first: 5) { number } } }
    }
  }
}`);

export const FULFILLMENT_CREATE = adminDocument<
  FulfillmentCreateMutation,
  FulfillmentCreateMutationVariables
>(`mutation FulfillmentCreate($fulfillment: FulfillmentInput!) {
  fulfillmentCreate(fulfillment: $fulfillment) {
    fulfillment { id trackingInfo { number url company } }
    userErrors { field message }
  }
}`);

export const TAGS_ADD = adminDocument<
  TagsAddMutation,
  TagsAddMutationVariables
>(`mutation TagsAdd($id: ID!, $tags: [String!]!) {
  tagsAdd(id: $id, tags: $tags) {
    node { ... on Order { tags } }
    userErrors { field message }
  }
}`);

export const PICKUP_POINT_SET = adminDocument<
  PickupPointSetMutation,
  PickupPointSetMutationVariables
>(`mutation PickupPointSet($metafields: [MetafieldsSetInput!]!) {
  metafieldsSet(metafields: $metafields) {
    metafields { key value }
    userErrors { field message code }
  }
}`);

export const PICKUP_POINT_DEFINITION_CREATE = adminDocument<
  PickupPointDefinitionCreateMutation,
  PickupPointDefinitionCreateMutationVariables
>(`mutation PickupPointDefinitionCreate($definition: MetafieldDefinitionInput!) {
  metafieldDefinitionCreate(definition: $definition) {
    createdDefinition { id }
    userErrors { field message code }
  }
}`);

export const FULFILLMENT_ORDER_HOLD = adminDocument<
  FulfillmentOrderHoldMutation,
  FulfillmentOrderHoldMutationVariables
>(`mutation FulfillmentOrderHold($id: ID!, $hold: FulfillmentOrderHoldInput!) {
  fulfillmentOrderHold(id: $id, fulfillmentHold: $hold) {
    fulfillmentHold { id handle }
    userErrors { field message code }
  }
}`);

export const FULFILLMENT_ORDER_RELEASE_HOLD = adminDocument<
  FulfillmentOrderReleaseHoldMutation,
  FulfillmentOrderReleaseHoldMutationVariables
>(`mutation FulfillmentOrderReleaseHold($id: ID!, $holdIds: [ID!]) {
  fulfillmentOrderReleaseHold(id: $id, holdIds: $holdIds) {
    fulfillmentOrder { id }
    userErrors { field message code }
  }
}`);

/** The access scopes the merchant granted the app's installation (needs no scope itself). */
export const GRANTED_SCOPES = adminDocument<GrantedScopesQuery, GrantedScopesQueryVariables>(`query GrantedScopes {
  currentAppInstallation { accessScopes { handle } }
}`);

/** The shop's name and its owner's e-mail, for a store an install creates (needs no scope). */
export const SHOP_CONTACT = adminDocument<ShopContactQuery, ShopContactQueryVariables>(`query ShopContact {
  shop { name email }
}`);

/** Every document the adapter can send: what the schema tests validate and the types are generated from. */
export const ADMIN_DOCUMENTS = {
  ORDER_BY_ID,
  ORDERS_BY_NAME,
  FULFILLMENT_ORDERS,
  ORDER_WITH_FULFILLMENT_ORDERS,
  FULFILLMENT_ORDER_LINES,
  FULFILLMENT_ORDER_HOLDS,
  FULFILLMENT_ORDER_STATES,
  FULFILLMENT_CREATE,
  TAGS_ADD,
  PICKUP_POINT_SET,
  PICKUP_POINT_DEFINITION_CREATE,
  FULFILLMENT_ORDER_HOLD,
  FULFILLMENT_ORDER_RELEASE_HOLD,
  SHOP_CONTACT,
  GRANTED_SCOPES,
} as const;

import { buildSchema } from 'graphql';

/**
 * The subset of Shopify's Admin GraphQL schema (version 2025-10) the adapter uses, written from Shopify's public API
 * reference with its type, field, argument and enum names: the fake validates the adapter's real documents against it,
 * so a misspelled field, a wrong argument or a bad enum value fails a test the way Shopify refuses the query. Types
 * keep only the fields the adapter reads or a test needs; enums of codes list the ones in the reference. Currency and
 * country enums hold the codes the tests and fixtures use (Shopify's list is every ISO code).
 */
const CURRENCIES = 'BGN CHF CZK DKK EUR GBP HUF NOK PLN RON SEK USD';
const COUNTRIES = 'AT BE BG CH CZ DE DK EE ES FI FR GB GR HR HU IE IT LT LU LV NL NO PL PT RO SE SI SK US XK';

export const SHOPIFY_ADMIN_SDL = `
scalar DateTime
scalar Decimal
scalar UnsignedInt64
scalar URL

interface Node { id: ID! }

type Query {
  order(id: ID!): Order
  orders(first: Int, after: String, last: Int, before: String, query: String, reverse: Boolean = false,
    sortKey: OrderSortKeys = PROCESSED_AT): OrderConnection!
  fulfillmentOrder(id: ID!): FulfillmentOrder
}

type Mutation {
  fulfillmentCreate(fulfillment: FulfillmentInput!, message: String): FulfillmentCreatePayload
  tagsAdd(id: ID!, tags: [String!]!): TagsAddPayload
  metafieldsSet(metafields: [MetafieldsSetInput!]!): MetafieldsSetPayload
  fulfillmentOrderHold(id: ID!, fulfillmentHold: FulfillmentOrderHoldInput!): FulfillmentOrderHoldPayload
  fulfillmentOrderReleaseHold(id: ID!, holdIds: [ID!], externalId: String): FulfillmentOrderReleaseHoldPayload
}

enum OrderSortKeys { CREATED_AT CUSTOMER_NAME FINANCIAL_STATUS FULFILLMENT_STATUS ID NUMBER ORDER_NUMBER PROCESSED_AT RELEVANCE TOTAL_PRICE UPDATED_AT }
enum CurrencyCode { ${CURRENCIES} }
enum CountryCode { ${COUNTRIES} }

type PageInfo { hasNextPage: Boolean! hasPreviousPage: Boolean! startCursor: String endCursor: String }

type Order implements Node {
  id: ID!
  legacyResourceId: UnsignedInt64!
  name: String!
  currencyCode: CurrencyCode!
  presentmentCurrencyCode: CurrencyCode!
  totalPriceSet: MoneyBag!
  subtotalPriceSet: MoneyBag
  totalOutstandingSet: MoneyBag!
  paymentGatewayNames: [String!]!
  metafield(namespace: String, key: String!): Metafield
  shippingAddress: MailingAddress
  phone: String
  email: String
  shippingLine: ShippingLine
  fulfillmentOrders(first: Int, after: String, last: Int, before: String, reverse: Boolean = false,
    displayable: Boolean = false, query: String): FulfillmentOrderConnection!
  tags: [String!]!
  cancelledAt: DateTime
}
type OrderConnection { nodes: [Order!]! edges: [OrderEdge!]! pageInfo: PageInfo! }
type OrderEdge { cursor: String! node: Order! }

type MoneyBag { shopMoney: MoneyV2! presentmentMoney: MoneyV2! }
type MoneyV2 { amount: Decimal! currencyCode: CurrencyCode! }
type Metafield implements Node { id: ID! namespace: String! key: String! value: String! type: String! }
type MailingAddress implements Node {
  id: ID! name: String firstName: String lastName: String company: String address1: String address2: String
  city: String zip: String province: String countryCodeV2: CountryCode latitude: Float longitude: Float phone: String
}
type ShippingLine { id: ID title: String! code: String source: String carrierIdentifier: String }

type FulfillmentOrder implements Node {
  id: ID!
  orderId: ID!
  status: FulfillmentOrderStatus!
  assignedLocation: FulfillmentOrderAssignedLocation!
  deliveryMethod: DeliveryMethod
  fulfillmentHolds: [FulfillmentHold!]!
  lineItems(first: Int, after: String, last: Int, before: String, reverse: Boolean = false): FulfillmentOrderLineItemConnection!
}
type FulfillmentOrderConnection { nodes: [FulfillmentOrder!]! edges: [FulfillmentOrderEdge!]! pageInfo: PageInfo! }
type FulfillmentOrderEdge { cursor: String! node: FulfillmentOrder! }
enum FulfillmentOrderStatus { CANCELLED CLOSED INCOMPLETE IN_PROGRESS ON_HOLD OPEN SCHEDULED }
type FulfillmentOrderAssignedLocation { name: String! location: Location }
type Location implements Node { id: ID! name: String! }
type DeliveryMethod implements Node { id: ID! methodType: DeliveryMethodType! }
enum DeliveryMethodType { LOCAL NONE PICK_UP PICKUP_POINT RETAIL SHIPPING }
type FulfillmentHold implements Node {
  id: ID! handle: String heldByRequestingApp: Boolean! reason: FulfillmentHoldReason! reasonNotes: String
  displayReason: String!
}
enum FulfillmentHoldReason {
  AWAITING_PAYMENT AWAITING_RETURN_ITEMS HIGH_RISK_OF_FRAUD INCORRECT_ADDRESS INVENTORY_OUT_OF_STOCK
  ONLINE_STORE_POST_PURCHASE_CROSS_SELL OTHER UNKNOWN_DELIVERY_DATE
}
type FulfillmentOrderLineItem implements Node {
  id: ID! sku: String totalQuantity: Int! remainingQuantity: Int! weight: Weight lineItem: LineItem! productTitle: String!
}
type FulfillmentOrderLineItemConnection {
  nodes: [FulfillmentOrderLineItem!]! edges: [FulfillmentOrderLineItemEdge!]! pageInfo: PageInfo!
}
type FulfillmentOrderLineItemEdge { cursor: String! node: FulfillmentOrderLineItem! }
type Weight { unit: WeightUnit! value: Float! }
enum WeightUnit { GRAMS KILOGRAMS OUNCES POUNDS }
type LineItem implements Node { id: ID! sku: String quantity: Int! name: String! discountedUnitPriceAfterAllDiscountsSet: MoneyBag! }

input FulfillmentInput {
  lineItemsByFulfillmentOrder: [FulfillmentOrderLineItemsInput!]!
  trackingInfo: FulfillmentTrackingInput
  notifyCustomer: Boolean = false
  originAddress: FulfillmentOriginAddressInput
}
input FulfillmentOrderLineItemsInput { fulfillmentOrderId: ID! fulfillmentOrderLineItems: [FulfillmentOrderLineItemInput!] }
input FulfillmentOrderLineItemInput { id: ID! quantity: Int! }
input FulfillmentTrackingInput { number: String url: URL company: String numbers: [String!] urls: [URL!] }
input FulfillmentOriginAddressInput {
  address1: String address2: String city: String countryCode: String! provinceCode: String zip: String
}
type FulfillmentCreatePayload { fulfillment: Fulfillment userErrors: [UserError!]! }
type Fulfillment implements Node { id: ID! status: FulfillmentStatus! trackingInfo(first: Int): [FulfillmentTrackingInfo!]! }
enum FulfillmentStatus { CANCELLED ERROR FAILURE OPEN PENDING SUCCESS }
type FulfillmentTrackingInfo { number: String url: URL company: String }
type UserError { field: [String!] message: String! }

type TagsAddPayload { node: Node userErrors: [UserError!]! }

input MetafieldsSetInput { ownerId: ID! namespace: String key: String! value: String! type: String compareDigest: String }
type MetafieldsSetPayload { metafields: [Metafield!] userErrors: [MetafieldsSetUserError!]! }
type MetafieldsSetUserError { field: [String!] message: String! code: MetafieldsSetUserErrorCode elementIndex: Int }
enum MetafieldsSetUserErrorCode {
  APP_NOT_AUTHORIZED BLANK CAPABILITY_VIOLATION INCLUSION INTERNAL_ERROR INVALID_COMPARE_DIGEST INVALID_TYPE
  INVALID_VALUE LESS_THAN_OR_EQUAL_TO PRESENT STALE_OBJECT TAKEN TOO_LONG TOO_SHORT
}

input FulfillmentOrderHoldInput {
  reason: FulfillmentHoldReason!
  reasonNotes: String
  notifyMerchant: Boolean = false
  externalId: String
  handle: String
  fulfillmentOrderLineItems: [FulfillmentOrderLineItemInput!] = []
}
type FulfillmentOrderHoldPayload {
  fulfillmentHold: FulfillmentHold
  fulfillmentOrder: FulfillmentOrder
  remainingFulfillmentOrder: FulfillmentOrder
  userErrors: [FulfillmentOrderHoldUserError!]!
}
type FulfillmentOrderHoldUserError { field: [String!] message: String! code: FulfillmentOrderHoldUserErrorCode }
enum FulfillmentOrderHoldUserErrorCode {
  DUPLICATE_FULFILLMENT_HOLD_HANDLE DUPLICATED_FULFILLMENT_ORDER_LINE_ITEMS FULFILLMENT_ORDER_HOLD_LIMIT_REACHED
  FULFILLMENT_ORDER_NOT_FOUND FULFILLMENT_ORDER_NOT_SPLITTABLE GREATER_THAN_ZERO INVALID_LINE_ITEM_QUANTITY TAKEN
}
type FulfillmentOrderReleaseHoldPayload {
  fulfillmentOrder: FulfillmentOrder
  userErrors: [FulfillmentOrderReleaseHoldUserError!]!
}
type FulfillmentOrderReleaseHoldUserError { field: [String!] message: String! code: FulfillmentOrderReleaseHoldUserErrorCode }
enum FulfillmentOrderReleaseHoldUserErrorCode { FULFILLMENT_ORDER_NOT_FOUND INVALID_ACCESS }
`;

export const shopifyAdminSchema = buildSchema(SHOPIFY_ADMIN_SDL);

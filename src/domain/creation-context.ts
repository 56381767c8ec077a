import type { CodRounding } from './carrier-catalog';
import type { Money } from './money';
import type { FulfillmentOrderHolder } from './holders';
import type { DeliveryMethodType, FulfillmentOrderStatus } from './platform-order';
import type {
  CodSource,
  CurrentSet,
  FulfillmentMode,
  LabelCreationStatus,
  LabelKind,
  LabelSource,
  LabelStatus,
} from './labels';

/**
 * Everything `POST /labels` decides from, as one plain, JSON-serializable snapshot: the API's dry run builds it and
 * decides at once; the creation workflow gets it as the result of its "preparing" activity and decides inside the
 * workflow. So: no Date objects (epoch milliseconds), no class instances, no PDFs, nothing the decision does not read.
 * `src/creation/load-context.ts` is the one loader.
 */
export interface CreationContext {
  store: { id: string; domain: string; codRule: { amountSource: 'order_total' | 'outstanding_balance' } | null };
  /** How the order named in the request was found on the store platform. */
  orderLookup: OrderLookup;
  /** The order's fulfillment orders (empty unless the order was found). */
  fulfillmentOrders: ContextFulfillmentOrder[];
  carrierAccounts: ContextCarrierAccount[];
  /** The store's rules, any order; the decision sorts them by priority. */
  rules: ContextRule[];
  /** The order's current outbound labels (the only ones that can block; superseded and failed ones never do). */
  labels: ContextLabel[];
  /** The order's creations that still matter: running, needing attention, abandoned. */
  creations: ContextCreation[];
  /** Who holds the order's fulfillment orders (`src/locks/holders.ts`). */
  holders: FulfillmentOrderHolder[];
  /**
   * The creation deciding, when a live creation decides inside its workflow: its own lock and record are not a
   * reason to wait for itself. Null for dry runs.
   */
  selfCreationId: string | null;
}

export type OrderLookup =
  | { kind: 'found'; order: ContextOrder }
  /** `platform`: where the store's orders live, for the refusal's hint (absent in contexts loaded before it was kept). */
  | { kind: 'not_found'; by: 'id' | 'name'; value: string; platform?: 'sandbox' | 'shopify' }
  | { kind: 'ambiguous'; name: string; matches: number };

export interface ContextAddress {
  name: string;
  company: string | null;
  street: string;
  city: string;
  postcode: string;
  country: string;
}

export interface ContextPickupPoint {
  id: string;
  /** The carrier whose network the point belongs to; null for a store's own (custom provider) point. */
  carrierCode: string | null;
  name: string | null;
  country: string;
}

export interface ContextOrder {
  id: string;
  legacyId: string;
  name: string;
  currency: string;
  totalPrice: Money;
  totalOutstanding: Money;
  paymentGateways: string[];
  /** `namespace.key` -> raw value, as the platform returns them. */
  metafields: Record<string, string>;
  shippingAddress: ContextAddress | null;
  phone: string | null;
  email: string | null;
  deliveryMethod: { type: DeliveryMethodType; title: string | null; pickupPoint: ContextPickupPoint | null };
  tags: string[];
  cancelled: boolean;
}

export interface ContextFulfillmentOrder {
  id: string;
  legacyId: string;
  status: FulfillmentOrderStatus;
  assignedLocationId: string;
  assignedLocationName: string;
  /** The fulfillment service that fulfils it from its location (it ships the parcel itself); null: the merchant. */
  fulfillmentService: string | null;
  /**
   * A hold is on it (an export, the merchant, another app or this service's own): `on_hold` is then the hold, and who
   * holds it decides (`holders`), not a fulfillment order that cannot ship yet. Decision 0705.
   */
  heldOnPlatform: boolean;
  deliveryMethodType: DeliveryMethodType;
  /** Goods value after discounts, in hundredths of the order currency (the COD split weighs by it). */
  goodsValueHundredths: number;
  /** Sum of the line items' weights; null when a line item has no weight. */
  weightGrams: number | null;
  /** Fulfillment orders that replaced this one after an order edit (GIDs). */
  replacedBy: string[];
}

export interface ContextService {
  code: string;
  name: string;
  codSupported: boolean;
  pickupPointRequired: boolean;
}

export interface ContextCarrierAccount {
  id: string;
  carrierCode: string;
  currency: string;
  apiCreation: 'enabled' | 'not_enabled';
  services: ContextService[];
  options: Record<string, { type: 'string' | 'number' | 'boolean'; default: string | number | boolean | null }>;
  declaredValueSupported: boolean;
  codRoundingByCurrency: Record<string, CodRounding>;
  defaultFulfillment: FulfillmentMode;
  sender: { name: string; countryCode: string | null; iban: string | null };
  createdAtMs: number;
  /** When its settings last changed: a change makes every shipment on it a new one for carrier protection. */
  updatedAtMs: number;
}

export interface ContextRuleConditions {
  deliveryMethodTypes?: string[];
  countryCodes?: string[];
  shippingMethodNames?: string[];
  currencies?: string[];
  hasPickupPoint?: boolean;
  codRequired?: boolean;
  tagsAny?: string[];
}

export interface ContextRule {
  id: string;
  priority: number;
  conditions: ContextRuleConditions;
  carrierAccountId: string;
  serviceCode: string;
}

export interface ContextLabel {
  id: string;
  status: LabelStatus;
  kind: LabelKind;
  source: LabelSource | null;
  /** Fulfillment orders covered (GIDs); empty for a whole-order label. */
  fulfillmentOrderIds: string[];
  /** False for an older label recorded without per-fulfillment-order coverage. */
  coverageKnown: boolean;
  currentSet: CurrentSet;
  createdAtMs: number;
  carrierCode: string;
  carrierAccountId: string | null;
  serviceCode: string | null;
  /** As the carrier received it; null when not recorded. */
  cod: { amount: string; currency: string; source: CodSource } | null;
  declaredValue: Money | null;
  weightGrams: number | null;
  labelCreationId: string | null;
}

export interface ContextCreation {
  id: string;
  status: Extract<LabelCreationStatus, 'processing' | 'needs_attention' | 'abandoned'>;
  fulfillmentOrderIds: string[];
  createdAtMs: number;
}

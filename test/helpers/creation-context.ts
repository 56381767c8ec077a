import type {
  ContextCarrierAccount,
  ContextCreation,
  ContextFulfillmentOrder,
  ContextLabel,
  ContextOrder,
  CreationContext,
} from '../../src/domain/creation-context';
import {
  normalizeCreationRequest,
  type CreationRequest,
  type CreationRequestBody,
} from '../../src/domain/creation-request';

/** Builders with overrides for the pure decision tests (no servers). */
// eslint-disable-next-line no-restricted-syntax -- pure: the `nowMs` handed to the decision functions, which read no clock
export const NOW = Date.parse('2026-11-01T12:00:00Z');
export const MINUTE = 60_000;
export const DAY = 86_400_000;

export const czk = (amount: string) => ({ amount, currency: 'CZK' });
export const foGid = (n: number | string) => `gid://shopify/FulfillmentOrder/${n}`;

export function anOrder(overrides: Partial<ContextOrder> = {}): ContextOrder {
  return {
    id: 'gid://shopify/Order/1001',
    legacyId: '1001',
    name: '#1001',
    currency: 'CZK',
    totalPrice: czk('1000.00'),
    totalOutstanding: czk('0.00'),
    paymentGateways: ['card'],
    metafields: {},
    shippingAddress: {
      name: 'Jana',
      company: null,
      street: 'Dlouhá 12',
      city: 'Praha',
      postcode: '110 00',
      country: 'CZ',
    },
    phone: '+420600111222',
    email: 'jana@example.com',
    deliveryMethod: { type: 'shipping', title: 'Standard', pickupPoint: null },
    tags: [],
    cancelled: false,
    ...overrides,
  };
}

export function aFulfillmentOrder(
  n: number,
  overrides: Partial<ContextFulfillmentOrder> = {},
): ContextFulfillmentOrder {
  return {
    id: foGid(n),
    legacyId: String(n),
    status: 'open',
    assignedLocationId: '1',
    assignedLocationName: 'Praha',
    fulfillmentService: null,
    heldOnPlatform: false,
    deliveryMethodType: 'shipping',
    goodsValueHundredths: 100_000,
    weightGrams: 1000,
    replacedBy: [],
    ...overrides,
  };
}

export function anAccount(overrides: Partial<ContextCarrierAccount> = {}): ContextCarrierAccount {
  return {
    id: 'ca_a',
    carrierCode: 'carrier_a',
    currency: 'CZK',
    apiCreation: 'enabled',
    services: [
      { code: 'a_home', name: 'Home', codSupported: true, pickupPointRequired: false },
      { code: 'a_pickup', name: 'Pickup', codSupported: true, pickupPointRequired: true },
    ],
    options: { consign_password: { type: 'boolean', default: false } },
    declaredValueSupported: true,
    codRoundingByCurrency: { CZK: { mode: 'whole' }, HUF: { mode: 'up_to_multiple', multiple: 20 } },
    defaultFulfillment: 'none',
    sender: { name: 'Shop', countryCode: 'CZ', iban: null },
    createdAtMs: NOW - DAY,
    updatedAtMs: NOW - DAY,
    ...overrides,
  };
}

export function aContextLabel(id: string, overrides: Partial<ContextLabel> = {}): ContextLabel {
  return {
    id,
    status: 'ready',
    kind: 'shipment',
    source: 'api',
    fulfillmentOrderIds: [foGid(1)],
    coverageKnown: true,
    currentSet: 'ok',
    createdAtMs: NOW - DAY,
    carrierCode: 'carrier_a',
    carrierAccountId: 'ca_a',
    serviceCode: 'a_home',
    cod: { amount: '0.00', currency: 'CZK', source: 'none' },
    declaredValue: czk('1000.00'),
    weightGrams: 1000,
    labelCreationId: null,
    ...overrides,
  };
}

export function aCreation(id: string, status: ContextCreation['status'], fos = [foGid(1)]): ContextCreation {
  return { id, status, fulfillmentOrderIds: fos, createdAtMs: NOW - DAY };
}

export function aContext(overrides: Partial<CreationContext> & { order?: ContextOrder } = {}): CreationContext {
  const { order, ...rest } = overrides;
  return {
    store: { id: 'st_1', domain: 'shop.example', codRule: null },
    orderLookup: { kind: 'found', order: order ?? anOrder() },
    fulfillmentOrders: [aFulfillmentOrder(1)],
    carrierAccounts: [anAccount()],
    rules: [{ id: 'cr_1', priority: 1, conditions: {}, carrierAccountId: 'ca_a', serviceCode: 'a_home' }],
    labels: [],
    creations: [],
    holders: [],
    selfCreationId: null,
    ...rest,
  };
}

export function aRequest(body: Partial<CreationRequestBody> = {}): CreationRequest {
  return normalizeCreationRequest({ order_id: '1001', ...body });
}

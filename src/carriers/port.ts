import type { PickupPoint as NetworkPickupPoint } from '../domain/pickup-points';
import type { CarrierEndpoint, PageSizeName } from '../domain/carrier-catalog';
import type { Money } from '../domain/money';
import type { PacketaAccountSettings } from './packeta/types';

/**
 * The carrier port: what the label-creation activities need from a carrier, in plain objects. Adapters (one per
 * carrier kind) implement it; nothing here knows about the database or Temporal.
 */

/** Printer the carrier B account prints on; decides the size of its stored label. */
export type PrinterType = 'a6' | 'thermal';

export interface CarrierAccountSettings {
  /** Catalogue code, e.g. `carrier_a`. */
  carrierCode: string;
  /** The account's ID (`ca_...`); the sandbox keys state, faults and the ledger by it. */
  accountId: string;
  /** Account currency: COD and declared value must be in it. */
  currency: string;
  /** Country the account ships from (ISO 3166-1 alpha-2). */
  country: string;
  credentials: { apiKey: string };
  /** Carrier B: bank account the collected COD is paid to. */
  iban?: string | null;
  /** Carrier B: the label size follows the printer type. */
  printerType?: PrinterType | null;
  /** Carrier E: label size set in the carrier's portal. */
  portalLabelSize?: PageSizeName | null;
  /** Carrier A: whom the account's calls go to, the sandbox (default) or Packeta (docs/carriers/packeta.md). */
  endpoint?: CarrierEndpoint;
  /** Carrier A on Packeta: its sealed API password, sender indication and home-delivery carriers. */
  packeta?: PacketaAccountSettings | null;
}

export interface ShipmentAddress {
  street: string;
  city: string;
  postcode: string;
  /** ISO 3166-1 alpha-2. */
  country: string;
}

export interface PickupPoint {
  id: string;
  country: string;
}

export interface ShipmentRequest {
  /** Idempotency reference the service sends along; lets it find a shipment after an unclear create. */
  reference: string;
  /** Order name (`#1001`); carrier B builds its variable symbol from its digits. */
  orderName: string;
  serviceCode: string;
  recipient: { name: string; company?: string | null };
  address: ShipmentAddress;
  phone: string | null;
  email: string | null;
  pickupPoint: PickupPoint | null;
  weightGrams: number;
  cod: Money | null;
  declaredValue: Money | null;
  options: Record<string, string | number | boolean>;
}

export interface LabelDocument {
  pdf: Uint8Array;
  pageSize: PageSizeName;
  pages: number;
}

/**
 * `pending`: the carrier has not assigned the shipment number yet (carrier B batch). `draft`: carrier D holds an
 * unprinted draft left by an unclear create; it becomes a shipment only once printed.
 */
export type ShipmentStatus = 'pending' | 'ready' | 'draft';

export interface ShipmentResult {
  /** `pending` until the carrier assigns the shipment number (carrier B batch completion). */
  status: ShipmentStatus;
  /** The carrier's own ID of the shipment (packet ID, batch ID, parcel ID, parcel number). */
  shipmentId: string;
  /** What a person looks for in the carrier's portal (spec: attention.carrier_reference). */
  carrierReference: string;
  trackingNumber: string | null;
  trackingUrl: string | null;
  barcode: string | null;
  /** COD exactly as the carrier received it, after its rounding. */
  cod: Money | null;
  declaredValue: Money | null;
  /** Carrier-specific values; carrier A: `consign_password`. */
  extras: Record<string, string>;
  /** Set when the carrier returns the PDF with the shipment. */
  document: LabelDocument | null;
}

export interface ClaimRequest {
  reference: string;
  orderName: string;
  /** Tracking number or packet ID of the outbound shipment being returned. */
  originalShipmentId: string;
  email: string | null;
  phone: string | null;
  /** The returned goods' value (Packeta insures the return packet for it). */
  value: Money;
  /** ISO 3166-1 alpha-2: where the customer hands the return in, and the language of the notice. */
  consignCountry: string;
}

export interface ClaimResult {
  claimId: string;
  trackingNumber: string;
  /** Carrier A: `consign_password`, what the customer says at the pickup point instead of printing a label. */
  extras: Record<string, string>;
}

export interface CarrierPort {
  /** Books one shipment. Throws CarrierRejectedError, CarrierTimeoutError (outcome unknown) or CarrierUnavailableError. */
  createShipment(account: CarrierAccountSettings, request: ShipmentRequest): Promise<ShipmentResult>;
  /** Current state of a shipment (carrier B: `pending` until the batch completes). Throws ImportRejectedError. */
  getShipment(account: CarrierAccountSettings, shipmentId: string): Promise<ShipmentResult>;
  /** Looks a shipment up by the service's reference after an unclear create; `null` when the carrier has none. */
  findShipmentByReference(account: CarrierAccountSettings, reference: string): Promise<ShipmentResult | null>;
  /**
   * The label PDF: the stored copy or a side-effect-free render. Throws LabelNotReissuableError,
   * DocumentNotSupportedError (excluded carriers) or CarrierUnavailableError('render_error').
   */
  fetchLabel(account: CarrierAccountSettings, shipmentId: string): Promise<LabelDocument>;
}

export interface PickupPointSearch {
  latitude: number;
  longitude: number;
  /** ISO 3166-1 alpha-2: points in this country only. */
  countryCode: string;
  limit: number;
}

/** Carriers with a pickup-point network of their own (catalogue `pickupNetwork`: A, C and D). */
export interface PickupNetworkPort {
  /** The nearest points, nearest first. Throws CarrierTimeoutError or CarrierUnavailableError. */
  searchPickupPoints: (account: CarrierAccountSettings, search: PickupPointSearch) => Promise<NetworkPickupPoint[]>;
  /** One point by the carrier's own ID; `null` when the network has none. */
  findPickupPoint: (account: CarrierAccountSettings, pointId: string) => Promise<NetworkPickupPoint | null>;
}

export function hasPickupNetwork(port: CarrierPort): port is CarrierPort & PickupNetworkPort {
  const candidate = port as Partial<PickupNetworkPort>;
  return typeof candidate.searchPickupPoints === 'function' && typeof candidate.findPickupPoint === 'function';
}

/** Carrier A alone takes customer-return claims. */
export interface ClaimCapableCarrierPort extends CarrierPort {
  createClaim(account: CarrierAccountSettings, request: ClaimRequest): Promise<ClaimResult>;
}

/** The reasons of the spec's `carrier_rejected`. */
export const CARRIER_REJECTION_REASONS = [
  'address_invalid',
  'postcode_invalid',
  'service_not_available',
  'weight_out_of_range',
  'cod_limit',
  'pickup_point_invalid',
  'credentials_invalid',
  'account_not_permitted',
  'other',
] as const;
export type CarrierRejectionReason = (typeof CARRIER_REJECTION_REASONS)[number];

/** The carrier refused; no shipment exists. `carrierText` is kept for logs, never returned to API clients. */
export class CarrierRejectedError extends Error {
  override readonly name = 'CarrierRejectedError';
  constructor(
    readonly reason: CarrierRejectionReason,
    readonly carrierText: string,
  ) {
    super(`carrier rejected the shipment: ${reason}`);
  }
}

/** No answer in time: the shipment may or may not exist (spec attention reason `carrier_timeout`). */
export class CarrierTimeoutError extends Error {
  override readonly name = 'CarrierTimeoutError';
  constructor(readonly operation: string) {
    super(`carrier did not answer ${operation} in time`);
  }
}

export type CarrierUnavailableReason = 'carrier_error' | 'render_error' | 'timeout';

/** The carrier answered with a server error: for a create, the outcome is unknown (attention reason `carrier_error`). */
export class CarrierUnavailableError extends Error {
  override readonly name = 'CarrierUnavailableError';
  constructor(
    readonly reason: CarrierUnavailableReason,
    readonly status: number | null,
  ) {
    super(`carrier unavailable: ${reason}${status === null ? '' : ` (HTTP ${status})`}`);
  }
}

/**
 * The carrier offers no way to find a shipment by the service's reference (Packeta: no documented call finds a packet
 * by anything but its ID). After an unclear create the outcome stays unknown until a person resolves the creation.
 */
export class ReferenceLookupUnsupportedError extends Error {
  override readonly name = 'ReferenceLookupUnsupportedError';
  constructor(readonly carrier: string) {
    super(`${carrier} cannot find a shipment by the service's reference`);
  }
}

/** Carrier B refused the shipment at import after accepting the batch (label failure `carrier_import_rejected`). */
export class ImportRejectedError extends Error {
  override readonly name = 'ImportRejectedError';
  constructor(
    readonly batchId: string,
    readonly carrierText: string,
  ) {
    super(`carrier refused batch ${batchId} at import`);
  }
}

/** No stored copy and no side-effect-free print call (410 label_not_reissuable). */
export class LabelNotReissuableError extends Error {
  override readonly name = 'LabelNotReissuableError';
  constructor(readonly shipmentId: string) {
    super(`label of ${shipmentId} cannot be issued again`);
  }
}

/** Excluded carriers: the API never serves their documents (422 document_unavailable, carrier_excluded). */
export class DocumentNotSupportedError extends Error {
  override readonly name = 'DocumentNotSupportedError';
  constructor(readonly carrierCode: string) {
    super(`${carrierCode} documents are not served`);
  }
}

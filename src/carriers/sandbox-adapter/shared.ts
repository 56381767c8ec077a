import { describePdf } from '../../pdf/inspect';
import type { CarrierAccountSettings, LabelDocument, ShipmentRequest, ShipmentResult } from '../port';
import { callCarrier, type CarrierCall, type CarrierHttpOptions, type CarrierHttpResponse } from './http-client';
import type { SimulatorShipment } from '../sandbox-api/shipment-body';

/** The sandbox shipment body (snake_case) from the port's request and the account's settings. */
export function toSimulatorBody(account: CarrierAccountSettings, request: ShipmentRequest): SimulatorShipment {
  return {
    reference: request.reference,
    order_name: request.orderName,
    service_code: request.serviceCode,
    recipient: { name: request.recipient.name, company: request.recipient.company ?? null },
    address: request.address,
    phone: request.phone,
    email: request.email,
    pickup_point: request.pickupPoint,
    weight_grams: request.weightGrams,
    cod: request.cod,
    declared_value: request.declaredValue,
    options: request.options,
    sender_country: account.country,
    iban: account.iban ?? null,
    printer_type: account.printerType ?? null,
  };
}

/** Wraps PDF bytes with the size and page count read from the PDF itself. */
export async function labelDocument(bytes: Uint8Array): Promise<LabelDocument> {
  const { pages, pageSize } = await describePdf(bytes);
  if (!pageSize) throw new Error('carrier PDF has a page size outside the catalogue');
  return { pdf: bytes, pages, pageSize };
}

export const accountPath = (prefix: string, account: CarrierAccountSettings) =>
  `${prefix}/accounts/${encodeURIComponent(account.accountId)}`;

/** The calls of one carrier's adapter: each carries the carrier code and the account's key. */
export function carrierCaller(http: CarrierHttpOptions, carrierCode: string) {
  return (
    account: CarrierAccountSettings,
    call: Omit<CarrierCall, 'carrierCode' | 'apiKey'>,
  ): Promise<CarrierHttpResponse> => callCarrier(http, { carrierCode, apiKey: account.credentials.apiKey, ...call });
}

/** The fields every carrier maps; the rest default as most carriers have them. */
type MappedShipment = Pick<ShipmentResult, 'shipmentId' | 'trackingNumber' | 'trackingUrl' | 'cod'> &
  Partial<Pick<ShipmentResult, 'status' | 'barcode' | 'declaredValue' | 'extras' | 'document'>>;

/**
 * A port result from a carrier's mapped fields: ready, found in the portal by its shipment ID, the tracking number
 * as barcode, no declared value, no extras and no PDF unless the carrier says otherwise.
 */
export function shipmentResult(s: MappedShipment): ShipmentResult {
  return {
    status: s.status ?? 'ready',
    shipmentId: s.shipmentId,
    carrierReference: s.shipmentId,
    trackingNumber: s.trackingNumber,
    trackingUrl: s.trackingUrl,
    barcode: s.barcode ?? s.trackingNumber,
    cod: s.cod,
    declaredValue: s.declaredValue ?? null,
    extras: s.extras ?? {},
    document: s.document ?? null,
  };
}

/** The PDF a carrier hands out with the shipment (base64 in its answer), if it did. */
export async function storedDocument(base64: string | undefined): Promise<LabelDocument | null> {
  return base64 ? labelDocument(Buffer.from(base64, 'base64')) : null;
}

import { CARRIERS } from '../catalog';
import {
  DocumentNotSupportedError,
  LabelNotReissuableError,
  type CarrierAccountSettings,
  type CarrierPort,
  type LabelDocument,
  type Money,
  type ShipmentRequest,
  type ShipmentResult,
} from '../port';
import type { CarrierHttpOptions } from './http-client';
import { labelDocument, toSimulatorBody, carrierCaller } from './shared';

interface Shipment {
  shipment_id: string;
  tracking_number: string;
  tracking_url: string;
  cod: Money | null;
  label_pdf_base64?: string;
}

/**
 * The catalogue's other carriers, by document mode: `render` (carrier E) prints on demand through a call without
 * side effects; `stored_only` (F to H) hands the PDF out once with the shipment and cannot issue it again;
 * `excluded` never has a document served.
 */
export class GenericCarrierAdapter implements CarrierPort {
  private readonly call: ReturnType<typeof carrierCaller>;

  constructor(
    private readonly code: string,
    http: CarrierHttpOptions,
  ) {
    if (!CARRIERS[code]) throw new Error(`unknown carrier ${code}`);
    this.call = carrierCaller(http, code);
  }

  private base(account: CarrierAccountSettings) {
    return `/carriers/${this.code}/accounts/${encodeURIComponent(account.accountId)}`;
  }

  private async toResult(s: Shipment): Promise<ShipmentResult> {
    return {
      status: 'ready',
      shipmentId: s.shipment_id,
      carrierReference: s.shipment_id,
      trackingNumber: s.tracking_number,
      trackingUrl: s.tracking_url,
      barcode: s.tracking_number,
      cod: s.cod,
      declaredValue: null,
      extras: {},
      document: s.label_pdf_base64 ? await labelDocument(Buffer.from(s.label_pdf_base64, 'base64')) : null,
    };
  }

  async createShipment(account: CarrierAccountSettings, request: ShipmentRequest): Promise<ShipmentResult> {
    const response = await this.call(account, {
      method: 'POST',
      path: `${this.base(account)}/shipments`,
      body: toSimulatorBody(account, request),
      operation: 'create',
    });
    return this.toResult(response.json<Shipment>());
  }

  async getShipment(account: CarrierAccountSettings, shipmentId: string): Promise<ShipmentResult> {
    const response = await this.call(account, {
      method: 'GET',
      path: `${this.base(account)}/shipments/${encodeURIComponent(shipmentId)}`,
      operation: 'status',
    });
    if (response.status === 404) throw new Error(`${this.code} has no shipment ${shipmentId}`);
    return this.toResult(response.json<Shipment>());
  }

  async findShipmentByReference(account: CarrierAccountSettings, reference: string): Promise<ShipmentResult | null> {
    const response = await this.call(account, {
      method: 'GET',
      path: `${this.base(account)}/shipments?reference=${encodeURIComponent(reference)}`,
      operation: 'lookup',
    });
    const shipment = response.json<{ shipments: Shipment[] }>().shipments[0];
    return shipment ? this.toResult(shipment) : null;
  }

  async fetchLabel(account: CarrierAccountSettings, shipmentId: string): Promise<LabelDocument> {
    const mode = CARRIERS[this.code]!.documentMode;
    if (mode === 'excluded') throw new DocumentNotSupportedError(this.code);
    if (mode !== 'render') throw new LabelNotReissuableError(shipmentId);
    const size = account.portalLabelSize ?? 'A6';
    const response = await this.call(account, {
      method: 'GET',
      path: `${this.base(account)}/shipments/${encodeURIComponent(shipmentId)}/print?label_size=${encodeURIComponent(size)}`,
      operation: 'label',
    });
    if (response.status !== 200) throw new Error(`${this.code} has no shipment ${shipmentId}`);
    return labelDocument(response.bytes);
  }
}

import {
  ImportRejectedError,
  type CarrierAccountSettings,
  type CarrierPort,
  type LabelDocument,
  type Money,
  type ShipmentRequest,
  type ShipmentResult,
} from '../port';
import type { CarrierHttpOptions } from './http-client';
import { accountPath, labelDocument, toSimulatorBody, carrierCaller } from './shared';

interface Batch {
  batch_id: string;
  status: 'processing' | 'completed' | 'rejected';
  shipment_number: string | null;
  tracking_url: string | null;
  variable_symbol: string | null;
  cod: Money | null;
  rejection_text: string | null;
}

function toResult(b: Batch): ShipmentResult {
  if (b.status === 'rejected') throw new ImportRejectedError(b.batch_id, b.rejection_text ?? 'refused at import');
  return {
    status: b.status === 'completed' ? 'ready' : 'pending',
    shipmentId: b.batch_id,
    carrierReference: b.batch_id,
    trackingNumber: b.shipment_number,
    trackingUrl: b.tracking_url,
    barcode: b.shipment_number,
    cod: b.cod,
    declaredValue: null,
    extras: {},
    document: null,
  };
}

/**
 * Carrier B: a create returns `pending` with the batch ID; `getShipment` turns `ready` once the batch completed, or
 * throws ImportRejectedError when the carrier refused it at import after accepting.
 */
export class CarrierBAdapter implements CarrierPort {
  private readonly code = 'carrier_b';
  private readonly call: ReturnType<typeof carrierCaller>;

  constructor(http: CarrierHttpOptions) {
    this.call = carrierCaller(http, this.code);
  }

  private base(account: CarrierAccountSettings) {
    return accountPath('/carrier-b', account);
  }

  async createShipment(account: CarrierAccountSettings, request: ShipmentRequest): Promise<ShipmentResult> {
    const response = await this.call(account, {
      method: 'POST',
      path: `${this.base(account)}/batches`,
      body: toSimulatorBody(account, request),
      operation: 'create',
    });
    return toResult(response.json<Batch>());
  }

  async getShipment(account: CarrierAccountSettings, shipmentId: string): Promise<ShipmentResult> {
    const response = await this.call(account, {
      method: 'GET',
      path: `${this.base(account)}/batches/${encodeURIComponent(shipmentId)}`,
      operation: 'status',
    });
    if (response.status === 404) throw new Error(`carrier B has no batch ${shipmentId}`);
    return toResult(response.json<Batch>());
  }

  async findShipmentByReference(account: CarrierAccountSettings, reference: string): Promise<ShipmentResult | null> {
    const response = await this.call(account, {
      method: 'GET',
      path: `${this.base(account)}/batches?reference=${encodeURIComponent(reference)}`,
      operation: 'lookup',
    });
    const batch = response.json<{ batches: Batch[] }>().batches[0];
    return batch ? toResult(batch) : null;
  }

  async fetchLabel(account: CarrierAccountSettings, shipmentId: string): Promise<LabelDocument> {
    const response = await this.call(account, {
      method: 'GET',
      path: `${this.base(account)}/batches/${encodeURIComponent(shipmentId)}/label.pdf`,
      operation: 'label',
    });
    if (response.status !== 200)
      throw new Error(`carrier B has no label for batch ${shipmentId} yet (HTTP ${response.status})`);
    return labelDocument(response.bytes);
  }
}

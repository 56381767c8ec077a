import type {
  CarrierAccountSettings,
  CarrierPort,
  LabelDocument,
  PickupNetworkPort,
  Money,
  ShipmentRequest,
  ShipmentResult,
} from '../port';
import type { CarrierHttpOptions } from './http-client';
import { pickupNetworkCalls } from './pickup-network';
import { accountPath, labelDocument, toSimulatorBody, carrierCaller } from './shared';

interface Parcel {
  parcel_id: string;
  tracking_number: string;
  tracking_url: string;
  cod: Money | null;
  label_pdf_base64?: string;
}

async function toResult(p: Parcel): Promise<ShipmentResult> {
  return {
    status: 'ready',
    shipmentId: p.parcel_id,
    carrierReference: p.parcel_id,
    trackingNumber: p.tracking_number,
    trackingUrl: p.tracking_url,
    barcode: p.tracking_number,
    cod: p.cod,
    declaredValue: null,
    extras: {},
    document: p.label_pdf_base64 ? await labelDocument(Buffer.from(p.label_pdf_base64, 'base64')) : null,
  };
}

/** Carrier C: the PDF comes with the shipment, so `document` is set on create. */
export class CarrierCAdapter implements CarrierPort, PickupNetworkPort {
  private readonly code = 'carrier_c';
  private readonly call: ReturnType<typeof carrierCaller>;
  readonly searchPickupPoints: PickupNetworkPort['searchPickupPoints'];
  readonly findPickupPoint: PickupNetworkPort['findPickupPoint'];

  constructor(http: CarrierHttpOptions) {
    this.call = carrierCaller(http, this.code);
    const network = pickupNetworkCalls(this.call, (account) => this.base(account), 'parcelshops');
    this.searchPickupPoints = network.searchPickupPoints;
    this.findPickupPoint = network.findPickupPoint;
  }

  private base(account: CarrierAccountSettings) {
    return accountPath('/carrier-c', account);
  }

  async createShipment(account: CarrierAccountSettings, request: ShipmentRequest): Promise<ShipmentResult> {
    const response = await this.call(account, {
      method: 'POST',
      path: `${this.base(account)}/parcels`,
      body: toSimulatorBody(account, request),
      operation: 'create',
    });
    return toResult(response.json<Parcel>());
  }

  async getShipment(account: CarrierAccountSettings, shipmentId: string): Promise<ShipmentResult> {
    const response = await this.call(account, {
      method: 'GET',
      path: `${this.base(account)}/parcels/${encodeURIComponent(shipmentId)}`,
      operation: 'status',
    });
    if (response.status === 404) throw new Error(`carrier C has no parcel ${shipmentId}`);
    return toResult(response.json<Parcel>());
  }

  async findShipmentByReference(account: CarrierAccountSettings, reference: string): Promise<ShipmentResult | null> {
    const response = await this.call(account, {
      method: 'GET',
      path: `${this.base(account)}/parcels?reference=${encodeURIComponent(reference)}`,
      operation: 'lookup',
    });
    const parcel = response.json<{ parcels: Parcel[] }>().parcels[0];
    return parcel ? toResult(parcel) : null;
  }

  async fetchLabel(account: CarrierAccountSettings, shipmentId: string): Promise<LabelDocument> {
    const response = await this.call(account, {
      method: 'GET',
      path: `${this.base(account)}/parcels/${encodeURIComponent(shipmentId)}/label.pdf`,
      operation: 'label',
    });
    if (response.status !== 200) throw new Error(`carrier C has no label for ${shipmentId}`);
    return labelDocument(response.bytes);
  }
}

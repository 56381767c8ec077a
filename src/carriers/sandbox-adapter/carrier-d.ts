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
  parcel_number: string;
  state: 'draft' | 'printed';
  tracking_number: string | null;
  tracking_url: string | null;
  cod: Money | null;
}

function toResult(p: Parcel, document: LabelDocument | null): ShipmentResult {
  return {
    status: p.state === 'draft' ? 'draft' : 'ready',
    shipmentId: p.parcel_number,
    carrierReference: p.parcel_number,
    trackingNumber: p.tracking_number,
    trackingUrl: p.tracking_url,
    barcode: p.tracking_number,
    cod: p.cod,
    declaredValue: null,
    extras: {},
    document,
  };
}

/**
 * Carrier D: create makes a draft, print turns it into a shipment and returns the roll label. If the print call
 * fails the draft stays behind; `findShipmentByReference` then answers status `draft`.
 */
export class CarrierDAdapter implements CarrierPort, PickupNetworkPort {
  private readonly code = 'carrier_d';
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
    return accountPath('/carrier-d', account);
  }

  async createShipment(account: CarrierAccountSettings, request: ShipmentRequest): Promise<ShipmentResult> {
    const created = await this.call(account, {
      method: 'POST',
      path: `${this.base(account)}/parcels`,
      body: toSimulatorBody(account, request),
      operation: 'create',
    });
    const draft = created.json<Parcel>();
    const document = await this.fetchLabel(account, draft.parcel_number);
    return this.getShipment(account, draft.parcel_number).then((printed) => ({ ...printed, document }));
  }

  async getShipment(account: CarrierAccountSettings, shipmentId: string): Promise<ShipmentResult> {
    const response = await this.call(account, {
      method: 'GET',
      path: `${this.base(account)}/parcels/${encodeURIComponent(shipmentId)}`,
      operation: 'status',
    });
    if (response.status === 404) throw new Error(`carrier D has no parcel ${shipmentId}`);
    return toResult(response.json<Parcel>(), null);
  }

  async findShipmentByReference(account: CarrierAccountSettings, reference: string): Promise<ShipmentResult | null> {
    const response = await this.call(account, {
      method: 'GET',
      path: `${this.base(account)}/parcels?reference=${encodeURIComponent(reference)}`,
      operation: 'lookup',
    });
    const parcel = response.json<{ parcels: Parcel[] }>().parcels[0];
    return parcel ? toResult(parcel, null) : null;
  }

  /** Printing finalizes a draft; for a printed parcel it returns the same stored label again. */
  async fetchLabel(account: CarrierAccountSettings, shipmentId: string): Promise<LabelDocument> {
    const response = await this.call(account, {
      method: 'POST',
      path: `${this.base(account)}/parcels/${encodeURIComponent(shipmentId)}/print`,
      operation: 'label',
    });
    if (response.status !== 200) throw new Error(`carrier D has no parcel ${shipmentId}`);
    return labelDocument(response.bytes);
  }
}

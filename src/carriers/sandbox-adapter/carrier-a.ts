import type {
  CarrierAccountSettings,
  ClaimCapableCarrierPort,
  ClaimRequest,
  ClaimResult,
  LabelDocument,
  PickupNetworkPort,
  Money,
  ShipmentRequest,
  ShipmentResult,
} from '../port';
import type { CarrierHttpOptions } from './http-client';
import { pickupNetworkCalls } from './pickup-network';
import { accountPath, labelDocument, toSimulatorBody, carrierCaller } from './shared';

interface Packet {
  packet_id: string;
  barcode: string;
  tracking_number: string;
  tracking_url: string;
  cod: Money | null;
  declared_value: Money | null;
  consign_password: string | null;
}

function toResult(p: Packet): ShipmentResult {
  return {
    status: 'ready',
    shipmentId: p.packet_id,
    carrierReference: p.packet_id,
    trackingNumber: p.tracking_number,
    trackingUrl: p.tracking_url,
    barcode: p.barcode,
    cod: p.cod,
    declaredValue: p.declared_value,
    extras: p.consign_password ? { consign_password: p.consign_password } : {},
    document: null,
  };
}

/** Carrier A: packets; the stored A6 label is fetched separately, so `document` stays null on create. */
export class CarrierAAdapter implements ClaimCapableCarrierPort, PickupNetworkPort {
  private readonly code = 'carrier_a';
  private readonly call: ReturnType<typeof carrierCaller>;
  readonly searchPickupPoints: PickupNetworkPort['searchPickupPoints'];
  readonly findPickupPoint: PickupNetworkPort['findPickupPoint'];

  constructor(http: CarrierHttpOptions) {
    this.call = carrierCaller(http, this.code);
    const network = pickupNetworkCalls(this.call, (account) => this.base(account), 'pickup-points');
    this.searchPickupPoints = network.searchPickupPoints;
    this.findPickupPoint = network.findPickupPoint;
  }

  private base(account: CarrierAccountSettings) {
    return accountPath('/carrier-a', account);
  }

  async createShipment(account: CarrierAccountSettings, request: ShipmentRequest): Promise<ShipmentResult> {
    const response = await this.call(account, {
      method: 'POST',
      path: `${this.base(account)}/packets`,
      body: toSimulatorBody(account, request),
      operation: 'create',
    });
    return toResult(response.json<Packet>());
  }

  async getShipment(account: CarrierAccountSettings, shipmentId: string): Promise<ShipmentResult> {
    const response = await this.call(account, {
      method: 'GET',
      path: `${this.base(account)}/packets/${encodeURIComponent(shipmentId)}`,
      operation: 'status',
    });
    if (response.status === 404) throw new Error(`carrier A has no packet ${shipmentId}`);
    return toResult(response.json<Packet>());
  }

  async findShipmentByReference(account: CarrierAccountSettings, reference: string): Promise<ShipmentResult | null> {
    const response = await this.call(account, {
      method: 'GET',
      path: `${this.base(account)}/packets?reference=${encodeURIComponent(reference)}`,
      operation: 'lookup',
    });
    const packet = response.json<{ packets: Packet[] }>().packets[0];
    return packet ? toResult(packet) : null;
  }

  async fetchLabel(account: CarrierAccountSettings, shipmentId: string): Promise<LabelDocument> {
    const response = await this.call(account, {
      method: 'GET',
      path: `${this.base(account)}/packets/${encodeURIComponent(shipmentId)}/label.pdf`,
      operation: 'label',
    });
    if (response.status !== 200) throw new Error(`carrier A has no label for ${shipmentId}`);
    return labelDocument(response.bytes);
  }

  async createClaim(account: CarrierAccountSettings, request: ClaimRequest): Promise<ClaimResult> {
    const response = await this.call(account, {
      method: 'POST',
      path: `${this.base(account)}/claims`,
      body: {
        reference: request.reference,
        order_name: request.orderName,
        original_packet_id: request.originalShipmentId,
        email: request.email,
      },
      operation: 'claim',
    });
    if (response.status === 404) throw new Error(`carrier A has no packet ${request.originalShipmentId}`);
    const claim = response.json<{ claim_id: string; tracking_number: string }>();
    return { claimId: claim.claim_id, trackingNumber: claim.tracking_number };
  }
}

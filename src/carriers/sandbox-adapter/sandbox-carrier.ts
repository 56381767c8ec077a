import type {
  CarrierAccountSettings,
  CarrierPort,
  LabelDocument,
  PickupNetworkPort,
  ShipmentRequest,
  ShipmentResult,
} from '../port';
import type { CarrierHttpOptions } from './http-client';
import { pickupNetworkCalls } from './pickup-network';
import { accountPath, carrierCaller, labelDocument, toSimulatorBody } from './shared';

/** The label PDF's call, relative to the shipment (`{collection}/{id}/{path}`). */
export interface LabelCall {
  method: 'GET' | 'POST';
  path: string;
}

/**
 * What sets one simulated carrier apart: its paths, its wire shape and its quirks. `SandboxCarrierAdapter` does the
 * rest (the calls, the port's error mapping through http-client.ts), so a carrier is one mapper over `Wire`, the
 * shipment as the carrier sends it.
 */
export interface CarrierMapper<Wire> {
  /** Catalogue code; the refusal table and the account's key go by it. */
  code: string;
  /** The carrier's root in the sandbox, before `/accounts/{account}`. */
  prefix: string;
  /** The shipments under the account; a reference lookup lists them under the same key. */
  collection: string;
  /** The pickup-point collection under the account, for a carrier with a network of its own. */
  pickupPoints?: string;
  toResult(wire: Wire): ShipmentResult | Promise<ShipmentResult>;
  /** May throw before any call, when the carrier cannot issue the label again. */
  labelCall(account: CarrierAccountSettings, shipmentId: string): LabelCall;
  /** What a create answer becomes when it is not the shipment yet (carrier D prints its draft here). */
  completeCreate?(port: CarrierPort, account: CarrierAccountSettings, created: Wire): Promise<ShipmentResult>;
}

/** The carrier port over the sandbox, for the carrier `mapper` describes. */
export class SandboxCarrierAdapter<Wire> implements CarrierPort {
  protected readonly call: ReturnType<typeof carrierCaller>;
  /** Set only for a carrier with a pickup-point network (`hasPickupNetwork` reads them). */
  readonly searchPickupPoints?: PickupNetworkPort['searchPickupPoints'];
  readonly findPickupPoint?: PickupNetworkPort['findPickupPoint'];

  constructor(
    private readonly mapper: CarrierMapper<Wire>,
    http: CarrierHttpOptions,
  ) {
    this.call = carrierCaller(http, mapper.code);
    if (mapper.pickupPoints) {
      const network = pickupNetworkCalls(this.call, (account) => this.base(account), mapper.pickupPoints);
      this.searchPickupPoints = network.searchPickupPoints;
      this.findPickupPoint = network.findPickupPoint;
    }
  }

  protected base(account: CarrierAccountSettings): string {
    return accountPath(this.mapper.prefix, account);
  }

  private shipments(account: CarrierAccountSettings): string {
    return `${this.base(account)}/${this.mapper.collection}`;
  }

  async createShipment(account: CarrierAccountSettings, request: ShipmentRequest): Promise<ShipmentResult> {
    const response = await this.call(account, {
      method: 'POST',
      path: this.shipments(account),
      body: toSimulatorBody(account, request),
      operation: 'create',
    });
    const created = response.json<Wire>();
    if (this.mapper.completeCreate) return this.mapper.completeCreate(this, account, created);
    return this.mapper.toResult(created);
  }

  async getShipment(account: CarrierAccountSettings, shipmentId: string): Promise<ShipmentResult> {
    const response = await this.call(account, {
      method: 'GET',
      path: `${this.shipments(account)}/${encodeURIComponent(shipmentId)}`,
      operation: 'status',
    });
    if (response.status === 404) throw new Error(`${this.mapper.code} has no ${this.mapper.collection}/${shipmentId}`);
    return this.mapper.toResult(response.json<Wire>());
  }

  async findShipmentByReference(account: CarrierAccountSettings, reference: string): Promise<ShipmentResult | null> {
    const response = await this.call(account, {
      method: 'GET',
      path: `${this.shipments(account)}?reference=${encodeURIComponent(reference)}`,
      operation: 'lookup',
    });
    const { code, collection } = this.mapper;
    const listed = response.json<Record<string, Wire[] | undefined>>()[collection];
    // A malformed answer must not read as "no shipment": after an unclear create that would book a second one.
    if (!listed) throw new Error(`${code} answered a lookup without ${collection}`);
    return listed[0] ? this.mapper.toResult(listed[0]) : null;
  }

  async fetchLabel(account: CarrierAccountSettings, shipmentId: string): Promise<LabelDocument> {
    const label = this.mapper.labelCall(account, shipmentId);
    const response = await this.call(account, {
      method: label.method,
      path: `${this.shipments(account)}/${encodeURIComponent(shipmentId)}/${label.path}`,
      operation: 'label',
    });
    if (response.status !== 200) {
      const where = `${this.mapper.collection}/${shipmentId}/${label.path}`;
      throw new Error(`${this.mapper.code} has no label at ${where} (HTTP ${response.status})`);
    }
    return labelDocument(response.bytes);
  }
}

import type { CarrierEndpoint } from '../domain/carrier-catalog';
import { PacketaAdapter, type PacketaAdapterOptions } from './packeta/adapter';
import {
  hasPickupNetwork,
  type CarrierAccountSettings,
  type CarrierPort,
  type ClaimCapableCarrierPort,
  type PickupNetworkPort,
} from './port';

type OtherEndpoint = Exclude<CarrierEndpoint, 'sandbox'>;

/**
 * The adapters of the endpoints besides the sandbox, one line each: how the rest of the service learns of Packeta.
 * A carrier account picks one by its `endpoint` setting (docs/carriers/packeta.md).
 */
export const ENDPOINT_ADAPTERS: Record<OtherEndpoint, (options: PacketaAdapterOptions) => CarrierPort> = {
  packeta: (options) => new PacketaAdapter(options),
};

const isClaimCapable = (port: CarrierPort): port is ClaimCapableCarrierPort =>
  typeof (port as Partial<ClaimCapableCarrierPort>).createClaim === 'function';

/**
 * One carrier's port over its endpoints: each call goes to the adapter of the account's endpoint. It offers the
 * claim and pickup-network calls the sandbox adapter offers, so `hasPickupNetwork` answers as before.
 */
export class EndpointRoutedCarrier implements CarrierPort {
  readonly searchPickupPoints?: PickupNetworkPort['searchPickupPoints'];
  readonly findPickupPoint?: PickupNetworkPort['findPickupPoint'];
  readonly createClaim?: ClaimCapableCarrierPort['createClaim'];

  constructor(
    private readonly sandbox: CarrierPort,
    private readonly others: Partial<Record<OtherEndpoint, CarrierPort>>,
  ) {
    if (hasPickupNetwork(sandbox)) {
      this.searchPickupPoints = (account, search) => this.network(account).searchPickupPoints(account, search);
      this.findPickupPoint = (account, pointId) => this.network(account).findPickupPoint(account, pointId);
    }
    if (isClaimCapable(sandbox)) {
      this.createClaim = (account, request) => {
        const port = this.portFor(account);
        if (!isClaimCapable(port)) throw new Error(`the ${account.endpoint ?? 'sandbox'} endpoint takes no claims`);
        return port.createClaim(account, request);
      };
    }
  }

  /** The adapter of the account's endpoint; an endpoint this carrier does not have is the account misconfigured. */
  portFor(account: CarrierAccountSettings): CarrierPort {
    const endpoint = account.endpoint ?? 'sandbox';
    if (endpoint === 'sandbox') return this.sandbox;
    const port = this.others[endpoint];
    if (!port) throw new Error(`${account.carrierCode} has no ${endpoint} endpoint (account ${account.accountId})`);
    return port;
  }

  private network(account: CarrierAccountSettings): PickupNetworkPort {
    const port = this.portFor(account);
    if (!hasPickupNetwork(port)) throw new Error(`the ${account.endpoint ?? 'sandbox'} endpoint has no pickup network`);
    return port;
  }

  createShipment: CarrierPort['createShipment'] = (account, request) =>
    this.portFor(account).createShipment(account, request);
  getShipment: CarrierPort['getShipment'] = (account, id) => this.portFor(account).getShipment(account, id);
  findShipmentByReference: CarrierPort['findShipmentByReference'] = (account, reference) =>
    this.portFor(account).findShipmentByReference(account, reference);
  fetchLabel: CarrierPort['fetchLabel'] = (account, id) => this.portFor(account).fetchLabel(account, id);
}

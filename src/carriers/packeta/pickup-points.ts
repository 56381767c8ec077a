import { CarrierUnavailableError, type PickupNetworkPort } from '../port';

/**
 * Packeta's pickup points come from its feed, not from a call: Packeta has no search method, and integrators keep a
 * copy of the feed (docs `pick-up-point-selection/overview`). The service's copy is the imported feed
 * (`./feed/network.ts`, decisions 1220 to 1222), which src/adapters.ts gives the Packeta adapter. A Packeta adapter
 * built where no database is at hand and no point is looked for (labelctl's account checks and label sheets) gets this
 * network instead, which answers as a network that is down.
 */
export const packetaNetworkWithoutFeed: PickupNetworkPort = {
  searchPickupPoints: () => Promise.reject(new CarrierUnavailableError('carrier_error', null)),
  findPickupPoint: () => Promise.reject(new CarrierUnavailableError('carrier_error', null)),
};

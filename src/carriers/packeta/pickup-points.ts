import { CarrierUnavailableError, type PickupNetworkPort } from '../port';

/**
 * Packeta's pickup points come from its feed, not from a call: Packeta has no search method, and integrators keep a
 * copy of the feed (docs `pick-up-point-selection/overview`). Until the service keeps one (issue 58's feed import),
 * the network of a Packeta account answers as a network that is down: the order's pickup-point search lists it as
 * unavailable and a point cannot be set from it. A creation to a point the order already has does not need it
 * (Packeta checks the point itself and refuses an unknown or inactive one).
 */
export const packetaNetworkWithoutFeed: PickupNetworkPort = {
  searchPickupPoints: () => Promise.reject(new CarrierUnavailableError('carrier_error', null)),
  findPickupPoint: () => Promise.reject(new CarrierUnavailableError('carrier_error', null)),
};

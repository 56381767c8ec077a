import { accountSettings } from '../carriers/account-settings';
import { CARRIERS, isPickupPointIdOf } from '../domain/carrier-catalog';
import { CarrierTimeoutError, hasPickupNetwork, type CarrierPort } from '../carriers/port';
import type { CarrierAccount } from '../db/entities/carrier-account';
import {
  distanceMeters,
  MAX_PICKUP_POINTS,
  mergeByDistance,
  type AllowedNetwork,
  type GeoPoint,
  type PickupPoint,
  type Placed,
} from '../domain/pickup-points';
import type { Logger } from '../logger';
import { ProviderCallError } from './provider-client';
import type { ProviderRecord, ProviderSearch } from './provider-search';

/** Carriers of the catalogue with a pickup-point network of their own. */
export const CARRIERS_WITH_NETWORKS: ReadonlySet<string> = new Set(
  Object.values(CARRIERS)
    .filter((c) => c.pickupNetwork)
    .map((c) => c.code),
);

export interface PickupPointSources {
  carrierFor: (carrierCode: string) => CarrierPort;
  providerSearch: ProviderSearch;
  logger: Logger;
}

/** What a search needs to reach each network: the carrier account or the provider behind it. */
export interface NetworkReach {
  networks: AllowedNetwork[];
  accounts: ReadonlyMap<string, CarrierAccount>;
  providers: ReadonlyMap<string, ProviderRecord>;
}

export interface SearchArea {
  location: GeoPoint;
  countryCode: string;
  /** The store platform domain, sent to custom providers as `shop`. */
  shop: string;
}

/** `ok`, `stale` (a custom provider is down; its last answer stands in) or `unavailable`. */
export type SourceStatus = 'ok' | 'stale' | 'unavailable';
export type SourceFailure = 'timeout' | 'error';

export interface NetworkSearch {
  network: AllowedNetwork;
  status: SourceStatus;
  failure: SourceFailure | null;
  /** The network's nearest points, in the network's own order, at most 50. */
  points: Placed<PickupPoint>[];
}

export interface NetworkPoint {
  network: AllowedNetwork;
  point: PickupPoint;
  distanceMeters: number;
}

const placed = (location: GeoPoint, points: readonly PickupPoint[]): Placed<PickupPoint>[] =>
  points.map((point) => ({ item: point, distanceMeters: distanceMeters(location, point) }));

/** The nearest points of one network; a failing network is reported, never thrown. */
export async function searchNetwork(
  sources: PickupPointSources,
  reach: NetworkReach,
  network: AllowedNetwork,
  area: SearchArea,
): Promise<NetworkSearch> {
  try {
    if (network.kind === 'carrier') {
      const account = reach.accounts.get(network.accountId!)!;
      const port = sources.carrierFor(account.carrierCode);
      if (!hasPickupNetwork(port)) return { network, status: 'ok', failure: null, points: [] };
      const found = await port.searchPickupPoints(accountSettings(account), {
        latitude: area.location.latitude,
        longitude: area.location.longitude,
        countryCode: area.countryCode,
        limit: MAX_PICKUP_POINTS,
      });
      // A point outside the network's own ID format could be set on no order and sent to no carrier: it is not shown.
      const points = found.filter((p) => isPickupPointIdOf(account.carrierCode, p.id));
      if (points.length < found.length)
        sources.logger.warn(
          { network: network.code, dropped: found.length - points.length },
          'pickup point network answered with IDs outside its format',
        );
      return { network, status: 'ok', failure: null, points: placed(area.location, points) };
    }
    const provider = reach.providers.get(network.providerId!)!;
    const result = await sources.providerSearch(provider, area);
    // Distances from the searched location itself; the provider's order is kept as it came.
    const points = placed(
      area.location,
      result.answer.points.map((p) => p.item),
    );
    return { network, status: result.freshness === 'stale' ? 'stale' : 'ok', failure: null, points };
  } catch (error) {
    const timeout =
      error instanceof CarrierTimeoutError || (error instanceof ProviderCallError && error.kind === 'timeout');
    if (!(error instanceof ProviderCallError))
      sources.logger.warn({ err: error, network: network.code }, 'pickup point network search failed');
    return { network, status: 'unavailable', failure: timeout ? 'timeout' : 'error', points: [] };
  }
}

/** Every network in parallel, merged nearest first (each network's own order kept), at most `limit` points. */
export async function searchNetworks(
  sources: PickupPointSources,
  reach: NetworkReach,
  area: SearchArea,
  limit: number,
): Promise<{ points: NetworkPoint[]; searches: NetworkSearch[] }> {
  const searches = await Promise.all(reach.networks.map((n) => searchNetwork(sources, reach, n, area)));
  const lists = searches.map((s) =>
    s.points.map((p) => ({ item: { network: s.network, point: p.item }, distanceMeters: p.distanceMeters })),
  );
  const points = mergeByDistance(lists, limit).map((p) => ({ ...p.item, distanceMeters: p.distanceMeters }));
  return { points, searches };
}

/** A carrier's point by its ID, wherever it is; `unsupported` for custom providers (the contract has only search). */
export async function lookUpPoint(
  sources: PickupPointSources,
  reach: NetworkReach,
  network: AllowedNetwork,
  pointId: string,
): Promise<{ lookup: 'found'; point: PickupPoint } | { lookup: 'missing' | 'unsupported' }> {
  if (network.kind !== 'carrier') return { lookup: 'unsupported' };
  const account = reach.accounts.get(network.accountId!)!;
  // An ID outside the network's format names no point of it: the carrier is not asked.
  if (!isPickupPointIdOf(account.carrierCode, pointId)) return { lookup: 'missing' };
  const port = sources.carrierFor(account.carrierCode);
  if (!hasPickupNetwork(port)) return { lookup: 'missing' };
  const point = await port.findPickupPoint(accountSettings(account), pointId);
  return point ? { lookup: 'found', point } : { lookup: 'missing' };
}

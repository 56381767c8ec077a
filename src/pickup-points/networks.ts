import type { EntityManager } from '@mikro-orm/core';
import { carrierDefinition } from '../domain/carrier-catalog';
import { CarrierAccount } from '../db/entities/carrier-account';
import { CarrierRule } from '../db/entities/carrier-rule';
import { enabledProviderRecords } from './providers-repository';
import { allowedNetworks, type DeliveryMethodFacts } from '../domain/pickup-points';
import type { Logger } from '../logger';
import { CARRIERS_WITH_NETWORKS, type NetworkReach } from './search';

/** The networks an order's delivery method allows, with the store's accounts and providers that reach them. */
export async function loadNetworkReach(
  em: EntityManager,
  settingsKey: Buffer,
  storeId: string,
  deliveryMethod: DeliveryMethodFacts,
  logger: Logger,
): Promise<NetworkReach> {
  const [rules, accounts, providers] = await Promise.all([
    em.find(CarrierRule, { storeId }),
    em.find(CarrierAccount, { storeId }, { orderBy: { createdAt: 'asc', seq: 'asc' } }),
    enabledProviderRecords(em, settingsKey, storeId, (error) =>
      logger.error({ pickup_provider_id: error.providerId, store_id: storeId }, error.message),
    ),
  ]);
  const networks = allowedNetworks({
    deliveryMethod,
    rules,
    accounts: accounts.map((a) => ({
      id: a.id,
      carrierCode: a.carrierCode,
      carrierName: carrierDefinition(a.carrierCode).name,
      services: a.services,
    })),
    providers,
    carriersWithNetworks: CARRIERS_WITH_NETWORKS,
  });
  return {
    networks,
    accounts: new Map(accounts.map((a) => [a.id, a])),
    providers: new Map(providers.map((p) => [p.id, p])),
  };
}

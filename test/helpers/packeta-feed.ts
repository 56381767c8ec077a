import { apiPasswordOwner } from '../../src/carriers/packeta/adapter';
import { downloadFeedFile } from '../../src/carriers/packeta/feed/download';
import { importPacketaFeed } from '../../src/carriers/packeta/feed/import';
import { sealValue } from '../../src/crypto/sealed-values';
import { insertCarrierAccount } from '../../src/db/carrier-accounts-repository';
import type { PacketaPointsStore } from '../../src/db/packeta-pickup-points';
import { newId } from '../../src/ids';
import { createLogger } from '../../src/logger';
import { aRule } from './creation';
import { aPacketaPassword, fakePacketaAccount } from './packeta';
import { aStoreWithKey } from './stores';
import type { TestApp } from './test-app';

const PICKUP = { code: 'a_pickup', name: 'Pickup point', codSupported: true, pickupPointRequired: true };

/** Imports Packeta's feed from `baseUrl` (`/v5` and all) with `apiKey` into `store`, as the worker's activity does. */
export function importFeedFrom(store: PacketaPointsStore, baseUrl: string, apiKey: string, maxVanishedShare = 0.2) {
  return importPacketaFeed({
    store,
    download: (file, validators) => downloadFeedFile({ baseUrl, apiKey, timeoutMs: 60_000 }, file, validators),
    now: () => new Date(),
    logger: createLogger('silent'),
    maxVanishedShare,
  });
}

/**
 * A store whose carrier A account is on Packeta's endpoint (registered at the fake Packeta, its password sealed with
 * the app's key) with a pickup-point service its rule picks.
 */
export async function aPacketaPickupShop(app: TestApp) {
  const shop = await aStoreWithKey(app.orm);
  const password = aPacketaPassword();
  await fakePacketaAccount(password, { senders: ['shop'] });
  const id = newId('carrierAccount');
  await insertCarrierAccount(app.orm.em.fork(), {
    id,
    storeId: shop.storeId,
    carrierCode: 'carrier_a',
    currency: 'CZK',
    services: [PICKUP],
    sender: { name: 'Shop s.r.o.', countryCode: 'CZ' },
    packeta: {
      settings: { eshop: 'shop', homeDeliveryCarriers: { CZ: '106' } },
      apiPasswordSealed: sealValue(app.config.settingsEncryptionKey, apiPasswordOwner(id), password),
    },
    now: new Date(),
  });
  await aRule(app.orm, shop.storeId, { priority: 1, carrierAccountId: id, serviceCode: 'a_pickup' });
  return { shop, password, accountId: id };
}

// Records the resolved label-creation histories of runs that answer the resolve once the platform hold is released
// (the `resolve-after-release` patch), for the replay test. Other histories are left as recorded:
//   TEMPORAL_CLI_PATH=~/.cache/shipping-label-api/temporal-1.5.1/temporal node --import tsx test/replay/record-resolve-after-release-histories.ts
import { aCarrierAAccount, aRule } from '../helpers/creation';
import { aStoreWithKey } from '../helpers/stores';
import { patchesOf, recordHistories, recordResolvedCreation } from './recording';

const NAMES = [
  ['resolved-not-created-after-release', 'not_created'],
  ['resolved-shipment-exists-after-release', 'shipment_exists'],
] as const;

recordHistories(
  async (app) => {
    const shop = await aStoreWithKey(app.orm);
    const account = await aCarrierAAccount(app.orm, shop.storeId);
    await aRule(app.orm, shop.storeId, { priority: 1, carrierAccountId: account.id, serviceCode: 'a_home' });
    for (const [name, outcome] of NAMES) {
      const history = await recordResolvedCreation(app, { shop, account }, name, outcome);
      if (!patchesOf(history).includes('resolve-after-release')) throw new Error(`${name}: the run took no patch`);
    }
  },
  { env: { RESOLVE_ALLOWED_AFTER: '1s', ATTENTION_RETRY_INITIAL: '200ms', ATTENTION_RETRY_MAX: '500ms' } },
);

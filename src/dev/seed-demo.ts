import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { createApiKey, isActive } from '../access/api-keys';
import { createStore, setStoreGates } from '../access/stores';
import { hashSecret } from '../access/secrets';
import { loadConfig } from '../config';
import { ApiKey } from '../db/entities/api-key';
import { Store } from '../db/entities/store';
import { openOrm } from '../db/orm';

const DEMO_DOMAIN = 'demo-store.myshopify.com';
const DEMO_SCOPES = ['labels:print', 'labels:write', 'label_creations:resolve', 'pickup_points:assign'];

/**
 * Seeds the demo store with every gate open and prints a working API key as JSON. The secret is kept in the
 * ignored data folder so restarts print the same key; a revoked or missing one is replaced.
 */
async function main(): Promise<void> {
  const keyFile = process.argv[2];
  if (!keyFile) throw new Error('usage: seed-demo <key file>');
  const config = loadConfig();
  const orm = await openOrm(config.databaseUrl);
  try {
    const em = orm.em.fork();
    const now = new Date();
    const gates = { appInstalled: true, apiEnabled: true, pausedBySupport: false, subscriptionActive: true, freeAccess: false, writeAccess: true };
    let store = await em.findOne(Store, { domain: DEMO_DOMAIN });
    if (store) store = await setStoreGates(em, store.id, gates, now);
    else store = await createStore(em, { name: 'Demo Store', domain: DEMO_DOMAIN, email: 'owner@demo-store.example', ...gates }, now);

    let secret = existsSync(keyFile) ? readFileSync(keyFile, 'utf8').trim() : '';
    const existing = secret ? await em.findOne(ApiKey, { secretHash: hashSecret(secret), storeId: store.id }) : null;
    if (!existing || !isActive(existing, now)) {
      secret = (await createApiKey(em, { storeId: store.id, name: 'Demo key (npm run dev)', scopes: DEMO_SCOPES, now })).secret;
      mkdirSync(dirname(keyFile), { recursive: true });
      writeFileSync(keyFile, `${secret}\n`, { mode: 0o600 });
    }
    process.stdout.write(`${JSON.stringify({ store_id: store.id, domain: store.domain, api_key: secret })}\n`);
  } finally {
    await orm.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`[seed] ${(error as Error).message}\n`);
  process.exit(1);
});

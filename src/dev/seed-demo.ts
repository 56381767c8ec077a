import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createApiKey, isActive } from '../access/api-keys';
import { hashSecret } from '../access/secrets';
import type { EntityManager } from '@mikro-orm/postgresql';
import { apiPasswordOwner } from '../carriers/packeta/adapter';
import { DEMO_PACKETA_PASSWORD } from '../carriers/packeta/fake/state';
import { loadConfig, type Config } from '../config';
import { sealValue } from '../crypto/sealed-values';
import { CarrierAccount } from '../db/entities/carrier-account';
import { ApiKey } from '../db/entities/api-key';
import { openOrm } from '../db/orm';
import { loadFixture } from '../fixtures/load-fixture';
import { composeAdapters } from '../adapters';

const DEMO_FIXTURE = join(__dirname, '..', 'sandbox', 'fixtures', 'demo-store.json');
const DEMO_SCOPES = ['labels:print', 'labels:write', 'label_creations:resolve', 'pickup_points:assign'];

/** Fresh orders of every kind the demo shows, without labels, on the sandbox platform (docs/sandbox.md). */
async function addDemoOrders(sandboxUrl: string, domain: string) {
  const response = await fetch(`${sandboxUrl}/_control/stores/${encodeURIComponent(domain)}/demo-orders`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  });
  if (response.status !== 201) throw new Error(`the sandbox refused demo orders: ${response.status}`);
  const { orders } = (await response.json()) as {
    orders: Array<{ kind: string; order: { legacy_id: string; name: string } }>;
  };
  return orders.map((o) => ({ order_id: o.order.legacy_id, name: o.order.name, kind: o.kind }));
}

const DEMO_CARRIER_A = 'ca_demo_a';

/**
 * `npm run dev -- --packeta` puts the demo's carrier A account on the fake Packeta (its client account registered
 * there, the password sealed as an operator's would be); without the flag it is the sandbox's again.
 */
async function pointDemoCarrierA(em: EntityManager, config: Config, packeta: boolean): Promise<void> {
  const account = await em.findOneOrFail(CarrierAccount, { id: DEMO_CARRIER_A });
  if (packeta) {
    const response = await fetch(`${config.sandboxUrl}/_control/packeta/accounts/${DEMO_PACKETA_PASSWORD}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      // It ships CZK amounts to SK and HU too, as a client with Packeta's conversion from CZK set does.
      body: JSON.stringify({ senders: ['demo-shop'], currency_conversions: ['CZK'] }),
    });
    if (response.status !== 200) throw new Error(`the fake Packeta refused the demo account: ${response.status}`);
  }
  account.endpoint = packeta ? 'packeta' : 'sandbox';
  account.endpointSettings = packeta
    ? { eshop: 'demo-shop', homeDeliveryCarriers: { CZ: '106', SK: '131', HU: '4159' } }
    : null;
  account.apiPasswordSealed = packeta
    ? sealValue(config.settingsEncryptionKey, apiPasswordOwner(account.id), DEMO_PACKETA_PASSWORD)
    : null;
  await em.flush();
}

/**
 * Loads the demo fixture (a store showing every label state, its orders in the sandbox), adds a fresh order of each
 * kind and prints a working API key and those orders as JSON. The secret is kept in the ignored data folder so
 * restarts print the same key; a revoked or missing one is replaced.
 */
async function main(): Promise<void> {
  const keyFile = process.argv[2];
  if (!keyFile) throw new Error('usage: seed-demo <key file>');
  const config = loadConfig();
  const orm = await openOrm(config.databaseUrl);
  try {
    const em = orm.em.fork();
    const now = new Date();
    const loaded = await loadFixture(
      { orm, now, sandboxUrl: config.sandboxUrl, carrierFor: composeAdapters(config, orm).carrierFor },
      JSON.parse(readFileSync(DEMO_FIXTURE, 'utf8')),
    );
    const store = { id: loaded.store_id, domain: loaded.domain };
    await pointDemoCarrierA(em, config, process.argv.includes('--packeta'));

    let secret = existsSync(keyFile) ? readFileSync(keyFile, 'utf8').trim() : '';
    const existing = secret ? await em.findOne(ApiKey, { secretHash: hashSecret(secret), storeId: store.id }) : null;
    if (!existing || !isActive(existing, now)) {
      secret = (await createApiKey(em, { storeId: store.id, name: 'Demo key (npm run dev)', scopes: DEMO_SCOPES, now }))
        .secret;
      mkdirSync(dirname(keyFile), { recursive: true });
      writeFileSync(keyFile, `${secret}\n`, { mode: 0o600 });
    }
    const orders = await addDemoOrders(config.sandboxUrl, store.domain);
    process.stdout.write(
      `${JSON.stringify({ store_id: store.id, domain: store.domain, api_key: secret, fresh_orders: orders })}\n`,
    );
  } finally {
    await orm.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`[seed] ${(error as Error).message}\n`);
  process.exit(1);
});

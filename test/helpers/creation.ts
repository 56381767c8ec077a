import type { NewCarrierAccount } from '../../src/db/carrier-accounts-repository';
import { CarrierRule } from '../../src/db/entities/carrier-rule';
import { StoreSettings } from '../../src/db/entities/store-settings';
import type { Orm } from '../../src/db/orm';
import { newId } from '../../src/ids';
import { aCarrierAccount, aPlatformId } from './labels';
import { control } from './sandbox';

const czk = (amount: string) => ({ amount, currency: 'CZK' });

/** An order on the sandbox platform with one open parcel fulfillment order by default; returns its IDs. */
export async function anOrderOnPlatform(
  domain: string,
  overrides: Record<string, unknown> = {},
): Promise<{
  orderId: string;
  orderGid: string;
  name: string;
  fulfillmentOrderIds: string[];
  fulfillmentOrderGids: string[];
}> {
  const id = aPlatformId();
  const order = {
    id,
    name: `#${id.slice(-7)}`,
    currency: 'CZK',
    total_price: czk('499.00'),
    total_outstanding: czk('0.00'),
    payment_gateways: ['card'],
    shipping_address: { name: 'Jana Nováková', street: 'Dlouhá 12', city: 'Praha', postcode: '110 00', country: 'CZ' },
    phone: '+420600111222',
    email: 'jana@example.com',
    fulfillment_orders: [
      {
        id: aPlatformId(),
        line_items: [{ id: 1, quantity: 1, total_after_discounts: czk('499.00'), weight_grams: 1200 }],
      },
    ],
    ...overrides,
  };
  const res = await control('PUT', `/_control/stores/${domain}/orders`, order);
  if (res.status !== 200) throw new Error(`sandbox refused the order: ${JSON.stringify(res.body)}`);
  const fos = res.body.fulfillment_orders as Array<{ id: string; legacy_id: string }>;
  return {
    orderId: id,
    orderGid: `gid://shopify/Order/${id}`,
    name: order.name,
    fulfillmentOrderIds: fos.map((f) => f.legacy_id),
    fulfillmentOrderGids: fos.map((f) => f.id),
  };
}

/** A carrier A account with home and pickup services, declared value and one option, as the demo store has. */
export async function aCarrierAAccount(orm: Orm, storeId: string, overrides: Partial<NewCarrierAccount> = {}) {
  return aCarrierAccount(orm, storeId, {
    carrierCode: 'carrier_a',
    services: [
      { code: 'a_home', name: 'Home delivery', codSupported: true, pickupPointRequired: false },
      { code: 'a_pickup', name: 'Pickup point', codSupported: true, pickupPointRequired: true },
    ],
    options: { consign_password: { type: 'boolean', default: false, description: 'Ask for a password' } },
    sender: { name: 'Shop s.r.o.', countryCode: 'CZ' },
    ...overrides,
  });
}

export async function aRule(
  orm: Orm,
  storeId: string,
  rule: { priority: number; carrierAccountId: string; serviceCode: string; conditions?: CarrierRule['conditions'] },
): Promise<void> {
  const em = orm.em.fork();
  em.create(CarrierRule, {
    id: newId('carrierRule'),
    storeId,
    priority: rule.priority,
    conditions: rule.conditions ?? {},
    carrierAccountId: rule.carrierAccountId,
    serviceCode: rule.serviceCode,
    createdAt: new Date(),
  });
  await em.flush();
}

export async function aStoreCodRule(
  orm: Orm,
  storeId: string,
  amountSource: 'order_total' | 'outstanding_balance',
): Promise<void> {
  const em = orm.em.fork();
  em.create(StoreSettings, { storeId, codRuleEnabled: true, codRule: { amountSource }, updatedAt: new Date() });
  await em.flush();
}

/** A label creation row as the live creation will store one (status and fulfillment orders are what decisions read). */
export async function aCreationRecord(
  orm: Orm,
  input: { storeId: string; orderGid: string; fulfillmentOrderGids: string[]; status: string },
): Promise<string> {
  const id = newId('labelCreation');
  await orm.em.fork().execute(
    `insert into label_creations (id, store_id, status, idempotency_key, request_hash, order_gid, order_legacy_id,
         order_name, fulfillment_order_gids)
       values (?, ?, ?, ?, 'hash', ?, ?, '#1', array[?]::text[])`,
    [
      id,
      input.storeId,
      input.status,
      `key-${id}`,
      input.orderGid,
      input.orderGid.split('/').pop(),
      input.fulfillmentOrderGids,
    ],
  );
  return id;
}

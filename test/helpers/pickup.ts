import type { SandboxPickupPoint } from '../../src/carriers/sandbox-api/pickup-points';
import { SANDBOX_PICKUP_NETWORKS } from '../../src/carriers/sandbox/pickup-networks';
import type { CarrierAccountService } from '../../src/db/entities/carrier-account';
import { Store } from '../../src/db/entities/store';
import type { Orm } from '../../src/db/orm';
import { addProvider } from '../../src/pickup-points/providers-repository';
import { distanceMeters } from '../../src/domain/pickup-points';
import { randomToken } from '../../src/ids';
import { aCarrierAccount, aPlatformId } from './labels';
import { control, sandboxUrl } from './sandbox';
import { aStoreWithKey } from './stores';

/** Praha centre: the sandbox networks and the reference provider have points around it. */
export const PRAHA = { latitude: 50.0755, longitude: 14.4378 };

export async function storeDomain(orm: Orm, storeId: string): Promise<string> {
  return (await orm.em.fork().findOneOrFail(Store, { id: storeId })).domain;
}

const pickupService = (code: string, types?: Array<'pickup_point' | 'locker'>): CarrierAccountService => ({
  code,
  name: 'Pickup point',
  codSupported: true,
  pickupPointRequired: true,
  ...(types ? { pickupPointTypes: types } : {}),
});

/**
 * Carrier accounts with pickup services at A, C (pickup points only, no lockers) and D, unless `carriers` names
 * fewer. Returns the account IDs by carrier code.
 */
export async function pickupAccounts(
  orm: Orm,
  storeId: string,
  carriers: PickupCarrier[] = ['carrier_a', 'carrier_c', 'carrier_d'],
): Promise<Record<string, string>> {
  const services: Record<string, CarrierAccountService[]> = {
    carrier_a: [pickupService('a_pickup')],
    carrier_c: [pickupService('c_pickup', ['pickup_point'])],
    carrier_d: [pickupService('d_pickup')],
  };
  const ids: Record<string, string> = {};
  for (const carrierCode of carriers) {
    const account = await aCarrierAccount(orm, storeId, { carrierCode, services: services[carrierCode]! });
    ids[carrierCode] = account.id;
  }
  return ids;
}

type PickupCarrier = 'carrier_a' | 'carrier_c' | 'carrier_d';

/** A store with a key, its domain, and pickup carrier accounts (`pickupAccounts`). */
export async function aPickupStore(orm: Orm, carriers?: PickupCarrier[]) {
  const store = await aStoreWithKey(orm);
  const domain = await storeDomain(orm, store.storeId);
  const accounts = await pickupAccounts(orm, store.storeId, carriers);
  return { ...store, domain, accounts };
}

export interface PlatformOrderOptions {
  deliveryType?: 'shipping' | 'pickup' | 'local' | 'retail';
  location?: { latitude: number; longitude: number } | null;
  pickupPoint?: Record<string, unknown> | null;
  fulfillmentOrders?: Array<Record<string, unknown>>;
  extra?: Record<string, unknown>;
}

/** An order on the sandbox store platform; pickup-point delivery at a geocoded Praha address unless told. */
export async function aPlatformOrder(
  domain: string,
  options: PlatformOrderOptions = {},
): Promise<{ id: string; gid: string; fulfillmentOrderIds: string[] }> {
  const id = aPlatformId();
  const fulfillmentOrders = options.fulfillmentOrders ?? [{ id: aPlatformId() }];
  const location = options.location === undefined ? PRAHA : options.location;
  const { status, body } = await control('PUT', `/_control/stores/${domain}/orders`, {
    id,
    name: `#${id.slice(-6)}`,
    currency: 'CZK',
    total_price: { amount: '1290.00', currency: 'CZK' },
    total_outstanding: { amount: '1290.00', currency: 'CZK' },
    shipping_address: {
      name: 'Jana Nováková',
      street: 'Dlouhá 12',
      city: 'Praha',
      postcode: '110 00',
      country: 'CZ',
      ...(location ? location : {}),
    },
    delivery_method: {
      type: options.deliveryType ?? 'pickup',
      title: 'Pickup point',
      pickup_point: options.pickupPoint ?? null,
    },
    fulfillment_orders: fulfillmentOrders,
    ...options.extra,
  });
  if (status !== 200) throw new Error(`sandbox refused the order: ${JSON.stringify(body)}`);
  return {
    id,
    gid: `gid://shopify/Order/${id}`,
    fulfillmentOrderIds: fulfillmentOrders.map((fo) => String(fo.id)),
  };
}

/** A sandbox reference provider of its own (the name keys its settings, faults and recorded requests). */
export function aProviderName(): string {
  return `prov-${randomToken(10).toLowerCase()}`;
}

export const providerUrl = (name: string) => `${sandboxUrl()}/pickup-providers/${name}`;

export async function configureProvider(name: string, requiredHeaders: Record<string, string>): Promise<void> {
  const { status } = await control('PUT', `/_control/pickup-providers/${name}`, { required_headers: requiredHeaders });
  if (status !== 200) throw new Error('configuring the sandbox provider failed');
}

/** The points a sandbox provider answers from (its 50 nearest to the searched location, nearest first). */
export async function setProviderPoints(name: string, points: Array<Record<string, unknown>>): Promise<void> {
  const { status, body } = await control('PUT', `/_control/pickup-providers/${name}`, { points });
  if (status !== 200) throw new Error(`setting the sandbox provider's points failed: ${JSON.stringify(body)}`);
}

export async function scriptProviderFaults(name: string, faults: Array<Record<string, unknown>>): Promise<void> {
  const { status, body } = await control('POST', `/_control/pickup-providers/${name}/faults`, { faults });
  if (status !== 201) throw new Error(`scripting provider faults failed: ${JSON.stringify(body)}`);
}

export async function providerRequests(name: string): Promise<Array<{ headers: Record<string, string>; body: any }>> {
  return (await control('GET', `/_control/pickup-providers/${name}/requests`)).body.requests;
}

/** A custom provider of the store pointing at a sandbox provider that wants `X-Provider-Key: <secret>`. */
export async function aCustomProvider(
  orm: Orm,
  config: { settingsEncryptionKey: Buffer },
  storeId: string,
  options: { code?: string; name?: string; secret?: string } = {},
): Promise<{ code: string; network: string; sandboxName: string; secret: string }> {
  const sandboxName = aProviderName();
  const secret = options.secret ?? `secret-${randomToken(24)}`;
  await configureProvider(sandboxName, { 'X-Provider-Key': secret });
  const code = options.code ?? 'shops';
  await addProvider(
    orm.em.fork(),
    config.settingsEncryptionKey,
    {
      storeId,
      code,
      name: options.name ?? 'Our shops',
      url: providerUrl(sandboxName),
      headers: [{ name: 'X-Provider-Key', value: secret }],
    },
    new Date(),
  );
  return { code, network: `custom:${code}`, sandboxName, secret };
}

/** Sandbox network points of a carrier, nearest to `origin` first, optionally of one kind. */
export function networkPoints(
  carrierCode: string,
  origin = PRAHA,
  filter: (p: SandboxPickupPoint) => boolean = () => true,
): SandboxPickupPoint[] {
  return [...SANDBOX_PICKUP_NETWORKS[carrierCode]!]
    .filter(filter)
    .sort((a, b) => distanceMeters(origin, a) - distanceMeters(origin, b));
}

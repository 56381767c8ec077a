import { randomBytes } from 'node:crypto';
import { apiPasswordOwner, PacketaAdapter } from '../../src/carriers/packeta/adapter';
import { packetaNetworkWithoutFeed } from '../../src/carriers/packeta/pickup-points';
import type { CarrierAccountSettings } from '../../src/carriers/port';
import { sealValue } from '../../src/crypto/sealed-values';
import { randomToken } from '../../src/ids';
import { control, sandboxUrl } from './sandbox';

/** The key the tests seal Packeta passwords with (the adapter is handed the same). */
export const TEST_SETTINGS_KEY = Buffer.alloc(32, 7);

export const packetaUrl = (): string => `${sandboxUrl()}/packeta/api/rest`;

/** A fresh API password in Packeta's format. */
export const aPacketaPassword = (): string => randomBytes(16).toString('hex');

/** Registers a client account at the fake Packeta (its senders; approved unless told; currencies it converts). */
export async function fakePacketaAccount(
  password: string,
  body: { senders?: string[]; approved?: boolean; currency_conversions?: string[] } = {},
): Promise<void> {
  const { status, body: answer } = await control('PUT', `/_control/packeta/accounts/${password}`, body);
  if (status !== 200) throw new Error(`registering a fake Packeta account failed: ${JSON.stringify(answer)}`);
}

/** What the fake Packeta really made for an account, oldest first. */
export async function packetaLedger(password: string): Promise<any[]> {
  const { status, body } = await control('GET', `/_control/packeta/accounts/${password}/packets`);
  if (status !== 200) throw new Error(`reading the fake Packeta ledger failed: ${JSON.stringify(body)}`);
  return body.packets;
}

export async function scriptPacketaFaults(password: string, faults: Record<string, unknown>[]): Promise<void> {
  const { status, body } = await control('POST', `/_control/packeta/accounts/${password}/faults`, { faults });
  if (status !== 201) throw new Error(`scripting fake Packeta faults failed: ${JSON.stringify(body)}`);
}

/** Carrier A account settings on the `packeta` endpoint, its password sealed as the service keeps it. */
export function aPacketaAccount(
  password: string,
  overrides: Partial<CarrierAccountSettings> & { eshop?: string; homeDeliveryCarriers?: Record<string, string> } = {},
): CarrierAccountSettings {
  const accountId = `ca_pk${randomToken(12)}`;
  const { eshop, homeDeliveryCarriers, ...rest } = overrides;
  return {
    carrierCode: 'carrier_a',
    accountId,
    currency: 'CZK',
    country: 'CZ',
    credentials: { apiKey: accountId },
    endpoint: 'packeta',
    packeta: {
      eshop: eshop ?? 'eshop',
      homeDeliveryCarriers: homeDeliveryCarriers ?? { CZ: '106', SK: '131', HU: '4159', DE: '2401' },
      sealedApiPassword: sealValue(TEST_SETTINGS_KEY, apiPasswordOwner(accountId), password),
    },
    ...rest,
  };
}

export function packetaAdapter(timeoutMs = 2000): PacketaAdapter {
  return new PacketaAdapter({
    endpoint: { url: packetaUrl(), timeoutMs },
    settingsKey: TEST_SETTINGS_KEY,
    pickupPoints: packetaNetworkWithoutFeed,
  });
}

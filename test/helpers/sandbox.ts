import { randomToken } from '../../src/ids';
import type { CarrierAccountSettings, ShipmentRequest } from '../../src/carriers/port';
import { sandboxCarrierAdapter } from '../../src/carriers/sandbox-adapter';

/** The sandbox global setup started (SANDBOX_URL). */
export function sandboxUrl(): string {
  const url = process.env.SANDBOX_URL;
  if (!url) throw new Error('SANDBOX_URL is not set: run integration tests through jest with the global setup');
  return url;
}

export async function control(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(`${sandboxUrl()}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

export async function ledger(accountId: string): Promise<any[]> {
  const { body } = await control('GET', `/_control/ledger?carrier_account_id=${encodeURIComponent(accountId)}`);
  return body.shipments;
}

/** Scripts faults on the test's own account, registered at the sandbox's carriers first as a fixture's are. */
export async function scriptFaults(accountId: string, faults: Record<string, unknown>[]): Promise<void> {
  await control('PUT', `/_control/carrier-accounts/${accountId}`, {});
  const { status, body } = await control('POST', `/_control/carrier-accounts/${accountId}/faults`, { faults });
  if (status !== 201) throw new Error(`scripting faults failed: ${JSON.stringify(body)}`);
}

/** A carrier account of its own per test, so parallel tests never share sandbox state. */
export function anAccount(
  carrierCode: string,
  overrides: Partial<CarrierAccountSettings> = {},
): CarrierAccountSettings {
  return {
    carrierCode,
    accountId: `ca_test${randomToken(12)}`,
    currency: 'CZK',
    country: 'CZ',
    credentials: { apiKey: 'sandbox-key' },
    ...overrides,
  };
}

export function aShipmentRequest(overrides: Partial<ShipmentRequest> = {}): ShipmentRequest {
  return {
    reference: `lcr_${randomToken(16)}`,
    orderName: '#1001',
    serviceCode: 'a_home',
    recipient: { name: 'Jana Nováková' },
    address: { street: 'Dlouhá 12', city: 'Praha', postcode: '110 00', country: 'CZ' },
    phone: '+420600111222',
    email: 'jana@example.com',
    pickupPoint: null,
    weightGrams: 1200,
    cod: null,
    declaredValue: null,
    options: {},
    ...overrides,
  };
}

/**
 * Adapters with a generous timeout for normal answers (a loaded CI machine must not turn them into timeouts); tests
 * of scripted timeouts pass FAULT_TIMEOUT_MS, far below the hold the fault scripts.
 */
export const FAULT_TIMEOUT_MS = 300;
export const FAULT_HOLD_MS = 2_000;
export function adapterFor(account: CarrierAccountSettings, timeoutMs = 5_000) {
  return sandboxCarrierAdapter(account.carrierCode, { baseUrl: sandboxUrl(), timeoutMs });
}

/** Polls until `check` returns a value; fails after `attempts` tries (no duration is asserted). */
export async function eventually<T>(
  check: () => Promise<T | null | undefined>,
  attempts = 50,
  intervalMs = 50,
): Promise<T> {
  for (let i = 0; i < attempts; i += 1) {
    const value = await check();
    if (value !== null && value !== undefined) return value;
    await new Promise((r) => setTimeout(r, intervalMs));
  }
  throw new Error('condition not reached');
}

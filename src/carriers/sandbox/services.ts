import type { PageSizeName } from '../../domain/carrier-catalog';

/** A product a simulated carrier offers; carrier accounts in fixtures list these codes. */
export interface SandboxService {
  code: string;
  pickupPointOnly: boolean;
  /** Page size when it differs from the carrier's catalogue size (carrier C sizes follow the service). */
  pageSize?: PageSizeName;
  /** Some services print two pages (label and handover receipt). */
  pages: number;
}

const one = (code: string, extra: Partial<SandboxService> = {}): SandboxService => ({
  code,
  pickupPointOnly: false,
  pages: 1,
  ...extra,
});

export const SANDBOX_SERVICES: Readonly<Record<string, readonly SandboxService[]>> = {
  carrier_a: [one('a_home'), one('a_pickup', { pickupPointOnly: true })],
  carrier_b: [one('b_standard')],
  carrier_c: [
    one('c_home', { pageSize: '10.2x19.2' }),
    one('c_home_plus', { pageSize: '10.2x19.2', pages: 2 }),
    one('c_pickup', { pickupPointOnly: true, pageSize: '10x15' }),
  ],
  carrier_d: [one('d_home'), one('d_pickup', { pickupPointOnly: true })],
};

/** E to H and the excluded carriers offer one `standard` service in the sandbox. */
export function sandboxService(carrierCode: string, serviceCode: string): SandboxService | null {
  const services = SANDBOX_SERVICES[carrierCode] ?? [one('standard')];
  return services.find((s) => s.code === serviceCode) ?? null;
}

/** Heaviest parcel each simulated carrier takes. */
export const MAX_WEIGHT_GRAMS: Readonly<Record<string, number>> = {
  carrier_a: 10_000,
  carrier_b: 31_500,
  carrier_c: 31_500,
  carrier_d: 30_000,
};
export const DEFAULT_MAX_WEIGHT_GRAMS = 30_000;

/** Highest COD each simulated carrier collects, in whole units of the currency. */
export const COD_LIMITS: Readonly<Record<string, number>> = { CZK: 100_000, HUF: 1_500_000, EUR: 5_000, PLN: 20_000 };
export const DEFAULT_COD_LIMIT = 5_000;

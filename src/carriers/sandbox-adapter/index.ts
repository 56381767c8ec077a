import type { CarrierPort } from '../port';
import { CarrierAAdapter } from './carrier-a';
import { carrierB } from './carrier-b';
import { carrierC } from './carrier-c';
import { carrierD } from './carrier-d';
import { genericCarrier } from './generic-carriers';
import type { CarrierHttpOptions } from './http-client';
import { SandboxCarrierAdapter } from './sandbox-carrier';

export { CarrierAAdapter, SandboxCarrierAdapter };
export type { CarrierHttpOptions };

/** Carriers whose sandbox API is their own; every other catalogue carrier speaks the generic one. */
const OWN_APIS: Record<string, (options: CarrierHttpOptions) => CarrierPort> = {
  carrier_a: (options) => new CarrierAAdapter(options),
  carrier_b: (options) => new SandboxCarrierAdapter(carrierB, options),
  carrier_c: (options) => new SandboxCarrierAdapter(carrierC, options),
  carrier_d: (options) => new SandboxCarrierAdapter(carrierD, options),
};

/** The adapter for a catalogue carrier code, talking to the sandbox at `options.baseUrl`. */
export function sandboxCarrierAdapter(carrierCode: string, options: CarrierHttpOptions): CarrierPort {
  const own = OWN_APIS[carrierCode];
  return own ? own(options) : new SandboxCarrierAdapter(genericCarrier(carrierCode), options);
}

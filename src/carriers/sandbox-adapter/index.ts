import type { CarrierPort } from '../port';
import { CarrierAAdapter } from './carrier-a';
import { CarrierBAdapter } from './carrier-b';
import { CarrierCAdapter } from './carrier-c';
import { CarrierDAdapter } from './carrier-d';
import { GenericCarrierAdapter } from './generic-carriers';
import type { CarrierHttpOptions } from './http-client';

export { CarrierAAdapter, CarrierBAdapter, CarrierCAdapter, CarrierDAdapter, GenericCarrierAdapter };
export type { CarrierHttpOptions };

/** The adapter for a catalogue carrier code, talking to the sandbox at `options.baseUrl`. */
export function sandboxCarrierAdapter(carrierCode: string, options: CarrierHttpOptions): CarrierPort {
  switch (carrierCode) {
    case 'carrier_a':
      return new CarrierAAdapter(options);
    case 'carrier_b':
      return new CarrierBAdapter(options);
    case 'carrier_c':
      return new CarrierCAdapter(options);
    case 'carrier_d':
      return new CarrierDAdapter(options);
    default:
      return new GenericCarrierAdapter(carrierCode, options);
  }
}

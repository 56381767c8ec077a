import type { Money } from '../../domain/money';
import type { CarrierMapper } from './sandbox-carrier';
import { shipmentResult } from './shared';

interface Parcel {
  parcel_number: string;
  state: 'draft' | 'printed';
  tracking_number: string | null;
  tracking_url: string | null;
  cod: Money | null;
}

/**
 * Carrier D: create makes a draft, print turns it into a shipment and returns the roll label. If the print call
 * fails the draft stays behind; a lookup by reference then answers status `draft`.
 */
export const carrierD: CarrierMapper<Parcel> = {
  code: 'carrier_d',
  prefix: '/carrier-d',
  collection: 'parcels',
  pickupPoints: 'parcelshops',
  toResult: (p) =>
    shipmentResult({
      status: p.state === 'draft' ? 'draft' : 'ready',
      shipmentId: p.parcel_number,
      trackingNumber: p.tracking_number,
      trackingUrl: p.tracking_url,
      cod: p.cod,
    }),
  /** Printing finalizes a draft; for a printed parcel it returns the same stored label again. */
  labelCall: () => ({ method: 'POST', path: 'print' }),
  completeCreate: async (port, account, draft) => {
    const document = await port.fetchLabel(account, draft.parcel_number);
    const printed = await port.getShipment(account, draft.parcel_number);
    return { ...printed, document };
  },
};

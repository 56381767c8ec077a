import type { Money } from '../../domain/money';
import type { CarrierMapper } from './sandbox-carrier';
import { shipmentResult, storedDocument } from './shared';

interface Parcel {
  parcel_id: string;
  tracking_number: string;
  tracking_url: string;
  cod: Money | null;
  label_pdf_base64?: string;
}

/** Carrier C: the PDF comes with the shipment, so `document` is set on create; the stored copy prints again. */
export const carrierC: CarrierMapper<Parcel> = {
  code: 'carrier_c',
  prefix: '/carrier-c',
  collection: 'parcels',
  pickupPoints: 'parcelshops',
  toResult: async (p) =>
    shipmentResult({
      shipmentId: p.parcel_id,
      trackingNumber: p.tracking_number,
      trackingUrl: p.tracking_url,
      cod: p.cod,
      document: await storedDocument(p.label_pdf_base64),
    }),
  labelCall: () => ({ method: 'GET', path: 'label.pdf' }),
};

import { ImportRejectedError, type ShipmentStatus } from '../port';
import type { Money } from '../../domain/money';
import type { CarrierMapper } from './sandbox-carrier';
import { shipmentResult } from './shared';

interface Batch {
  batch_id: string;
  status: 'processing' | 'completed' | 'rejected';
  shipment_number: string | null;
  tracking_url: string | null;
  variable_symbol: string | null;
  cod: Money | null;
  rejection_text: string | null;
}

/**
 * A batch is `pending` until it completes and the shipment number comes; one the carrier refused at import after
 * accepting it throws ImportRejectedError wherever it is read.
 */
function batchStatus(b: Batch): ShipmentStatus {
  if (b.status === 'rejected') throw new ImportRejectedError(b.batch_id, b.rejection_text ?? 'refused at import');
  return b.status === 'completed' ? 'ready' : 'pending';
}

/** Carrier B: a create returns `pending` with the batch ID; batch import and its shipment number come later. */
export const carrierB: CarrierMapper<Batch> = {
  code: 'carrier_b',
  prefix: '/carrier-b',
  collection: 'batches',
  toResult: (b) =>
    shipmentResult({
      status: batchStatus(b),
      shipmentId: b.batch_id,
      trackingNumber: b.shipment_number,
      trackingUrl: b.tracking_url,
      cod: b.cod,
    }),
  labelCall: () => ({ method: 'GET', path: 'label.pdf' }),
};

import { CARRIERS } from '../../domain/carrier-catalog';
import { DocumentNotSupportedError, LabelNotReissuableError } from '../port';
import type { Money } from '../../domain/money';
import type { CarrierMapper } from './sandbox-carrier';
import { shipmentResult, storedDocument } from './shared';

interface Shipment {
  shipment_id: string;
  tracking_number: string;
  tracking_url: string;
  cod: Money | null;
  label_pdf_base64?: string;
}

/**
 * The catalogue's other carriers share one API under `/carriers/{code}`, and differ by document mode: `render`
 * (carrier E) prints on demand through a call without side effects; `stored_only` (F to H) hands the PDF out once
 * with the shipment and cannot issue it again; `excluded` never has a document served.
 */
export function genericCarrier(code: string): CarrierMapper<Shipment> {
  const carrier = CARRIERS[code];
  if (!carrier) throw new Error(`unknown carrier ${code}`);
  return {
    code,
    prefix: `/carriers/${code}`,
    collection: 'shipments',
    toResult: async (s) =>
      shipmentResult({
        shipmentId: s.shipment_id,
        trackingNumber: s.tracking_number,
        trackingUrl: s.tracking_url,
        cod: s.cod,
        document: await storedDocument(s.label_pdf_base64),
      }),
    labelCall: (account, shipmentId) => {
      if (carrier.documentMode === 'excluded') throw new DocumentNotSupportedError(code);
      if (carrier.documentMode !== 'render') throw new LabelNotReissuableError(shipmentId);
      return { method: 'GET', path: `print?label_size=${encodeURIComponent(account.portalLabelSize ?? 'A6')}` };
    },
  };
}

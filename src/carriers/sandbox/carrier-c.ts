import { json, pdf, type Router } from '../../sandbox/http';
import {
  handleCreate,
  newShipment,
  notFound,
  operationFault,
  renderShipmentPdf,
  type SimulatorContext,
  registerShipmentReads,
} from './engine';
import { registerPickupNetwork } from './pickup-networks';
import type { SimulatedShipment } from './state';

const CODE = 'carrier_c';
const BASE = '/carrier-c/accounts/:account';

function parcelToWire(s: SimulatedShipment, withPdf: boolean): Record<string, unknown> {
  return {
    parcel_id: s.shipmentId,
    tracking_number: s.trackingNumber,
    tracking_url: `https://tracking.carrier-c.example/parcel/${s.trackingNumber}`,
    reference: s.reference,
    cod: s.cod,
    ...(withPdf && s.pdf
      ? { label_pdf_base64: Buffer.from(s.pdf).toString('base64'), label_page_size: s.pageSize, label_pages: s.pages }
      : {}),
  };
}

/** Carrier C: the PDF comes back with the shipment; `c_pickup` delivers to pickup points only and needs a phone. */
export function registerCarrierC(router: Router, ctx: SimulatorContext): void {
  router.add('POST', `${BASE}/parcels`, (request) =>
    handleCreate(
      ctx,
      CODE,
      request,
      async (body) => {
        const parcelId = ctx.state.nextNumber(10);
        const shipment = newShipment(CODE, request.params.account!, body, {
          shipmentId: parcelId,
          trackingNumber: `C${parcelId}CZ`,
          barcode: `*C${parcelId}CZ*`,
          status: 'ready',
        });
        shipment.pdf = await renderShipmentPdf(shipment);
        return shipment;
      },
      (shipment) => json(201, parcelToWire(shipment, true)),
    ),
  );
  registerShipmentReads(router, ctx, {
    code: CODE,
    base: BASE,
    collection: 'parcels',
    item: 'parcel',
    toWire: (p) => parcelToWire(p, false),
  });
  router.add('GET', `${BASE}/parcels/:id/label.pdf`, async (request) => {
    const fault = await operationFault(ctx, CODE, request, 'label');
    if (fault) return fault;
    const parcel = ctx.state.findShipment(request.params.account!, CODE, request.params.id!);
    if (!parcel?.pdf) return notFound('parcel label');
    parcel.labelCalls += 1;
    return pdf(parcel.pdf);
  });
  registerPickupNetwork(router, ctx, { code: CODE, base: BASE, collection: 'parcelshops' });
}

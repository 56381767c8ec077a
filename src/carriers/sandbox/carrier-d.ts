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

const CODE = 'carrier_d';
const BASE = '/carrier-d/accounts/:account';

function parcelToWire(s: SimulatedShipment): Record<string, unknown> {
  return {
    parcel_number: s.shipmentId,
    state: s.status === 'draft' ? 'draft' : 'printed',
    tracking_number: s.status === 'draft' ? null : s.trackingNumber,
    tracking_url: s.status === 'draft' ? null : `https://tracking.carrier-d.example/${s.trackingNumber}`,
    reference: s.reference,
    cod: s.cod,
  };
}

/**
 * Carrier D: a create makes an unprinted draft and the print call turns it into a shipment and returns the roll
 * label. A create that is lost in between leaves the draft behind (spec carrier_note draft_until_label_printed).
 */
export function registerCarrierD(router: Router, ctx: SimulatorContext): void {
  router.add('POST', `${BASE}/parcels`, (request) =>
    handleCreate(
      ctx,
      CODE,
      request,
      async (body) => {
        const parcelNumber = ctx.state.nextNumber(14);
        return newShipment(CODE, request.params.account!, body, {
          shipmentId: parcelNumber,
          trackingNumber: parcelNumber,
          barcode: `*${parcelNumber}*`,
          status: 'draft',
        });
      },
      (shipment) => json(201, parcelToWire(shipment)),
    ),
  );
  router.add('POST', `${BASE}/parcels/:id/print`, async (request) => {
    const fault = await operationFault(ctx, CODE, request, 'label');
    if (fault) return fault;
    const parcel = ctx.state.findShipment(request.params.account!, CODE, request.params.id!);
    if (!parcel) return notFound('parcel');
    if (parcel.status === 'draft') {
      parcel.status = 'ready';
      parcel.updatedAt = new Date();
      parcel.pdf = await renderShipmentPdf(parcel);
    }
    parcel.labelCalls += 1;
    return pdf(parcel.pdf!);
  });
  registerShipmentReads(router, ctx, {
    code: CODE,
    base: BASE,
    collection: 'parcels',
    item: 'parcel',
    toWire: parcelToWire,
  });
  registerPickupNetwork(router, ctx, { code: CODE, base: BASE, collection: 'parcelshops' });
}

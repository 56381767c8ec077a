import { z } from 'zod';
import { carrierDefinition } from '../../domain/carrier-catalog';
import { roundCod } from '../../domain/cod-rounding';
import { BadRequest, json, pdf, type Router } from '../../sandbox/http';
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

const CODE = 'carrier_a';
const BASE = '/carrier-a/accounts/:account';

const claimSchema = z
  .object({
    reference: z.string().min(1),
    order_name: z.string(),
    original_packet_id: z.string(),
    email: z.string().nullable(),
  })
  .strict();

function packetToWire(s: SimulatedShipment): Record<string, unknown> {
  return {
    packet_id: s.shipmentId,
    barcode: s.barcode,
    tracking_number: s.trackingNumber,
    tracking_url: `https://tracking.carrier-a.example/${s.shipmentId}`,
    reference: s.reference,
    cod: s.cod,
    declared_value: s.declaredValue,
    consign_password: s.extras.consign_password ?? null,
  };
}

/** Carrier A: packets with packet ID and barcode, COD rounded by the carrier, a stored A6 PDF, customer-return claims. */
export function registerCarrierA(router: Router, ctx: SimulatorContext): void {
  router.add('POST', `${BASE}/packets`, (request) =>
    handleCreate(
      ctx,
      CODE,
      request,
      async (body) => {
        const packetId = `Z${ctx.state.nextNumber(10)}`;
        const shipment = newShipment(CODE, request.params.account!, body, {
          shipmentId: packetId,
          trackingNumber: packetId,
          barcode: `*${packetId}*`,
          status: 'ready',
          cod: body.cod ? roundCod(body.cod, carrierDefinition(CODE).codRounding) : null,
          // The recipient proves the pickup with this password when the option asks for it.
          extras:
            body.options.consign_password === true
              ? { consign_password: packetId.slice(-4).split('').reverse().join('') }
              : {},
        });
        shipment.pdf = await renderShipmentPdf(shipment);
        return shipment;
      },
      (shipment) => json(201, packetToWire(shipment)),
    ),
  );
  registerShipmentReads(router, ctx, {
    code: CODE,
    base: BASE,
    collection: 'packets',
    item: 'packet',
    toWire: packetToWire,
  });
  router.add('GET', `${BASE}/packets/:id/label.pdf`, async (request) => {
    const fault = await operationFault(ctx, CODE, request, 'label');
    if (fault) return fault;
    const packet = ctx.state.findShipment(request.params.account!, CODE, request.params.id!);
    if (!packet?.pdf) return notFound('packet label');
    packet.labelCalls += 1;
    return pdf(packet.pdf);
  });
  router.add('POST', `${BASE}/claims`, async (request) => {
    const fault = await operationFault(ctx, CODE, request, 'create');
    if (fault) return fault;
    const parsed = claimSchema.safeParse(request.body);
    if (!parsed.success) throw new BadRequest('claim body does not match the sandbox schema', parsed.error.issues);
    const original = ctx.state.findShipment(request.params.account!, CODE, parsed.data.original_packet_id);
    if (!original) return notFound('original packet');
    const claimId = `Z${ctx.state.nextNumber(10)}`;
    const now = new Date();
    // A claim is a customer return of an existing packet: it has no document of its own.
    ctx.state.account(request.params.account!).shipments.push({
      ...original,
      kind: 'claim',
      shipmentId: claimId,
      reference: parsed.data.reference,
      trackingNumber: claimId,
      barcode: `*${claimId}*`,
      cod: null,
      declaredValue: null,
      pickupPoint: null,
      extras: {},
      pdf: null,
      labelCalls: 0,
      createdAt: now,
      updatedAt: now,
    });
    return json(201, { claim_id: claimId, tracking_number: claimId });
  });
  registerPickupNetwork(router, ctx, { code: CODE, base: BASE, collection: 'pickup-points' });
}

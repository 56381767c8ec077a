import { BadRequest, json, pdf, type Router } from '../../sandbox/http';
import { variableSymbolFromOrderName } from '../../domain/variable-symbol';
import {
  handleCreate,
  newShipment,
  notFound,
  operationFault,
  renderShipmentPdf,
  type SimulatorContext,
  registerShipmentReads,
} from './engine';
import type { SimulatedShipment } from './state';

const CODE = 'carrier_b';
const BASE = '/carrier-b/accounts/:account';

function batchToWire(s: SimulatedShipment): Record<string, unknown> {
  const status = s.status === 'ready' ? 'completed' : s.status === 'import_rejected' ? 'rejected' : 'processing';
  return {
    batch_id: s.batchId,
    status,
    reference: s.reference,
    shipment_number: s.trackingNumber,
    tracking_url: s.trackingNumber ? `https://tracking.carrier-b.example/?number=${s.trackingNumber}` : null,
    variable_symbol: s.extras.variable_symbol ?? null,
    cod: s.cod,
    // The carrier's own words; the service keeps them internally.
    rejection_text: s.status === 'import_rejected' ? 'Import refused: recipient address could not be geocoded' : null,
  };
}

/** Completes a batch: assigns the shipment number and stores the label, or refuses it at import (scripted). */
export async function completeBatch(ctx: SimulatorContext, shipment: SimulatedShipment): Promise<void> {
  if (shipment.status !== 'pending') return;
  shipment.updatedAt = new Date();
  if (shipment.rejectAtImport) {
    shipment.status = 'import_rejected';
    return;
  }
  shipment.trackingNumber = ctx.state.nextNumber(12);
  shipment.barcode = `*${shipment.trackingNumber}*`;
  shipment.pdf = await renderShipmentPdf(shipment);
  shipment.status = 'ready';
}

/**
 * Carrier B: accepts a batch of one shipment and assigns its number when the batch completes (after the account's
 * delay, or through the control endpoint); may refuse at import after accepting.
 */
export function registerCarrierB(router: Router, ctx: SimulatorContext): void {
  router.add('POST', `${BASE}/batches`, (request) =>
    handleCreate(
      ctx,
      CODE,
      request,
      async (body, options) => {
        const batchId = `B${ctx.state.nextNumber(9)}`;
        const variableSymbol = variableSymbolFromOrderName(body.order_name);
        const shipment = newShipment(CODE, request.params.account!, body, {
          shipmentId: batchId,
          batchId,
          trackingNumber: null,
          barcode: null,
          status: 'pending',
          rejectAtImport: options.rejectAtImport,
          extras: variableSymbol ? { variable_symbol: variableSymbol } : {},
        });
        const account = ctx.state.account(request.params.account!);
        if (account.batchCompletion === 'auto')
          ctx.state.later(
            request.params.account!,
            account.batchDelayMs,
            () => completeBatch(ctx, shipment),
            ctx.onError,
          );
        return shipment;
      },
      (shipment) => json(202, batchToWire(shipment)),
    ),
  );
  registerShipmentReads(router, ctx, {
    code: CODE,
    base: BASE,
    collection: 'batches',
    item: 'batch',
    toWire: batchToWire,
  });
  router.add('GET', `${BASE}/batches/:id/label.pdf`, async (request) => {
    const fault = await operationFault(ctx, CODE, request, 'label');
    if (fault) return fault;
    const batch = ctx.state.findShipment(request.params.account!, CODE, request.params.id!);
    if (!batch) return notFound('batch');
    if (!batch.pdf)
      return json(409, { error: { code: 'batch_not_completed', message: 'The batch has not completed' } });
    batch.labelCalls += 1;
    return pdf(batch.pdf);
  });
}

/** Control: complete a carrier B batch now (for accounts set to manual completion, or to skip the delay). */
export function registerCarrierBControl(router: Router, ctx: SimulatorContext): void {
  router.add('POST', '/_control/carrier-accounts/:account/batches/:id/complete', async (request) => {
    const batch = ctx.state.findShipment(request.params.account!, CODE, request.params.id!);
    if (!batch) return notFound('batch');
    if (batch.status !== 'pending') throw new BadRequest(`batch is already ${batch.status}`);
    await completeBatch(ctx, batch);
    return json(200, batchToWire(batch));
  });
}

import { z } from 'zod';
import { CARRIERS, type PageSizeName } from '../../domain/carrier-catalog';
import { mergePdfs } from '../../pdf/merge';
import { renderSampleLabel } from '../../pdf/sample-label';
import { BadRequest, json, pdf, type Reply, type Router, type SandboxRequest } from '../../sandbox/http';
import {
  handleCreate,
  newShipment,
  notFound,
  operationFault,
  renderShipmentPdf,
  type SimulatorContext,
} from './engine';
import type { SimulatedShipment } from './state';

const BASE = '/carriers/:carrier/accounts/:account';

/** The generic simulators serve every catalogue carrier that has no simulator of its own (E to H, the six excluded). */
function genericCarrier(request: SandboxRequest): string {
  const code = request.params.carrier!;
  const carrier = CARRIERS[code];
  if (!carrier || ['carrier_a', 'carrier_b', 'carrier_c', 'carrier_d'].includes(code))
    throw new BadRequest(`no generic simulator for ${code}`);
  return code;
}

function shipmentToWire(s: SimulatedShipment, withPdf: boolean): Record<string, unknown> {
  return {
    shipment_id: s.shipmentId,
    tracking_number: s.trackingNumber,
    tracking_url: `https://tracking.example/${s.carrierCode}/${s.trackingNumber}`,
    reference: s.reference,
    cod: s.cod,
    ...(withPdf && s.pdf
      ? { label_pdf_base64: Buffer.from(s.pdf).toString('base64'), label_page_size: s.pageSize, label_pages: s.pages }
      : {}),
  };
}

const portalSizeSchema = z.enum(['A6', '10x15', '10.2x19.2', 'roll_101x160', 'A4']);

/**
 * Carrier E renders on demand with a print call that changes nothing (each call is counted in the ledger, nothing
 * else); F to H hand the PDF out once with the shipment and have no reprint call; excluded carriers have no
 * document call at all.
 */
export function registerOtherCarriers(router: Router, ctx: SimulatorContext): void {
  router.add('POST', `${BASE}/shipments`, async (request) => {
    const code = genericCarrier(request);
    const mode = CARRIERS[code]!.documentMode;
    return handleCreate(
      ctx,
      code,
      request,
      async (body) => {
        const number = ctx.state.nextNumber(12);
        const shipment = newShipment(code, request.params.account!, body, {
          shipmentId: number,
          trackingNumber: `${code.slice(-1).toUpperCase()}${number}`,
          barcode: `*${number}*`,
          status: 'ready',
        });
        if (mode === 'stored_only') shipment.pdf = await renderShipmentPdf(shipment);
        return shipment;
      },
      (shipment) => json(201, shipmentToWire(shipment, mode === 'stored_only')),
    );
  });
  router.add('GET', `${BASE}/shipments`, async (request) => {
    const code = genericCarrier(request);
    const fault = await operationFault(ctx, code, request, 'status');
    if (fault) return fault;
    const found = ctx.state.findByReference(request.params.account!, code, request.query.get('reference') ?? '');
    return json(200, { shipments: found.map((s) => shipmentToWire(s, false)) });
  });
  router.add('GET', `${BASE}/shipments/:id`, async (request) => {
    const code = genericCarrier(request);
    const fault = await operationFault(ctx, code, request, 'status');
    if (fault) return fault;
    const shipment = ctx.state.findShipment(request.params.account!, code, request.params.id!);
    return shipment ? json(200, shipmentToWire(shipment, false)) : notFound('shipment');
  });
  router.add('GET', `${BASE}/shipments/:id/print`, async (request): Promise<Reply> => {
    const code = genericCarrier(request);
    if (CARRIERS[code]!.documentMode !== 'render')
      return json(404, { error: { code: 'no_print_call', message: `${code} has no print call` } });
    const fault = await operationFault(ctx, code, request, 'label');
    if (fault) return fault;
    const shipment = ctx.state.findShipment(request.params.account!, code, request.params.id!);
    if (!shipment) return notFound('shipment');
    const size = portalSizeSchema.safeParse(request.query.get('label_size') ?? 'A6');
    if (!size.success) throw new BadRequest('label_size must be one of the catalogue page sizes');
    shipment.labelCalls += 1;
    return pdf(await renderShipmentPdf({ ...shipment, pageSize: size.data }));
  });
}

const legacyFileSchema = z
  .object({
    carrier_code: z.string(),
    carrier_account_id: z.string().min(1),
    tracking_numbers: z.array(z.string().min(1)).min(2).max(50),
    page_size: portalSizeSchema.default('A6'),
  })
  .strict();

/**
 * Older carrier-specific batch files: one PDF holding several labels of a batch, so no single label can be served
 * from it (spec availability `not_isolated`). Fixtures create them; the file is served like the carrier's download.
 */
export function registerLegacyBatchFiles(router: Router, ctx: SimulatorContext): void {
  router.add('POST', '/_control/legacy-batch-files', async (request) => {
    const parsed = legacyFileSchema.safeParse(request.body);
    if (!parsed.success) throw new BadRequest('legacy batch file body is invalid', parsed.error.issues);
    const { carrier_code: carrierCode, carrier_account_id: accountId, tracking_numbers: trackingNumbers } = parsed.data;
    const carrier = CARRIERS[carrierCode];
    if (!carrier) throw new BadRequest(`unknown carrier ${carrierCode}`);
    const fileId = `lbf_${ctx.state.nextNumber(10)}`;
    const pageSize: PageSizeName = parsed.data.page_size;
    const labels = await Promise.all(
      trackingNumbers.map((trackingNumber, i) =>
        renderSampleLabel({
          pageSize,
          carrierName: carrier.name,
          trackingNumber,
          lines: [`Batch file ${fileId}, label ${i + 1} of ${trackingNumbers.length}`],
        }),
      ),
    );
    const bytes = await mergePdfs(labels);
    ctx.state.legacyFiles.set(fileId, { accountId, carrierCode, pdf: bytes, trackingNumbers });
    return json(201, {
      file_id: fileId,
      url: `/legacy-batch-files/${fileId}.pdf`,
      pages: trackingNumbers.length,
      tracking_numbers: trackingNumbers,
    });
  });
  router.add('GET', '/legacy-batch-files/:file', async (request) => {
    const file = ctx.state.legacyFiles.get(request.params.file!.replace(/\.pdf$/, ''));
    return file ? pdf(file.pdf) : notFound('batch file');
  });
}

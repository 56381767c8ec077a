import { accountLabelSize, carrierDefinition } from '../../domain/carrier-catalog';
import { renderSampleLabel } from '../../pdf/sample-label';
import { BadRequest, json, sleep, type Reply, type Router, type SandboxRequest } from '../../sandbox/http';
import type { CarrierRejectionReason } from '../port';
import { takeFault, type FaultOperation } from './faults';
import { nativeRefusalCode } from '../sandbox-api/refusal-codes';
import { naturalRefusal } from './refusals';
import { sandboxService } from './services';
import { simulatorShipmentSchema, type SimulatorShipment } from '../sandbox-api/shipment-body';
import type { CarrierSandboxState, SimulatedShipment } from './state';

export interface SimulatorContext {
  state: CarrierSandboxState;
  onError: (error: unknown) => void;
}

export function refusalReply(carrierCode: string, reason: CarrierRejectionReason, text: string): Reply {
  return json(reason === 'credentials_invalid' ? 401 : 422, {
    error: { code: nativeRefusalCode(carrierCode, reason), message: text },
  });
}

/** Every simulator wants `Authorization: Bearer <api key>`; a missing key is the carrier's credentials refusal. */
function credentialsRefusal(carrierCode: string, request: SandboxRequest): Reply | null {
  const header = request.headers.authorization ?? '';
  const key = header.startsWith('Bearer ') ? header.slice(7).trim() : '';
  return key ? null : refusalReply(carrierCode, 'credentials_invalid', 'Missing or incorrect API key');
}

export function parseShipment(body: unknown): SimulatorShipment {
  const parsed = simulatorShipmentSchema.safeParse(body);
  if (!parsed.success) throw new BadRequest('shipment body does not match the sandbox schema', parsed.error.issues);
  return parsed.data;
}

/** A new simulator record; size and page count follow the catalogue, the account and the service. */
export function newShipment(
  carrierCode: string,
  accountId: string,
  body: SimulatorShipment,
  fields: Pick<SimulatedShipment, 'shipmentId' | 'trackingNumber' | 'barcode' | 'status'> & Partial<SimulatedShipment>,
): SimulatedShipment {
  const service = sandboxService(carrierCode, body.service_code);
  const now = new Date();
  return {
    kind: 'shipment',
    carrierCode,
    accountId,
    reference: body.reference,
    orderName: body.order_name,
    serviceCode: body.service_code,
    batchId: null,
    cod: body.cod,
    declaredValue: body.declared_value,
    extras: {},
    recipientName: body.recipient.name,
    pickupPoint: body.pickup_point,
    pageSize:
      service?.pageSize ?? accountLabelSize(carrierDefinition(carrierCode), { printerType: body.printer_type ?? null }),
    pages: service?.pages ?? 1,
    pdf: null,
    rejectAtImport: false,
    labelCalls: 0,
    createdAt: now,
    updatedAt: now,
    ...fields,
  };
}

export async function renderShipmentPdf(s: SimulatedShipment): Promise<Uint8Array> {
  const captions = s.pages === 2 ? ['Shipping label', 'Handover receipt'] : ['Shipping label'];
  const lines = [`Service: ${s.serviceCode}`, `Order: ${s.orderName}`, `To: ${s.recipientName}`];
  if (s.cod) lines.push(`COD: ${s.cod.amount} ${s.cod.currency}`);
  if (s.batchId) lines.push(`Batch: ${s.batchId}`);
  return renderSampleLabel({
    pageSize: s.pageSize,
    carrierName: carrierDefinition(s.carrierCode).name,
    trackingNumber: s.trackingNumber ?? s.shipmentId,
    lines,
    pageCaptions: captions,
  });
}

/**
 * The create pipeline every simulator shares: credentials, the next scripted fault, the carrier's own refusals,
 * then `create` (which records the shipment) and `answer`. Timeouts drop the connection after `hold_ms`; whether
 * the shipment exists then depends on the fault, and the ledger tells.
 */
export async function handleCreate(
  ctx: SimulatorContext,
  carrierCode: string,
  request: SandboxRequest,
  create: (
    body: SimulatorShipment,
    options: { draftOnly: boolean; rejectAtImport: boolean },
  ) => Promise<SimulatedShipment>,
  answer: (shipment: SimulatedShipment) => Reply,
): Promise<Reply> {
  const accountId = request.params.account!;
  const refusedCredentials = credentialsRefusal(carrierCode, request);
  if (refusedCredentials) return refusedCredentials;
  const body = parseShipment(request.body);
  const account = ctx.state.account(accountId);
  const fault = takeFault(account.faults, 'create');
  const record = async (options: { draftOnly: boolean; rejectAtImport: boolean }) => {
    const shipment = await create(body, options);
    account.shipments.push(shipment);
    return shipment;
  };
  const normal = { draftOnly: false, rejectAtImport: false };
  switch (fault?.type) {
    case 'slow':
      await sleep(fault.delay_ms);
      break;
    case 'server_error':
      return json(500, { error: { code: 'internal', message: 'Internal server error' } });
    case 'reject':
      return refusalReply(
        carrierCode,
        fault.reason ?? 'other',
        fault.message ?? `Scripted refusal: ${fault.reason ?? 'other'}`,
      );
    case 'timeout_not_created':
      return { kind: 'drop', afterMs: fault.hold_ms };
    case 'timeout_created':
      await record(normal);
      return { kind: 'drop', afterMs: fault.hold_ms };
    case 'late_acceptance':
      ctx.state.later(accountId, fault.accept_after_ms, async () => void (await record(normal)), ctx.onError);
      return { kind: 'drop', afterMs: fault.hold_ms };
    case 'draft_left':
      // Only carrier D keeps drafts; elsewhere the call is lost before anything is created.
      if (carrierCode === 'carrier_d') await record({ draftOnly: true, rejectAtImport: false });
      return { kind: 'drop', afterMs: fault.hold_ms };
    case 'import_rejected':
      return answer(await record({ draftOnly: false, rejectAtImport: true }));
    default:
      break;
  }
  const refusal = naturalRefusal(carrierCode, body);
  if (refusal) return refusalReply(carrierCode, refusal.reason, refusal.text);
  return answer(await record(normal));
}

/**
 * Label, print and status calls: credentials, then scripted faults for that operation. `null` means go on normally.
 */
export async function operationFault(
  ctx: SimulatorContext,
  carrierCode: string,
  request: SandboxRequest,
  operation: FaultOperation,
): Promise<Reply | null> {
  const refusedCredentials = credentialsRefusal(carrierCode, request);
  if (refusedCredentials) return refusedCredentials;
  const fault = takeFault(ctx.state.account(request.params.account!).faults, operation);
  switch (fault?.type) {
    case 'slow':
      await sleep(fault.delay_ms);
      return null;
    case 'render_error':
      return json(500, { error: { code: 'render_failed', message: 'Label could not be rendered' } });
    case 'server_error':
      return json(500, { error: { code: 'internal', message: 'Internal server error' } });
    case 'timeout_created':
    case 'timeout_not_created':
    case 'late_acceptance':
    case 'draft_left':
      return { kind: 'drop', afterMs: fault.hold_ms };
    case 'reject':
      return refusalReply(carrierCode, fault.reason ?? 'other', fault.message ?? 'Scripted refusal');
    default:
      return null;
  }
}

export function notFound(what: string): Reply {
  return json(404, { error: { code: 'not_found', message: `${what} not found` } });
}

/**
 * The two read calls every simulator has: look shipments up by the service's reference (`?reference=`), and read
 * one by ID. Scripted `status` faults apply to both, as at a real carrier.
 */
export function registerShipmentReads(
  router: Router,
  ctx: SimulatorContext,
  carrier: { code: string; base: string; collection: string; item: string; toWire: (s: SimulatedShipment) => unknown },
): void {
  router.add('GET', `${carrier.base}/${carrier.collection}`, async (request) => {
    const fault = await operationFault(ctx, carrier.code, request, 'status');
    if (fault) return fault;
    const found = ctx.state.findByReference(
      request.params.account!,
      carrier.code,
      request.query.get('reference') ?? '',
    );
    return json(200, { [carrier.collection]: found.map(carrier.toWire) });
  });
  router.add('GET', `${carrier.base}/${carrier.collection}/:id`, async (request) => {
    const fault = await operationFault(ctx, carrier.code, request, 'status');
    if (fault) return fault;
    const shipment = ctx.state.findShipment(request.params.account!, carrier.code, request.params.id!);
    return shipment ? json(200, carrier.toWire(shipment)) : notFound(carrier.item);
  });
}

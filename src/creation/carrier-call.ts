import {
  CarrierRejectedError,
  CarrierTimeoutError,
  CarrierUnavailableError,
  type CarrierAccountSettings,
  type CarrierPort,
  type CarrierRejectionReason,
  type ShipmentRequest,
  type ShipmentResult,
} from '../carriers/port';

export type UnclearReason = 'carrier_timeout' | 'carrier_error' | 'worker_lost';

export type SendOutcome =
  | { kind: 'accepted'; shipment: ShipmentResult }
  /** The carrier refused: provably nothing was created. Its own text is for the logs only. */
  | { kind: 'rejected'; reason: CarrierRejectionReason; carrierText: string }
  /**
   * Nobody knows whether a shipment exists. `draft` is carrier D's unprinted draft, found by the reference: a shipment
   * only once printed.
   */
  | { kind: 'unclear'; reason: UnclearReason; draft: ShipmentResult | null };

/**
 * Looks the shipment up by the creation's reference; a lookup that fails is simply no answer (the outcome stays
 * unclear), never a reason to create again.
 */
async function lookUp(
  port: CarrierPort,
  account: CarrierAccountSettings,
  reference: string,
): Promise<ShipmentResult | null | 'unknown'> {
  try {
    return await port.findShipmentByReference(account, reference);
  } catch {
    return 'unknown';
  }
}

async function afterUnclear(
  port: CarrierPort,
  account: CarrierAccountSettings,
  reference: string,
  reason: UnclearReason,
): Promise<SendOutcome> {
  const found = await lookUp(port, account, reference);
  if (found === null || found === 'unknown') return { kind: 'unclear', reason, draft: null };
  if (found.status !== 'draft') return { kind: 'accepted', shipment: found };
  // Carrier D: an unprinted draft becomes a shipment when printed; printing is the side-effect-free way to finish it.
  try {
    const document = await port.fetchLabel(account, found.shipmentId);
    const printed = await port.getShipment(account, found.shipmentId);
    return { kind: 'accepted', shipment: { ...printed, document } };
  } catch {
    return { kind: 'unclear', reason, draft: found };
  }
}

/**
 * The one carrier call of a creation: never a second shipment (docs/decisions/0011-carrier-call.md). The shipment
 * carries the creation's stable reference; `resumed` says an earlier attempt of this call may have reached the
 * carrier (the worker was lost mid-call), and then only a lookup by that reference is made, never a create. A timeout
 * or a server error at the create is looked up once before it is called unclear.
 */
export async function sendShipment(
  port: CarrierPort,
  account: CarrierAccountSettings,
  request: ShipmentRequest,
  options: { resumed: boolean },
): Promise<SendOutcome> {
  if (options.resumed) {
    const found = await lookUp(port, account, request.reference);
    if (found === null || found === 'unknown') return { kind: 'unclear', reason: 'worker_lost', draft: null };
    return found.status === 'draft'
      ? afterUnclear(port, account, request.reference, 'worker_lost')
      : { kind: 'accepted', shipment: found };
  }
  try {
    return { kind: 'accepted', shipment: await port.createShipment(account, request) };
  } catch (error) {
    if (error instanceof CarrierRejectedError) {
      return { kind: 'rejected', reason: error.reason, carrierText: error.carrierText };
    }
    if (error instanceof CarrierTimeoutError) return afterUnclear(port, account, request.reference, 'carrier_timeout');
    if (error instanceof CarrierUnavailableError)
      return afterUnclear(port, account, request.reference, 'carrier_error');
    // Anything else (a bug, a broken answer): the request may have reached the carrier, so it is unclear too.
    return afterUnclear(port, account, request.reference, 'carrier_error');
  }
}

export type Recovery =
  /** The shipment exists (a carrier D draft found here was printed, which made it one). */
  | { kind: 'found'; shipment: ShipmentResult }
  /** Carrier D: an unprinted draft that could not be printed this time. */
  | { kind: 'draft'; draft: ShipmentResult }
  /** Not found, or the lookup failed: still unknown. */
  | { kind: 'none' };

/**
 * While a creation needs attention: the shipment looked up by the creation's stable reference, never created. Used
 * with backoff for 24 hours (docs/decisions/0015-needs-attention-loop.md).
 */
export async function findByReference(
  port: CarrierPort,
  account: CarrierAccountSettings,
  reference: string,
): Promise<Recovery> {
  const outcome = await afterUnclear(port, account, reference, 'carrier_timeout');
  if (outcome.kind === 'accepted') return { kind: 'found', shipment: outcome.shipment };
  return outcome.kind === 'unclear' && outcome.draft ? { kind: 'draft', draft: outcome.draft } : { kind: 'none' };
}

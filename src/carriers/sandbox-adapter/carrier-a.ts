import type { CarrierAccountSettings, ClaimCapableCarrierPort, ClaimRequest, ClaimResult } from '../port';
import type { Money } from '../../domain/money';
import type { CarrierHttpOptions } from './http-client';
import { SandboxCarrierAdapter, type CarrierMapper } from './sandbox-carrier';
import { shipmentResult } from './shared';

interface Packet {
  packet_id: string;
  barcode: string;
  tracking_number: string;
  tracking_url: string;
  cod: Money | null;
  declared_value: Money | null;
  consign_password: string | null;
}

/** Carrier A: packets; the stored A6 label is fetched separately, so `document` stays null on create. */
export const carrierA: CarrierMapper<Packet> = {
  code: 'carrier_a',
  prefix: '/carrier-a',
  collection: 'packets',
  pickupPoints: 'pickup-points',
  toResult: (p) =>
    shipmentResult({
      shipmentId: p.packet_id,
      trackingNumber: p.tracking_number,
      trackingUrl: p.tracking_url,
      barcode: p.barcode,
      cod: p.cod,
      declaredValue: p.declared_value,
      extras: p.consign_password ? { consign_password: p.consign_password } : {},
    }),
  labelCall: () => ({ method: 'GET', path: 'label.pdf' }),
};

/** Carrier A's adapter: the shared one, plus the customer-return claims only carrier A takes. */
export class CarrierAAdapter extends SandboxCarrierAdapter<Packet> implements ClaimCapableCarrierPort {
  constructor(http: CarrierHttpOptions) {
    super(carrierA, http);
  }

  async createClaim(account: CarrierAccountSettings, request: ClaimRequest): Promise<ClaimResult> {
    const response = await this.call(account, {
      method: 'POST',
      path: `${this.base(account)}/claims`,
      body: {
        reference: request.reference,
        order_name: request.orderName,
        original_packet_id: request.originalShipmentId,
        email: request.email,
      },
      operation: 'claim',
    });
    if (response.status === 404) throw new Error(`carrier A has no packet ${request.originalShipmentId}`);
    const claim = response.json<{ claim_id: string; tracking_number: string }>();
    return { claimId: claim.claim_id, trackingNumber: claim.tracking_number, extras: {} };
  }
}

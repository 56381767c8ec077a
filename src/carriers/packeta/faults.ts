import type { CarrierRejectionReason } from '../port';

/**
 * Packeta's faults as data: every fault the docs (`api-reference/errors-reference`, the methods' "Possible errors")
 * and the SOAP schema list for the calls the service makes, and what each becomes at the carrier port. A fault is
 * Packeta's definite answer, so a documented fault on a create means no packet was made: `carrier_rejected` with a
 * reason. A fault the table does not know, an HTTP error or an unreadable answer is `carrier_unavailable`; on a
 * create its outcome is unknown (decision 1203). docs/carriers/packeta.md shows the same table; a unit test keeps
 * them equal. Only faults of the methods the service calls (PACKETA_METHODS) are listed: the WSDL's
 * `AccessDeniedFault`, raised by `createPacketsB2B` and `getConsignmentPassword` alone, is not (decision 1240).
 */

/** What a fault becomes: a refusal of the create, or the carrier being unavailable for the call. */
export type FaultOutcome =
  | { kind: 'rejected'; reason: CarrierRejectionReason }
  /** Refused per field: `PacketAttributesFault`, mapped by FIELD_REASONS. */
  | { kind: 'by_field' }
  | { kind: 'unavailable' };

export interface FaultRow {
  fault: string;
  /** The calls that answer it, as documented. */
  raisedBy: string;
  /** What the docs say it means. */
  meaning: string;
  outcome: FaultOutcome;
}

const rejected = (reason: CarrierRejectionReason): FaultOutcome => ({ kind: 'rejected', reason });
const unavailable: FaultOutcome = { kind: 'unavailable' };

export const FAULTS: readonly FaultRow[] = [
  {
    fault: 'IncorrectApiPasswordFault',
    raisedBy: 'every call',
    meaning: 'the API password is wrong',
    outcome: rejected('credentials_invalid'),
  },
  {
    fault: 'PacketAttributesFault',
    raisedBy: 'createPacket, packetAttributesValid, createPacketClaimWithPassword',
    meaning: 'attributes failed validation; `detail` names each field',
    outcome: { kind: 'by_field' },
  },
  {
    fault: 'PacketEmailNotFilled',
    raisedBy: 'createPacketClaimWithPassword (docs only, not in the WSDL)',
    meaning: '`sendEmailToCustomer` without a valid e-mail',
    outcome: rejected('address_invalid'),
  },
  {
    fault: 'DispatchOrderNotAllowedFault',
    raisedBy: 'createPacket',
    meaning: 'a dispatch order without a fulfilment agreement (the service never sends one)',
    outcome: rejected('account_not_permitted'),
  },
  {
    fault: 'DispatchOrderInvalidPdfFault',
    raisedBy: 'createPacket (WSDL)',
    meaning: 'the dispatch order PDF is invalid (the service never sends one)',
    outcome: rejected('other'),
  },
  {
    fault: 'DispatchOrderUnknownCodeFault',
    raisedBy: 'createPacket (WSDL)',
    meaning: 'the dispatch order names unknown goods codes (the service never sends one)',
    outcome: rejected('other'),
  },
  {
    fault: 'PacketIdFault',
    raisedBy: 'packetStatus, packetLabelPdf',
    meaning: 'the packet ID is not valid',
    outcome: unavailable,
  },
  {
    fault: 'PacketIdsFault',
    raisedBy: 'packetsLabelsPdf',
    meaning: 'some packet IDs are not valid; `detail` lists them',
    outcome: unavailable,
  },
  {
    fault: 'NoPacketIdsFault',
    raisedBy: 'packetsLabelsPdf',
    meaning: 'the packet ID list is empty',
    outcome: unavailable,
  },
  {
    fault: 'UnknownLabelFormatFault',
    raisedBy: 'packetLabelPdf, packetsLabelsPdf',
    meaning: 'the label format is unknown',
    outcome: unavailable,
  },
  {
    fault: 'SenderNotExists',
    raisedBy: 'senderGetReturnRouting',
    meaning: 'the sender indication (`eshop`) is not a sender of the account',
    outcome: rejected('account_not_permitted'),
  },
];

/**
 * `PacketAttributesFault` per field: the `name` of each `detail/attributes/fault`. The first field of the fault (in
 * Packeta's order) that the table knows decides; a field it does not know is `other`. `addressId` is the pickup point
 * on a pickup-point packet and the account's home-delivery carrier otherwise.
 */
export const FIELD_REASONS: Readonly<Record<string, CarrierRejectionReason | 'address_id'>> = {
  addressId: 'address_id',
  carrierPickupPoint: 'pickup_point_invalid',
  weight: 'weight_out_of_range',
  // A home-delivery carrier that needs the parcel's dimensions: the service sends none.
  size: 'service_not_available',
  cod: 'cod_limit',
  currency: 'cod_limit',
  zip: 'postcode_invalid',
  name: 'address_invalid',
  surname: 'address_invalid',
  company: 'address_invalid',
  street: 'address_invalid',
  houseNumber: 'address_invalid',
  city: 'address_invalid',
  province: 'address_invalid',
  email: 'address_invalid',
  phone: 'address_invalid',
  consignCountry: 'address_invalid',
  // An account Packeta has not approved for posting yet answers with this field (observed on live replies).
  user_id: 'account_not_permitted',
  eshop: 'account_not_permitted',
};

export interface FieldFault {
  name: string;
  fault: string;
}

/** The port's refusal reason for a per-field fault. */
export function reasonForFields(fields: readonly FieldFault[], toPickupPoint: boolean): CarrierRejectionReason {
  for (const field of fields) {
    const reason = FIELD_REASONS[field.name];
    if (reason === 'address_id') return toPickupPoint ? 'pickup_point_invalid' : 'service_not_available';
    if (reason) return reason;
  }
  return 'other';
}

export const faultRow = (fault: string): FaultRow | undefined => FAULTS.find((row) => row.fault === fault);

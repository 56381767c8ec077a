/**
 * The structs of Packeta's answers the service reads, restated from the docs (`api-reference/
 * data-structures-reference`) with the SOAP schema's types: every packet ID is a string (the PHP-bugfix WSDL's rule,
 * since a 64-bit ID does not fit every client's integer).
 */

/** `PacketIdDetail`: what `createPacket` answers. */
export interface PacketIdDetail {
  id: string;
  /** `Z` and the ID: what the label's barcode encodes and what tracking searches for. */
  barcode: string;
  /** The barcode grouped for reading (`Z 123 4567 890`). */
  barcodeText: string;
}

/** `PacketDetail`: a claim with password adds the password the customer gives at the pickup point. */
export interface PacketDetail extends PacketIdDetail {
  password: string;
}

/** `CurrentStatusRecord`: what `packetStatus` answers. */
export interface CurrentStatusRecord {
  dateTime: string;
  statusCode: number;
  codeText: string;
  statusText: string;
}

/** The endpoint of an account's calls and the time each may take. */
export interface PacketaEndpoint {
  /** The REST URL (config `PACKETA_API_URL`; the fake Packeta at `{SANDBOX_URL}/packeta/api/rest`). */
  url: string;
  timeoutMs: number;
}

/** A Packeta account as the service configures it (`labelctl carrier-accounts create --endpoint packeta`). */
export interface PacketaAccountSettings {
  /** The sealed API password (src/crypto), opened only for the call. */
  sealedApiPassword: string;
  /** Sender indication (`eshop`): which of the client's senders the packets belong to. */
  eshop: string;
  /** Packeta's ID of the home-delivery carrier per destination country (its carrier feed), e.g. `{"CZ": "106"}`. */
  homeDeliveryCarriers: Record<string, string>;
}

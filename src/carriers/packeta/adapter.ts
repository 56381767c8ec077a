import { openValue } from '../../crypto/sealed-values';
import {
  CarrierRejectedError,
  CarrierUnavailableError,
  ReferenceLookupUnsupportedError,
  type CarrierAccountSettings,
  type ClaimCapableCarrierPort,
  type ClaimRequest,
  type ClaimResult,
  type LabelDocument,
  type PickupNetworkPort,
  type ShipmentRequest,
  type ShipmentResult,
} from '../port';
import { describePdf } from '../../pdf/inspect';
import { labelDocument } from '../sandbox-adapter/shared';
import { callPacketa, PacketaFault, type PacketaMethod, type PacketaOperation } from './client';
import { faultRow, reasonForFields } from './faults';
import { labelFormat, positionsPerPage, SINGLE_LABEL_FORMAT } from './label-formats';
import { addressIdFor, claimAttributes, packetAttributes, packetIdDetail, packetResult, trackingUrl } from './mapping';
import { CANCELLED_STATUS } from './statuses';
import type { PacketaAccountSettings, PacketaEndpoint } from './types';
import { element, textOf, type XmlElement } from './xml';

/**
 * The account's sealed API password does not open under this process's `SETTINGS_ENCRYPTION_KEY` (another key than
 * the one it was sealed with): the account's configuration, not Packeta, so a creation fails as Packeta's own refusal
 * of the password would (`credentials_invalid`), while `labelctl` names the real cause.
 */
export class SealedPasswordError extends CarrierRejectedError {
  constructor() {
    super('credentials_invalid', 'the API password does not open');
  }
}

/** The owner a Packeta API password is sealed to (src/crypto: a sealed value opens only on its own account). */
export const apiPasswordOwner = (accountId: string): string => `carrier_account:${accountId}`;

export interface PacketaAdapterOptions {
  endpoint: PacketaEndpoint;
  /** `SETTINGS_ENCRYPTION_KEY`: opens the account's API password for the call, never kept. */
  settingsKey: Buffer;
  /**
   * Packeta's pickup-point network for these accounts. Packeta has no search call: integrators keep a copy of its
   * feed (docs `pick-up-point-selection`), and whatever holds that copy answers here.
   */
  pickupPoints: PickupNetworkPort;
}

/** What the carrier text of a refusal says in the logs: the fault, its text, and each field's complaint. */
function carrierText(fault: PacketaFault): string {
  const fields = fault.fields.map((f) => `${f.name}: ${f.fault}`).join('; ');
  return `${fault.fault}: ${fault.text}${fields ? ` (${fields})` : ''}`;
}

/**
 * A fault as the port's error (src/carriers/packeta/faults.ts). A create or a claim refused by a documented fault made
 * nothing; any other fault, and every fault of a read, is Packeta unavailable for the call.
 */
function portError(fault: PacketaFault, operation: PacketaOperation, toPickupPoint: boolean): Error {
  const outcome = faultRow(fault.fault)?.outcome;
  if (operation === 'create' || operation === 'claim' || operation === 'check') {
    if (outcome?.kind === 'rejected') return new CarrierRejectedError(outcome.reason, carrierText(fault));
    if (outcome?.kind === 'by_field')
      return new CarrierRejectedError(reasonForFields(fault.fields, toPickupPoint), carrierText(fault));
  }
  return new CarrierUnavailableError(operation === 'label' ? 'render_error' : 'carrier_error', 200);
}

/**
 * Carrier A on Packeta's REST/XML API (decision 1200): the carrier port, the claim port and the pickup-network port for
 * accounts whose endpoint is `packeta`.
 */
export class PacketaAdapter implements ClaimCapableCarrierPort, PickupNetworkPort {
  readonly searchPickupPoints: PickupNetworkPort['searchPickupPoints'];
  readonly findPickupPoint: PickupNetworkPort['findPickupPoint'];

  constructor(private readonly options: PacketaAdapterOptions) {
    this.searchPickupPoints = (account, search) => options.pickupPoints.searchPickupPoints(account, search);
    this.findPickupPoint = (account, pointId) => options.pickupPoints.findPickupPoint(account, pointId);
  }

  private settings(account: CarrierAccountSettings): PacketaAccountSettings {
    if (!account.packeta) throw new Error(`carrier account ${account.accountId} has no Packeta settings`);
    return account.packeta;
  }

  /** One call with the account's password, opened here and nowhere else; faults become the port's errors. */
  private async call(
    account: CarrierAccountSettings,
    method: PacketaMethod,
    args: XmlElement[],
    operation: PacketaOperation,
    toPickupPoint = false,
  ): Promise<XmlElement> {
    const password = openValue(
      this.options.settingsKey,
      apiPasswordOwner(account.accountId),
      this.settings(account).sealedApiPassword,
    );
    if (password === null) throw new SealedPasswordError();
    try {
      return await callPacketa(this.options.endpoint, method, password, args, operation);
    } catch (error) {
      if (error instanceof PacketaFault) throw portError(error, operation, toPickupPoint);
      throw error;
    }
  }

  async createShipment(account: CarrierAccountSettings, request: ShipmentRequest): Promise<ShipmentResult> {
    const settings = this.settings(account);
    const addressId = addressIdFor(request, settings);
    if (addressId === null) {
      const country = request.address.country;
      throw new CarrierRejectedError('service_not_available', `no home-delivery carrier configured for ${country}`);
    }
    const attributes = packetAttributes(request, settings, addressId, account.currency);
    const result = await this.call(
      account,
      'createPacket',
      [element('packetAttributes', attributes)],
      'create',
      request.pickupPoint !== null,
    );
    return packetResult(packetIdDetail(result), request);
  }

  /** `packetStatus`: any status but cancelled is a packet whose label prints. */
  async getShipment(account: CarrierAccountSettings, shipmentId: string): Promise<ShipmentResult> {
    const result = await this.call(account, 'packetStatus', [element('packetId', shipmentId)], 'status');
    const code = Number(textOf(result, 'statusCode'));
    if (code === CANCELLED_STATUS) throw new Error(`Packeta packet ${shipmentId} is cancelled`);
    return {
      status: 'ready',
      shipmentId,
      carrierReference: shipmentId,
      trackingNumber: `Z${shipmentId}`,
      trackingUrl: trackingUrl(shipmentId),
      barcode: `Z${shipmentId}`,
      cod: null,
      declaredValue: null,
      extras: {},
      document: null,
    };
  }

  /** No documented call finds a packet by the e-shop's reference or order number (decision 1201). */
  findShipmentByReference(): Promise<ShipmentResult | null> {
    return Promise.reject(new ReferenceLookupUnsupportedError('Packeta'));
  }

  /** `packetLabelPdf` in `A6 on A6`: the stored single label (spec: carrier A prints A6). */
  async fetchLabel(account: CarrierAccountSettings, shipmentId: string): Promise<LabelDocument> {
    const { pdf } = await this.fetchLabelSheet(account, [shipmentId], SINGLE_LABEL_FORMAT, 0);
    return labelDocument(pdf).catch(() => {
      throw new CarrierUnavailableError('render_error', 200);
    });
  }

  /**
   * The labels of several packets as Packeta lays them out (`packetsLabelsPdf`; one packet: `packetLabelPdf`),
   * starting `offset` positions into the first page. Throws RangeError for a format or offset Packeta does not render.
   */
  async fetchLabelSheet(
    account: CarrierAccountSettings,
    packetIds: string[],
    format: string,
    offset: number,
  ): Promise<{ pdf: Uint8Array; pages: number }> {
    const layout = labelFormat(format);
    if (!layout) throw new RangeError(`Packeta renders no label format "${format}"`);
    if (!Number.isInteger(offset) || offset < 0 || offset >= positionsPerPage(layout))
      throw new RangeError(`offset ${offset} is outside ${format} (0 to ${positionsPerPage(layout) - 1})`);
    if (packetIds.length === 0) throw new RangeError('no packets to print');
    const placement = [element('format', format), element('offset', String(offset))];
    const result =
      packetIds.length === 1
        ? await this.call(account, 'packetLabelPdf', [element('packetId', packetIds[0]), ...placement], 'label')
        : await this.call(
            account,
            'packetsLabelsPdf',
            [
              element(
                'packetIds',
                packetIds.map((id) => element('id', id)),
              ),
              ...placement,
            ],
            'label',
          );
    const pdf = Buffer.from(result.text, 'base64');
    const described = await describePdf(pdf).catch(() => {
      throw new CarrierUnavailableError('render_error', 200);
    });
    return { pdf, pages: described.pages };
  }

  /** A customer return the customer hands in with a password (`createPacketClaimWithPassword`). */
  async createClaim(account: CarrierAccountSettings, request: ClaimRequest): Promise<ClaimResult> {
    const attributes = claimAttributes(request, this.settings(account));
    const result = await this.call(
      account,
      'createPacketClaimWithPassword',
      [element('claimWithPasswordAttributes', attributes)],
      'claim',
    );
    const packet = packetIdDetail(result);
    const password = textOf(result, 'password');
    if (!password) throw new Error('Packeta answered a claim without its password');
    return { claimId: packet.id, trackingNumber: packet.barcode, extras: { consign_password: password } };
  }

  /**
   * Proves the account: `senderGetReturnRouting` for its sender indication answers only to the right password
   * (IncorrectApiPasswordFault) and a sender the account has (SenderNotExists), and changes nothing, as Packeta's
   * WooCommerce plugin checks its settings.
   */
  async checkAccount(account: CarrierAccountSettings): Promise<{ returnRouting: string[] }> {
    const result = await this.call(
      account,
      'senderGetReturnRouting',
      [element('senderLabel', this.settings(account).eshop)],
      'check',
    );
    return { returnRouting: result.children.map((c) => c.text) };
  }
}

import type { Money } from '../../domain/money';
import type { ClaimRequest, ShipmentRequest, ShipmentResult } from '../port';
import type { PacketIdDetail, PacketaAccountSettings } from './types';
import { elements, textOf, type XmlElement } from './xml';

/**
 * The service's shipment as Packeta's `PacketAttributes` and Packeta's answers as the port's results: pure, so every
 * rule of decision 1202 is unit-tested here.
 */

/** Public tracking of a packet (docs `packet-tracking/tracking`: `https://tracking.packeta.com/LANGUAGE/?id=ID`). */
export const trackingUrl = (packetId: string): string => `https://tracking.packeta.com/en/?id=${packetId}`;

/** The order number Packeta takes: letters and digits only, at most 24 (decision 1202). `#1001` -> `1001`. */
export function packetNumber(orderName: string): string {
  return orderName.replace(/[^A-Za-z0-9]/g, '').slice(0, 24);
}

/**
 * Packeta wants a name and a surname. The recipient is one string: the last word is the surname; a single word is
 * sent as both, which Packeta's own splitting of a whole name in `name` would also leave (docs "Single field").
 */
export function splitName(fullName: string): { name: string; surname: string } {
  const words = fullName.trim().split(/\s+/);
  if (words.length < 2) return { name: words[0] ?? '', surname: words[0] ?? '' };
  return { name: words.slice(0, -1).join(' '), surname: words[words.length - 1]! };
}

/** `Dlouhá 12/3a` -> street `Dlouhá`, house number `12/3a`; without a trailing number the street is sent whole. */
export function splitStreet(street: string): { street: string; houseNumber: string | null } {
  const match = /^(.*\S)\s+(\d[\w/-]*)$/u.exec(street.trim());
  return match ? { street: match[1]!, houseNumber: match[2]! } : { street: street.trim(), houseNumber: null };
}

/** Grams as Packeta's kilograms, three places (WSDL `weight`). */
export const kilograms = (grams: number): string => (grams / 1000).toFixed(3);

/** The phone without the spaces and punctuation people type (`+420 600 111 222` -> `+420600111222`). */
export const packetaPhone = (phone: string): string => phone.replace(/[\s().-]/g, '');

/** Where the packet goes: a Packeta pickup point by its ID, or the account's home-delivery carrier for the country. */
export function addressIdFor(request: ShipmentRequest, settings: PacketaAccountSettings): string | null {
  if (request.pickupPoint) return request.pickupPoint.id;
  return settings.homeDeliveryCarriers[request.address.country] ?? null;
}

/**
 * `PacketAttributes` for a create. `value` is required and above 0 (the client-section import docs; decision 1240): the
 * declared value (carrier A always decides one, the goods' value by default), else the COD amount, else 0, which
 * Packeta refuses on its own. `currency` is always sent, so neither amount is read in the destination's currency (docs
 * "Currency conversions"); a currency other than the destination's needs the client's conversion at Packeta.
 */
export function packetAttributes(
  request: ShipmentRequest,
  settings: PacketaAccountSettings,
  addressId: string,
  accountCurrency: string,
): XmlElement[] {
  const { name, surname } = splitName(request.recipient.name);
  const value: Money = request.declaredValue ?? request.cod ?? { amount: '0.00', currency: accountCurrency };
  const home = request.pickupPoint === null;
  const street = home ? splitStreet(request.address.street) : null;
  return elements({
    number: packetNumber(request.orderName),
    name,
    surname,
    company: request.recipient.company || null,
    email: request.email,
    phone: request.phone === null ? null : packetaPhone(request.phone),
    addressId,
    currency: value.currency,
    cod: request.cod ? request.cod.amount : null,
    value: value.amount,
    weight: kilograms(request.weightGrams),
    eshop: settings.eshop,
    street: street?.street,
    houseNumber: street?.houseNumber,
    city: home ? request.address.city : null,
    zip: home ? request.address.postcode : null,
  });
}

/** `ClaimWithPasswordAttributes` for a customer return. */
export function claimAttributes(request: ClaimRequest, settings: PacketaAccountSettings): XmlElement[] {
  return elements({
    number: packetNumber(request.orderName),
    email: request.email,
    phone: request.phone === null ? null : packetaPhone(request.phone),
    value: request.value.amount,
    currency: request.value.currency,
    eshop: settings.eshop,
    consignCountry: request.consignCountry,
    sendEmailToCustomer: request.email ? 'true' : 'false',
  });
}

/** `PacketIdDetail` from a `<result>`; a missing part is Packeta's answer broken, never a packet without an ID. */
export function packetIdDetail(result: XmlElement): PacketIdDetail {
  const id = textOf(result, 'id');
  const barcode = textOf(result, 'barcode');
  if (!id || !/^\d+$/.test(id) || !barcode) throw new Error('Packeta answered a packet without its ID and barcode');
  return { id, barcode, barcodeText: textOf(result, 'barcodeText') ?? barcode };
}

/**
 * A created packet as the port's result. The packet ID is what the client section shows (spec
 * `attention.carrier_reference`: carrier A packet ID); the barcode `Z…` is the tracking number. COD and declared value
 * are what was sent: Packeta takes them as given or refuses the packet.
 */
export function packetResult(
  packet: PacketIdDetail,
  request: Pick<ShipmentRequest, 'cod' | 'declaredValue'>,
): ShipmentResult {
  return {
    status: 'ready',
    shipmentId: packet.id,
    carrierReference: packet.id,
    trackingNumber: packet.barcode,
    trackingUrl: trackingUrl(packet.id),
    barcode: packet.barcode,
    cod: request.cod,
    declaredValue: request.declaredValue,
    extras: {},
    document: null,
  };
}

import {
  CLAIM_WITH_PASSWORD_ATTRIBUTES,
  COD_STEP,
  PACKET_ATTRIBUTES,
  PACKETA_CURRENCIES,
  PERSON_NAME,
  PHONE_FORMATS,
  ZIP_FORMATS,
  type AttributeRule,
} from '../attributes';
import type { FieldFault } from '../faults';
import { destinationOf, type Destination } from './network';

/**
 * The fake Packeta's checks of a `PacketAttributes` or `ClaimWithPasswordAttributes` struct, from the same rows the
 * adapter builds it from (src/carriers/packeta/attributes.ts) plus the documented rules across fields: e-mail or
 * phone, home-delivery address, the destination's postcode and phone formats, COD in exact change and only where the
 * destination collects it, the destination's weight limit. Each problem is an `AttributeFault` as Packeta answers it.
 */

// WSDL `money` and `weight`: decimals with 2 and 3 places. The integer digits are the fake's own bounds (Packeta
// publishes its maximum value only "in the TOS"): 7 is the spec's largest amount, 9,999,999.99.
const MONEY = /^\d{1,7}(\.\d{1,2})?$/;
const WEIGHT = /^\d{1,4}(\.\d{1,3})?$/;

/** The other struct members the schema allows; the fake ignores their content. */
const OTHER_PACKET_FIELDS = new Set([
  'id',
  'affiliateId',
  'adultContent',
  'deliverOn',
  'province',
  'carrierService',
  'customerBarcode',
  'carrierPickupPoint',
  'size',
  'attributes',
  'items',
  'security',
  'services',
  'customsDeclaration',
  'dispatchOrder',
]);

function formatProblem(rule: AttributeRule, value: string, destination: string | null): string | null {
  switch (rule.format) {
    case 'alphanumeric':
      return /^[A-Za-z0-9]+$/.test(value) ? null : 'must be alphanumeric';
    case 'person_name':
      return PERSON_NAME.test(value) ? null : 'contains characters a name may not have';
    case 'email':
      return /^.*@.*\..*$/.test(value) ? null : 'is not a valid e-mail';
    case 'phone':
      return phoneValid(value, destination) ? null : 'is not a valid phone number';
    case 'money':
      return MONEY.test(value) ? null : 'must be a decimal number with at most two decimal places';
    case 'weight':
      return WEIGHT.test(value) && Number(value) > 0 ? null : 'must be a positive weight in kg, at most 3 decimals';
    case 'unsigned':
      return /^\d+$/.test(value) ? null : 'must be an unsigned integer';
    case 'currency':
      return (PACKETA_CURRENCIES as readonly string[]).includes(value) ? null : 'is not a supported currency';
    case 'country':
      return /^[A-Za-z]{2}$/.test(value) ? null : 'must be a two-letter country code';
    case 'boolean':
      return ['true', 'false', '1', '0'].includes(value) ? null : 'must be a boolean';
    case 'zip':
      return destination && ZIP_FORMATS[destination] && !ZIP_FORMATS[destination].test(value)
        ? `is not a valid ZIP in ${destination}`
        : null;
    case 'text':
      return null;
  }
}

/**
 * `+` or `00`, the destination's country code and its national number; or the national number alone, read as the
 * destination's. Only the destination's format counts: Packeta's import docs say the phone "needs to be in the valid
 * destination country's format", stricter than the API page's table of formats by country code (decision 1240). A
 * destination the table lacks takes any of its formats, or 6 to 15 digits (the fake's own bound).
 */
export function phoneValid(phone: string, destination: string | null): boolean {
  const digits = phone.replace(/^(\+|00)/, '');
  if (!/^\d+$/.test(digits)) return false;
  const international = phone.startsWith('+') || phone.startsWith('00');
  const own = destination ? PHONE_FORMATS[destination] : undefined;
  if (international) {
    const formats = own ? [own] : Object.values(PHONE_FORMATS);
    return formats.some((f) => digits.startsWith(f.code) && f.national.test(digits.slice(f.code.length)));
  }
  return own ? own.national.test(digits) : digits.length >= 6 && digits.length <= 15;
}

type Fields = Record<string, string>;

/** Each row's presence, length and format; `home` says whether the home-delivery fields are required. */
function checkRows(
  rows: readonly AttributeRule[],
  fields: Fields,
  context: { home: boolean; destination: string | null },
): FieldFault[] {
  const faults: FieldFault[] = [];
  for (const rule of rows) {
    const value = fields[rule.name];
    const required = rule.required === 'always' || (rule.required === 'home_delivery' && context.home);
    if (value === undefined || value === '') {
      if (required) faults.push({ name: rule.name, fault: 'is required' });
      continue;
    }
    if (rule.maxLength !== null && [...value].length > rule.maxLength)
      faults.push({ name: rule.name, fault: `is longer than ${rule.maxLength} characters` });
    else {
      const problem = formatProblem(rule, value, context.destination);
      if (problem) faults.push({ name: rule.name, fault: problem });
    }
  }
  if (rows.some((r) => r.required === 'contact') && !fields.email && !fields.phone)
    faults.push({ name: 'email', fault: 'e-mail or phone is required' });
  return faults;
}

/**
 * The currency of `cod` and `value` is the one the destination accepts (feeds: `currency`, "currency code accepted by
 * the branch / carrier"), or one the client converts from at submission (docs "Handling Currency Conversions": the
 * client section's currency conversion settings).
 */
function currencyFaults(fields: Fields, place: { currency: string }, conversions: ReadonlySet<string>): FieldFault[] {
  const currency = fields.currency;
  if (!currency || currency === place.currency || conversions.has(currency)) return [];
  return [
    { name: 'currency', fault: `the destination takes ${place.currency}; no conversion from ${currency} is set` },
  ];
}

/** A packet's value is above 0 (docs, client-section import: "Value: decimal > 0"; decision 1240). */
function valueFaults(fields: Fields): FieldFault[] {
  return MONEY.test(fields.value ?? '') && Number(fields.value) <= 0
    ? [{ name: 'value', fault: 'must be above 0' }]
    : [];
}

/** COD in exact change (docs "Supported cash on delivery values") and only where the destination collects it. */
function codFaults(fields: Fields, destination: Destination, currency: string): FieldFault[] {
  const cod = Number(fields.cod ?? '0');
  if (!MONEY.test(fields.cod ?? '0') || cod === 0) return [];
  const collects = destination.kind === 'carrier' ? !destination.carrier.disallowsCod : destination.branch.codAllowed;
  if (!collects) return [{ name: 'cod', fault: 'cash on delivery is not possible at this destination' }];
  const step = COD_STEP[currency];
  if (step !== undefined && Math.round(cod * 100) % (step * 100) !== 0)
    return [{ name: 'cod', fault: `cash on delivery in ${currency} must be a multiple of ${step}` }];
  return [];
}

export interface PacketCheck {
  faults: FieldFault[];
  destination: Destination | null;
  /** The currency of `cod` and `value`: the one sent, else the destination's (docs "Currency conversions"). */
  currency: string | null;
}

/** What the fake knows of the client account beyond its password: the currencies it converts from. */
export interface ClientSettings {
  conversions: ReadonlySet<string>;
}

/** A createPacket / packetAttributesValid struct checked as Packeta documents it. */
export function checkPacketAttributes(
  fields: Fields,
  client: ClientSettings = { conversions: new Set() },
): PacketCheck {
  const unknown = Object.keys(fields).filter(
    (name) => !PACKET_ATTRIBUTES.some((r) => r.name === name) && !OTHER_PACKET_FIELDS.has(name),
  );
  const destination = fields.addressId && /^\d+$/.test(fields.addressId) ? destinationOf(fields.addressId) : null;
  const home = destination?.kind === 'carrier';
  const country = destination
    ? (destination.kind === 'carrier' ? destination.carrier : destination.branch).country
    : null;
  const faults = [
    ...unknown.map((name) => ({ name, fault: 'is not an attribute of PacketAttributes' })),
    ...checkRows(PACKET_ATTRIBUTES, fields, { home, destination: country }),
    ...valueFaults(fields),
  ];
  if (fields.addressId && /^\d+$/.test(fields.addressId)) {
    if (!destination) faults.push({ name: 'addressId', fault: 'no branch or carrier has this ID' });
    else if (destination.kind === 'branch' && !destination.active)
      faults.push({ name: 'addressId', fault: 'the branch is not active' });
  }
  if (!destination || faults.some((f) => f.name === 'addressId')) return { faults, destination, currency: null };
  const place = destination.kind === 'carrier' ? destination.carrier : destination.branch;
  const currency = fields.currency ?? place.currency;
  if (WEIGHT.test(fields.weight ?? '') && Number(fields.weight) > place.maxWeightKg)
    faults.push({ name: 'weight', fault: `exceeds the destination's limit of ${place.maxWeightKg} kg` });
  if (!faults.some((f) => f.name === 'currency')) faults.push(...currencyFaults(fields, place, client.conversions));
  faults.push(...codFaults(fields, destination, currency));
  return { faults, destination, currency };
}

/** A createPacketClaimWithPassword struct (WSDL: e-mail, phone and currency all required). */
export function checkClaimAttributes(fields: Fields): FieldFault[] {
  const unknown = Object.keys(fields).filter(
    (name) => !CLAIM_WITH_PASSWORD_ATTRIBUTES.some((r) => r.name === name) && name !== 'id' && name !== 'security',
  );
  return [
    ...unknown.map((name) => ({ name, fault: 'is not an attribute of ClaimWithPasswordAttributes' })),
    ...checkRows(CLAIM_WITH_PASSWORD_ATTRIBUTES, fields, {
      home: false,
      destination: fields.consignCountry?.toUpperCase() ?? null,
    }),
  ];
}

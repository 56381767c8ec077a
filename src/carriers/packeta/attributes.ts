/**
 * Packeta's attribute structs as data, restated from its published API (docs.packeta.com `api-reference/
 * data-structures-reference`, the repository `Packeta/api-documentation`) and the SOAP schema Packeta ships (the
 * `soap-php-bugfix.wsdl` its WooCommerce plugin vendored). Where the two disagree the stricter rule is kept and the
 * row says so (decision 1202). The adapter builds what it sends from these rows and the fake Packeta checks what it
 * receives against the same rows, so a rule lives once.
 */

/** How a value is checked beyond its length. */
export type AttributeFormat =
  /** Letters and digits only (docs: "alphanumeric" for the order number). */
  | 'alphanumeric'
  /** Docs' name rule: letters, digits, space and `,.'-&()`. */
  | 'person_name'
  | 'email'
  | 'phone'
  /** Decimal with at most two places (WSDL `money`). */
  | 'money'
  /** Decimal kilograms with at most three places (WSDL `weight`). */
  | 'weight'
  /** Unsigned integer (WSDL `unsignedInt`). */
  | 'unsigned'
  | 'currency'
  | 'country'
  | 'boolean'
  /** Checked by the destination's postcode rule (docs: "valid ZIP"). */
  | 'zip'
  | 'text';

export interface AttributeRule {
  name: string;
  /** `always`; `home_delivery` (docs: "on home delivery"); `contact` (docs: e-mail or phone, one of them). */
  required: 'always' | 'home_delivery' | 'contact' | 'never';
  maxLength: number | null;
  format: AttributeFormat;
  /** Where the rule comes from, and which side won a disagreement. */
  source: string;
}

const rule = (
  name: string,
  required: AttributeRule['required'],
  maxLength: number | null,
  format: AttributeFormat,
  source: string,
): AttributeRule => ({ name, required, maxLength, format, source });

/** `PacketAttributes`, the fields the service sends (the rest of the struct is listed in docs/carriers/packeta.md). */
export const PACKET_ATTRIBUTES: readonly AttributeRule[] = [
  rule('number', 'always', 24, 'alphanumeric', 'docs 1-36, WSDL string24 and the older docs 1-24: 24 kept'),
  rule('name', 'always', 32, 'person_name', 'docs 1-32 with the name regex; WSDL string32'),
  rule('surname', 'always', 32, 'person_name', 'docs 1-32 with the name regex; WSDL string32'),
  rule('company', 'never', 32, 'text', 'docs 1-32; WSDL string32'),
  rule('email', 'contact', null, 'email', 'docs "valid email", required without phone; WSDL pattern .*@.*\\..*'),
  rule('phone', 'contact', 20, 'phone', 'docs per-country formats, required without e-mail; WSDL maxLength 20'),
  rule('addressId', 'always', 10, 'unsigned', 'docs "valid active branch ID"; WSDL unsignedInt'),
  rule('currency', 'never', 3, 'currency', 'docs CZK, EUR, HUF, PLN, RON; WSDL length 3'),
  rule('cod', 'never', null, 'money', 'docs integer for CZK, multiple of 5 for HUF; WSDL money'),
  rule('value', 'always', null, 'money', 'docs required decimal; WSDL money'),
  rule('weight', 'always', null, 'weight', 'docs kilograms, required; WSDL weight (3 places)'),
  rule('eshop', 'never', 64, 'text', 'docs: required when the account has several senders; WSDL string64'),
  rule('note', 'never', 128, 'text', 'docs 1-128 without " and ;; WSDL unbounded: 128 kept'),
  rule('street', 'home_delivery', 32, 'text', 'docs 1-32; WSDL string64: 32 kept'),
  rule('houseNumber', 'home_delivery', 16, 'text', 'docs 1-16; WSDL string16'),
  rule('city', 'home_delivery', 32, 'text', 'docs 1-32; WSDL string32'),
  rule('zip', 'home_delivery', 255, 'zip', 'docs "valid ZIP"; WSDL maxLength 255'),
];

/** `ClaimWithPasswordAttributes`: a customer return the customer hands in with a password instead of a label. */
export const CLAIM_WITH_PASSWORD_ATTRIBUTES: readonly AttributeRule[] = [
  rule('number', 'always', 24, 'alphanumeric', 'docs 1-36, WSDL string24: 24 kept'),
  rule('email', 'always', null, 'email', 'docs: one of e-mail and phone; WSDL and the older docs: both, kept'),
  rule('phone', 'always', 20, 'phone', 'docs: one of e-mail and phone; WSDL and the older docs: both, kept'),
  rule('value', 'always', null, 'money', 'docs required decimal; WSDL money'),
  rule('currency', 'always', 3, 'currency', 'docs optional; WSDL required: kept required'),
  rule('eshop', 'always', 64, 'text', 'docs required; WSDL string64'),
  rule('consignCountry', 'always', 2, 'country', 'docs 2 letters, required; WSDL string2'),
  rule('sendEmailToCustomer', 'never', null, 'boolean', 'docs optional bool'),
];

/** The currencies `PacketAttributes.currency` and the claims accept (docs). */
export const PACKETA_CURRENCIES = ['CZK', 'EUR', 'HUF', 'PLN', 'RON'] as const;

/**
 * COD has to be payable in cash with exact change (docs "Supported cash on delivery values"): whole CZK, HUF in
 * multiples of 5; every other currency to two places (WSDL `money`; the client-section import: EUR two places).
 */
export const COD_STEP: Readonly<Record<string, number>> = { CZK: 1, HUF: 5 };

/** The docs' name regex (`/^[\p{L}\p{N} ,.'\-&()]+$/ui`). */
export const PERSON_NAME = /^[\p{L}\p{N} ,.'\-&()]+$/iu;

/**
 * Phone numbers Packeta accepts for the destinations the service ships to (docs `api-reference/phone-number-formats`):
 * an optional `+` or `00`, the country code and the national number. Without a country code the number is read as
 * the destination's (docs "Phone number country codes"), so the national part alone is accepted too.
 */
export const PHONE_FORMATS: Readonly<Record<string, { code: string; national: RegExp }>> = {
  CZ: { code: '420', national: /^[0-9]{9}$/ },
  SK: { code: '421', national: /^[0-9]{9}$/ },
  HU: { code: '36', national: /^[0-9]{8,9}$/ },
  PL: { code: '48', national: /^[0-9]{9}$/ },
  RO: { code: '40', national: /^0?[1-9][0-9]{8}$/ },
  DE: { code: '49', national: /^[0-9]{7,13}$/ },
  AT: { code: '43', national: /^[0-9]{8,13}$/ },
};

/** Postcodes by destination, as the carriers print them (space optional where the country writes one). */
export const ZIP_FORMATS: Readonly<Record<string, RegExp>> = {
  CZ: /^[0-9]{3} ?[0-9]{2}$/,
  SK: /^[0-9]{3} ?[0-9]{2}$/,
  HU: /^[0-9]{4}$/,
  PL: /^[0-9]{2}-[0-9]{3}$/,
  RO: /^[0-9]{6}$/,
  DE: /^[0-9]{5}$/,
  AT: /^[0-9]{4}$/,
};

import type { DocumentFormat } from './labels';

/**
 * The carriers the service knows, and what each means for documents and COD. Carrier letters follow the spec's
 * naming note; the others stand for the kinds the spec names without naming them. Shared by the domain model,
 * the document endpoints and the sandbox simulators.
 */
export type DocumentMode =
  /** A stored copy is saved at creation and served directly. */
  | 'stored'
  /** Rendered at the carrier on demand through a side-effect-free print call. */
  | 'render'
  /** Stored copy when one exists; without it the label cannot be issued again (410 label_not_reissuable). */
  | 'stored_only'
  /** One of the six excluded carriers: never served by the API (422 document_unavailable, carrier_excluded). */
  | 'excluded';

/** Page sizes in PDF points (1 mm = 72 / 25.4 pt). */
export const MM = 72 / 25.4;

/**
 * Whom a carrier account's calls go to: the sandbox's simulator, or (carrier A only) Packeta's own API
 * (docs/carriers/packeta.md).
 */
export const CARRIER_ENDPOINTS = ['sandbox', 'packeta'] as const;
export type CarrierEndpoint = (typeof CARRIER_ENDPOINTS)[number];

/** The carriers an endpoint other than the sandbox serves. */
export const ENDPOINT_CARRIERS: Readonly<Record<Exclude<CarrierEndpoint, 'sandbox'>, string>> = {
  packeta: 'carrier_a',
};
export const PAGE_SIZES = {
  A6: { width: 105 * MM, height: 148 * MM },
  A4: { width: 210 * MM, height: 297 * MM },
  '10x15': { width: 100 * MM, height: 150 * MM },
  '10.2x19.2': { width: 102 * MM, height: 192 * MM },
  roll_101x160: { width: 101 * MM, height: 160 * MM },
} as const;
export type PageSizeName = keyof typeof PAGE_SIZES;

/** How the carrier rounds a COD amount per currency: to whole units, or up to a multiple of N. */
export type CodRounding = { mode: 'whole' } | { mode: 'up_to_multiple'; multiple: number };

export interface CarrierDefinition {
  code: string;
  name: string;
  documentMode: DocumentMode;
  /** Label-printer size; `account_printer` / `portal` mean the account's setting decides (see the account). */
  labelSize: PageSizeName | 'account_printer' | 'portal';
  /** Formats the label accepts; some carriers offer only one of `label`, `a4`. */
  formats: ReadonlyArray<DocumentFormat>;
  /** Rounding by currency; `*` applies to every currency not listed. */
  codRounding: Readonly<Record<string, CodRounding>>;
  declaredValueSupported: boolean;
  /** Whether the carrier's API module transmits COD at all; where it does not, COD is refused before the call. */
  codViaApi: boolean;
  /** Label IDs of this carrier's shipments in the carrier's portal, for the attention object. */
  referenceKind: string | null;
  /** Carriers with a pickup-point network of their own: the format of its point IDs (the one source of it). */
  pickupNetwork?: { idFormat: PickupPointIdFormat };
}

/**
 * How a network writes its pickup-point IDs: letters before a number of so many digits. The catalogue is the one place
 * the formats live; the sandbox networks make their IDs with it (`pickupPointId`), and `PUT /orders/{id}/pickup-point`,
 * the pre-carrier checks (`pickup_point_malformed`) and the sandbox carriers (`pickup_point_invalid`) check IDs with
 * it (`isPickupPointIdOf`).
 */
export interface PickupPointIdFormat {
  /** `none`; fixed letters (`KM`); or `country`, the point's ISO 3166-1 alpha-2 code (`CZ`). */
  prefix: { kind: 'none' } | { kind: 'fixed'; letters: string } | { kind: 'country' };
  digits: { min: number; max: number };
  /** An ID of this format, for documentation. */
  example: string;
}

const whole: CodRounding = { mode: 'whole' };

export const CARRIERS: Readonly<Record<string, CarrierDefinition>> = {
  carrier_a: {
    code: 'carrier_a',
    name: 'Carrier A',
    documentMode: 'stored',
    labelSize: 'A6',
    formats: ['label', 'a4'],
    codRounding: { CZK: whole, HUF: { mode: 'up_to_multiple', multiple: 20 } },
    declaredValueSupported: true,
    codViaApi: true,
    referenceKind: 'packet_id',
    pickupNetwork: { idFormat: { prefix: { kind: 'none' }, digits: { min: 1, max: 10 }, example: '4410' } },
  },
  carrier_b: {
    code: 'carrier_b',
    name: 'Carrier B',
    documentMode: 'stored',
    labelSize: 'account_printer',
    formats: ['label', 'a4'],
    codRounding: { CZK: whole },
    declaredValueSupported: false,
    codViaApi: true,
    referenceKind: 'batch_id',
  },
  carrier_c: {
    code: 'carrier_c',
    name: 'Carrier C',
    documentMode: 'stored',
    labelSize: '10.2x19.2',
    formats: ['label'],
    codRounding: { CZK: whole, HUF: whole },
    declaredValueSupported: false,
    codViaApi: true,
    referenceKind: 'parcel_id',
    pickupNetwork: { idFormat: { prefix: { kind: 'country' }, digits: { min: 5, max: 5 }, example: 'CZ10001' } },
  },
  carrier_d: {
    code: 'carrier_d',
    name: 'Carrier D',
    documentMode: 'stored',
    labelSize: 'roll_101x160',
    formats: ['label', 'a4'],
    codRounding: { '*': whole },
    declaredValueSupported: false,
    codViaApi: true,
    referenceKind: 'parcel_number',
    pickupNetwork: {
      idFormat: { prefix: { kind: 'fixed', letters: 'KM' }, digits: { min: 8, max: 8 }, example: 'KM10000001' },
    },
  },
  carrier_e: {
    code: 'carrier_e',
    name: 'Carrier E (rendered on demand)',
    documentMode: 'render',
    labelSize: 'portal',
    formats: ['label', 'a4'],
    codRounding: { CZK: whole },
    declaredValueSupported: false,
    codViaApi: true,
    referenceKind: null,
  },
  carrier_f: {
    code: 'carrier_f',
    name: 'Carrier F (no reissue)',
    documentMode: 'stored_only',
    labelSize: 'A6',
    formats: ['label', 'a4'],
    codRounding: {},
    declaredValueSupported: false,
    codViaApi: false,
    referenceKind: null,
  },
  carrier_g: {
    code: 'carrier_g',
    name: 'Carrier G (no reissue)',
    documentMode: 'stored_only',
    labelSize: 'A6',
    formats: ['a4'],
    codRounding: {},
    declaredValueSupported: false,
    codViaApi: false,
    referenceKind: null,
  },
  carrier_h: {
    code: 'carrier_h',
    name: 'Carrier H (no reissue)',
    documentMode: 'stored_only',
    labelSize: '10x15',
    formats: ['label'],
    codRounding: {},
    declaredValueSupported: false,
    codViaApi: false,
    referenceKind: null,
  },
  // The six excluded carriers (spec "document.availability"): printing closes the manifest, the label is an image,
  // and four of one regional network.
  excluded_manifest: excluded('excluded_manifest', 'Excluded carrier (manifest closes on print)'),
  excluded_image: excluded('excluded_image', 'Excluded carrier (image label)'),
  excluded_regional_1: excluded('excluded_regional_1', 'Regional network carrier 1'),
  excluded_regional_2: excluded('excluded_regional_2', 'Regional network carrier 2'),
  excluded_regional_3: excluded('excluded_regional_3', 'Regional network carrier 3'),
  excluded_regional_4: excluded('excluded_regional_4', 'Regional network carrier 4'),
};

function excluded(code: string, name: string): CarrierDefinition {
  return {
    code,
    name,
    documentMode: 'excluded',
    labelSize: 'A6',
    formats: [],
    codRounding: {},
    declaredValueSupported: false,
    codViaApi: false,
    referenceKind: null,
  };
}

export function carrierDefinition(code: string): CarrierDefinition {
  const carrier = CARRIERS[code];
  if (!carrier) throw new Error(`unknown carrier ${code}`);
  return carrier;
}

/**
 * Points of carriers without a network of their own come from the store's custom providers, whose contract allows any
 * text of 1 to 100 characters as an ID (src/pickup-points/provider-contract.ts): trimmed, no control characters.
 */
const PROVIDER_POINT_ID = /^(?!\s)[^\p{Cc}]{1,100}(?<!\s)$/u;

/** The pickup-point ID format of a carrier's own network; null for carriers without one. */
export function pickupPointIdFormat(carrierCode: string): PickupPointIdFormat | null {
  return CARRIERS[carrierCode]?.pickupNetwork?.idFormat ?? null;
}

export function pickupPointIdPattern(format: PickupPointIdFormat): RegExp {
  const prefix =
    format.prefix.kind === 'fixed' ? format.prefix.letters : format.prefix.kind === 'country' ? '[A-Z]{2}' : '';
  const { min, max } = format.digits;
  return new RegExp(`^${prefix}\\d{${min === max ? min : `${min},${max}`}}$`);
}

/**
 * Whether `id` is a pickup-point ID the carrier can know: in the format of its own network, or, for carriers without
 * one, a custom provider's ID.
 */
export function isPickupPointIdOf(carrierCode: string, id: string): boolean {
  const format = pickupPointIdFormat(carrierCode);
  return (format ? pickupPointIdPattern(format) : PROVIDER_POINT_ID).test(id);
}

/**
 * The ID in `format` of the point numbered `number` (zero-padded to the format's digits) in `country`. Throws when the
 * number has more digits than the format allows.
 */
export function pickupPointId(format: PickupPointIdFormat, number: number, country: string): string {
  const digits = String(number).padStart(format.digits.min, '0');
  if (!Number.isInteger(number) || number < 0 || digits.length > format.digits.max)
    throw new Error(`${number} does not fit a pickup-point ID of ${format.digits.max} digits`);
  const prefix =
    format.prefix.kind === 'fixed' ? format.prefix.letters : format.prefix.kind === 'country' ? country : '';
  return `${prefix}${digits}`;
}

/** Carrier B prints its stored label in the account's printer type: A6 sheets or a 10x15 cm thermal roll. */
export const PRINTER_TYPE_PAGE_SIZES = { a6: 'A6', thermal: '10x15' } as const satisfies Record<string, PageSizeName>;

/**
 * The label-printer page size of a carrier's label for one account: `account_printer` and `portal` are decided by the
 * account; carrier C's services choose between its two sizes (see the sandbox services).
 */
export function accountLabelSize(
  carrier: CarrierDefinition,
  account: { printerType?: keyof typeof PRINTER_TYPE_PAGE_SIZES | null; portalLabelSize?: PageSizeName | null },
): PageSizeName {
  if (carrier.labelSize === 'account_printer') return PRINTER_TYPE_PAGE_SIZES[account.printerType ?? 'a6'];
  if (carrier.labelSize === 'portal') return account.portalLabelSize ?? 'A6';
  return carrier.labelSize;
}

import type { DocumentFormat } from '../domain/labels';

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
  /** Carriers with a pickup-point network of their own: the format of its point IDs. */
  pickupNetwork?: { idPattern: RegExp; idExample: string };
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
    pickupNetwork: { idPattern: /^\d{1,10}$/, idExample: '4410' },
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
    pickupNetwork: { idPattern: /^[A-Z]{2}\d{5}$/, idExample: 'CZ10001' },
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
    pickupNetwork: { idPattern: /^KM\d{8}$/, idExample: 'KM10000001' },
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

/** Whether `id` has the format of the carrier's pickup-point IDs; carriers without a network of their own take digits. */
export function isPickupPointIdOf(carrierCode: string, id: string): boolean {
  const pattern = CARRIERS[carrierCode]?.pickupNetwork?.idPattern ?? /^\d{1,10}$/;
  return pattern.test(id);
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

/**
 * Pickup point IDs each carrier accepts, checked before the carrier call (`pickup_point_malformed`). The sandbox
 * networks of carriers A, C and D use numeric IDs; other carriers take any short token.
 */
export const PICKUP_POINT_ID_FORMATS: Readonly<Record<string, RegExp>> = {
  carrier_a: /^\d{1,10}$/,
  carrier_c: /^\d{1,10}$/,
  carrier_d: /^\d{1,10}$/,
};
export const DEFAULT_PICKUP_POINT_ID_FORMAT = /^[A-Za-z0-9_-]{1,64}$/;

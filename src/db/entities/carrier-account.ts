import { BigIntType, EntitySchema, type Opt } from '@mikro-orm/core';
import type { FulfillmentMode } from '../../domain/labels';
import type { CarrierEndpoint } from '../../domain/carrier-catalog';

export type { FulfillmentMode } from '../../domain/labels';

/** A service of a carrier account, by the carrier catalogue's product code. */
export interface CarrierAccountService {
  code: string;
  name: string;
  /** Whether the courier can collect cash on delivery with this service. */
  codSupported: boolean;
  /** Whether the service delivers only to a pickup point. */
  pickupPointRequired: boolean;
  /** Kinds of pickup point the service delivers to (`pickup_point`, `locker`); absent: every kind. */
  pickupPointTypes?: Array<'pickup_point' | 'locker'>;
}

/** A carrier-specific option the account declares (`carrier_options.<key>` on POST /labels), with its default. */
export interface CarrierAccountOption {
  type: 'string' | 'number' | 'boolean';
  default: string | number | boolean | null;
  description?: string;
}

export type CarrierCodRoundingSetting = { mode: 'whole' } | { mode: 'up_to_multiple'; multiple: number };

/** Who hands the parcel over: shown on the label, sent to the carrier. */
export interface SenderDetails {
  name: string;
  street?: string;
  city?: string;
  postalCode?: string;
  countryCode?: string;
  phone?: string;
  email?: string;
  /** Bank account for COD payouts (carrier B needs an IBAN). */
  iban?: string;
}

/** Packeta's settings of a carrier A account on the `packeta` endpoint (docs/carriers/packeta.md). */
export interface PacketaEndpointSettings {
  /** Sender indication (`eshop`). */
  eshop: string;
  /** Packeta's home-delivery carrier ID per destination country. */
  homeDeliveryCarriers: Record<string, string>;
}

/** A store's account at one carrier (`ca_...`). */
export class CarrierAccount {
  id!: string;
  storeId!: string;
  /** Carrier code from the catalogue (`src/domain/carrier-catalog.ts`). */
  carrierCode!: string;
  name!: string;
  currency!: string;
  services!: CarrierAccountService[];
  options!: Record<string, CarrierAccountOption>;
  declaredValueSupported!: boolean;
  codRoundingByCurrency!: Record<string, CarrierCodRoundingSetting>;
  /** Order tag added when a label of this account is marked printed; null: no tag. */
  printTag!: string | null;
  /** Order tag added when a creation makes a new label with this account (side effect `order_tags`); null: none. */
  labelTag!: string | null;
  apiCreation!: 'enabled' | 'not_enabled';
  /** What `fulfillment: account_default` on `POST /labels` does with this account's labels. */
  defaultFulfillment!: FulfillmentMode;
  sender!: SenderDetails;
  /** Label size setting where the catalogue says `account_printer` / `portal`; null elsewhere. */
  printerType!: string | null;
  /** Whom the account's carrier calls go to: `sandbox` (default), or `packeta` for carrier A on Packeta's API. */
  endpoint!: Opt<CarrierEndpoint>;
  endpointSettings!: PacketaEndpointSettings | null;
  /** The endpoint's API password, sealed (src/crypto) to `carrier_account:<id>`; never logged, never returned. */
  apiPasswordSealed!: string | null;
  createdAt!: Date;
  /** Insertion order, from a sequence: breaks ties of `createdAt` in lists (docs/decisions/0103). */
  seq!: Opt<string>;
  updatedAt!: Date;
}

export const CarrierAccountSchema = new EntitySchema<CarrierAccount>({
  class: CarrierAccount,
  tableName: 'carrier_accounts',
  properties: {
    id: { type: 'string', primary: true },
    storeId: { type: 'string', fieldName: 'store_id' },
    carrierCode: { type: 'string', fieldName: 'carrier_code' },
    name: { type: 'string' },
    currency: { type: 'string' },
    services: { type: 'json' },
    options: { type: 'json' },
    declaredValueSupported: { type: 'boolean', fieldName: 'declared_value_supported' },
    codRoundingByCurrency: { type: 'json', fieldName: 'cod_rounding_by_currency' },
    printTag: { type: 'string', nullable: true, fieldName: 'print_tag' },
    labelTag: { type: 'string', nullable: true, fieldName: 'label_tag' },
    apiCreation: { type: 'string', fieldName: 'api_creation' },
    defaultFulfillment: { type: 'string', fieldName: 'default_fulfillment' },
    sender: { type: 'json' },
    printerType: { type: 'string', nullable: true, fieldName: 'printer_type' },
    endpoint: { type: 'string', fieldName: 'endpoint', default: 'sandbox' },
    endpointSettings: { type: 'json', nullable: true, fieldName: 'endpoint_settings' },
    apiPasswordSealed: { type: 'string', nullable: true, fieldName: 'api_password_sealed' },
    createdAt: { type: 'Date', fieldName: 'created_at', columnType: 'timestamptz' },
    seq: { type: new BigIntType('string'), autoincrement: true },
    updatedAt: { type: 'Date', fieldName: 'updated_at', columnType: 'timestamptz' },
  },
});

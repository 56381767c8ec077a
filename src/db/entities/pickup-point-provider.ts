import { BigIntType, EntitySchema, type Opt } from '@mikro-orm/core';

/**
 * A store's custom pickup point provider (the specification's "Custom Pickup Point Provider Contract"): the
 * operator's HTTPS endpoint and the headers sent to it, sealed (src/pickup-points/header-vault.ts). On the wire its
 * points carry `custom:<code>`.
 */
export class PickupPointProvider {
  id!: string;
  storeId!: string;
  code!: string;
  name!: string;
  url!: string;
  headersSealed!: string;
  enabled!: boolean;
  createdAt!: Date;
  /** Insertion order, from a sequence: breaks ties of `createdAt` in lists (docs/decisions/0103). */
  seq!: Opt<string>;
  updatedAt!: Date;
}

export const PickupPointProviderSchema = new EntitySchema<PickupPointProvider>({
  class: PickupPointProvider,
  tableName: 'pickup_point_providers',
  properties: {
    id: { type: 'string', primary: true },
    storeId: { type: 'string', fieldName: 'store_id' },
    code: { type: 'string' },
    name: { type: 'string' },
    url: { type: 'string' },
    headersSealed: { type: 'string', fieldName: 'headers_sealed' },
    enabled: { type: 'boolean' },
    createdAt: { type: 'Date', fieldName: 'created_at', columnType: 'timestamptz' },
    seq: { type: new BigIntType('string'), autoincrement: true },
    updatedAt: { type: 'Date', fieldName: 'updated_at', columnType: 'timestamptz' },
  },
});

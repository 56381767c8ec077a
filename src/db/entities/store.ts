import { BigIntType, EntitySchema, type Opt } from '@mikro-orm/core';

/** A store on the e-commerce platform and the gates that decide whether its keys may call the API. */
export class Store {
  id!: string;
  name!: string;
  /** Platform domain, e.g. `demo-store.myshopify.com`. */
  domain!: string;
  /** Where key notifications are sent. */
  email!: string;
  appInstalled!: boolean;
  apiEnabled!: boolean;
  pausedBySupport!: boolean;
  subscriptionActive!: boolean;
  freeAccess!: boolean;
  writeAccess!: boolean;
  createdAt!: Date;
  /** Insertion order, from a sequence: breaks ties of `createdAt` in lists (docs/decisions/0103). */
  seq!: Opt<string>;
  updatedAt!: Date;
}

export const StoreSchema = new EntitySchema<Store>({
  class: Store,
  tableName: 'stores',
  properties: {
    id: { type: 'string', primary: true },
    name: { type: 'string' },
    domain: { type: 'string', unique: true },
    email: { type: 'string' },
    appInstalled: { type: 'boolean', fieldName: 'app_installed' },
    apiEnabled: { type: 'boolean', fieldName: 'api_enabled' },
    pausedBySupport: { type: 'boolean', fieldName: 'paused_by_support' },
    subscriptionActive: { type: 'boolean', fieldName: 'subscription_active' },
    freeAccess: { type: 'boolean', fieldName: 'free_access' },
    writeAccess: { type: 'boolean', fieldName: 'write_access' },
    createdAt: { type: 'Date', fieldName: 'created_at', columnType: 'timestamptz' },
    seq: { type: new BigIntType('string'), autoincrement: true },
    updatedAt: { type: 'Date', fieldName: 'updated_at', columnType: 'timestamptz' },
  },
});

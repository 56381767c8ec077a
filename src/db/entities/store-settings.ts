import { EntitySchema } from '@mikro-orm/core';

/** What the store's COD rule collects for orders without any payment gateway. */
export interface StoreCodRule {
  /** `order_total`: the order's total; `outstanding_balance`: what is still unpaid. */
  amountSource: 'order_total' | 'outstanding_balance';
}

/** Per-store label settings kept apart from the access gates in `stores`. */
export class StoreSettings {
  storeId!: string;
  /** COD for orders without any payment gateway; off by default. */
  codRuleEnabled!: boolean;
  codRule!: StoreCodRule | null;
  updatedAt!: Date;
}

export const StoreSettingsSchema = new EntitySchema<StoreSettings>({
  class: StoreSettings,
  tableName: 'store_settings',
  properties: {
    storeId: { type: 'string', primary: true, fieldName: 'store_id' },
    codRuleEnabled: { type: 'boolean', fieldName: 'cod_rule_enabled' },
    codRule: { type: 'json', nullable: true, fieldName: 'cod_rule' },
    updatedAt: { type: 'Date', fieldName: 'updated_at', columnType: 'timestamptz' },
  },
});

import { EntitySchema } from '@mikro-orm/core';

/**
 * Conditions an order must meet for a rule to match; every given condition must hold. Absent ones match any order.
 * Stored as jsonb so the carrier-selection domain can grow conditions without a migration.
 */
export interface CarrierRuleConditions {
  deliveryMethodTypes?: string[];
  countryCodes?: string[];
  shippingMethodNames?: string[];
  currencies?: string[];
  hasPickupPoint?: boolean;
  codRequired?: boolean;
  tagsAny?: string[];
}

/** One of the store's rules choosing a carrier account and service for an order; lowest priority number wins. */
export class CarrierRule {
  id!: string;
  storeId!: string;
  priority!: number;
  conditions!: CarrierRuleConditions;
  carrierAccountId!: string;
  serviceCode!: string;
  createdAt!: Date;
}

export const CarrierRuleSchema = new EntitySchema<CarrierRule>({
  class: CarrierRule,
  tableName: 'carrier_rules',
  properties: {
    id: { type: 'string', primary: true },
    storeId: { type: 'string', fieldName: 'store_id' },
    priority: { type: 'integer' },
    conditions: { type: 'json' },
    carrierAccountId: { type: 'string', fieldName: 'carrier_account_id' },
    serviceCode: { type: 'string', fieldName: 'service_code' },
    createdAt: { type: 'Date', fieldName: 'created_at', columnType: 'timestamptz' },
  },
});

import type { LabelRecord, LabelView } from '../../src/db/labels-query';
import { serializeLabel } from '../../src/api/labels/serializer';

const now = new Date('2026-11-22T12:00:00Z');

function aView(overrides: Partial<LabelRecord> = {}): LabelView {
  return {
    label: {
      id: 'lbl_1',
      seq: 1,
      storeId: 'st_1',
      orderGid: 'gid://shopify/Order/1001',
      orderLegacyId: '1001',
      orderName: '#1001',
      orderNameKey: '1001',
      direction: 'outbound',
      kind: 'shipment',
      status: 'ready',
      failureReason: null,
      carrierAccountId: 'ca_1',
      carrierCode: 'carrier_a',
      carrierName: 'Carrier A',
      serviceCode: 'a_home',
      serviceName: 'Home delivery',
      source: 'api',
      codAmount: '120.00',
      codCurrency: 'CZK',
      codSource: 'request',
      declaredValueAmount: '500.00',
      declaredValueCurrency: 'CZK',
      trackingNumber: 'Z1',
      trackingUrl: null,
      carrierShipmentId: 'Z1',
      parcels: [],
      batchId: null,
      extras: {},
      labelCreationId: 'lcr_1',
      coverageKnown: true,
      createdAt: new Date('2026-11-20T10:00:00Z'),
      updatedAt: null,
      printedCount: 0,
      lastPrintedAt: null,
      current: true,
      supersedes: [],
      supersededBy: [],
      currentSet: 'ok',
      ...overrides,
    },
    fulfillmentOrders: [],
    storedDocument: { notIsolated: false },
  };
}

describe('serializeLabel null rules (spec "Label")', () => {
  it.each([
    ['api', { code: 'a_home', name: 'Home delivery' }, { amount: '500.00', currency: 'CZK' }],
    ['admin', null, null],
    ['flow', null, null],
    [null, null, { amount: '500.00', currency: 'CZK' }],
  ] as const)('source %s: service %j, declared_value %j', (source, service, declared) => {
    const wire = serializeLabel(aView({ source }), { baseUrl: 'https://x.example', now });
    expect(wire.service).toEqual(service);
    expect(wire.declared_value).toEqual(declared);
  });

  it('extras only for carrier A; failure_reason only on failed labels', () => {
    const extras = { consign_password: '1234' };
    expect(serializeLabel(aView({ extras }), { baseUrl: '', now }).extras).toEqual(extras);
    expect(serializeLabel(aView({ extras, carrierCode: 'carrier_c' }), { baseUrl: '', now }).extras).toEqual({});
    expect(serializeLabel(aView({ failureReason: 'not_finalized' }), { baseUrl: '', now }).failure_reason).toBeNull();
  });
});

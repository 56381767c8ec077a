import { orderNameKey, parseFulfillmentOrderId, parseOrderId } from '../../src/domain/platform-ids';

describe('parseOrderId', () => {
  it.each([
    ['1234', { gid: 'gid://shopify/Order/1234', legacyId: '1234' }],
    ['gid://shopify/Order/1234', { gid: 'gid://shopify/Order/1234', legacyId: '1234' }],
    ['0', null],
    ['0123', null],
    ['-1', null],
    ['12a', null],
    ['gid://shopify/FulfillmentOrder/1234', null],
    ['gid://shopify/Order/', null],
    ['', null],
    ['123456789012345678901', null],
  ])('%s', (value, expected) => {
    expect(parseOrderId(value)).toEqual(expected);
  });
});

describe('parseFulfillmentOrderId', () => {
  it.each([
    ['99', { gid: 'gid://shopify/FulfillmentOrder/99', legacyId: '99' }],
    ['gid://shopify/FulfillmentOrder/99', { gid: 'gid://shopify/FulfillmentOrder/99', legacyId: '99' }],
    ['gid://shopify/Order/99', null],
  ])('%s', (value, expected) => {
    expect(parseFulfillmentOrderId(value)).toEqual(expected);
  });
});

describe('orderNameKey', () => {
  it.each([
    ['#1001', '1001'],
    ['1001', '1001'],
    ['#SK-1001', 'sk-1001'],
    ['##1', '#1'],
  ])('%s -> %s', (name, key) => {
    expect(orderNameKey(name)).toBe(key);
  });
});

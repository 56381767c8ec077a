import { CARRIERS } from '../../src/domain/carrier-catalog';
import { roundCod } from '../../src/domain/cod-rounding';

describe('roundCod', () => {
  const a = CARRIERS.carrier_a!.codRounding;
  const d = CARRIERS.carrier_d!.codRounding;
  it.each([
    ['carrier A CZK rounds half up to whole units', a, '99.50', 'CZK', '100.00'],
    ['carrier A CZK rounds down below half', a, '99.49', 'CZK', '99.00'],
    ['carrier A CZK whole amount unchanged', a, '250', 'CZK', '250.00'],
    ['carrier A HUF rounds up to a multiple of 20', a, '1001', 'HUF', '1020.00'],
    ['carrier A HUF exact multiple unchanged', a, '1020.00', 'HUF', '1020.00'],
    ['carrier A HUF fraction above a multiple rounds up', a, '1000.01', 'HUF', '1020.00'],
    ['carrier A EUR has no rule: sent as is', a, '12.34', 'EUR', '12.34'],
    ['carrier D * rule applies to any currency', d, '12.50', 'EUR', '13.00'],
    ['zero stays zero', a, '0', 'HUF', '0.00'],
  ])('%s', (_name, table, amount, currency, expected) => {
    expect(roundCod({ amount, currency }, table)).toEqual({ amount: expected, currency });
  });

  it('refuses an amount that is not a decimal string with at most two decimals', () => {
    expect(() => roundCod({ amount: '1.234', currency: 'CZK' }, a)).toThrow('not a money amount');
  });
});

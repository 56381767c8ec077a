import { variableSymbolFromOrderName } from '../../src/domain/variable-symbol';

describe('variableSymbolFromOrderName', () => {
  it.each([
    ['#1001', '1001'],
    ['1001', '1001'],
    ['#CZ-1001', '1001'],
    ['#A12-B34', '1234'],
    ['#00042', '42'],
    ['#123456789012', '3456789012'],
    ['#ABC', null],
    ['#000', null],
    ['', null],
  ])('%s -> %s', (name, expected) => {
    expect(variableSymbolFromOrderName(name)).toBe(expected);
  });
});

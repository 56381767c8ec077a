import { checkClaimAttributes, checkPacketAttributes, phoneValid } from '../../src/carriers/packeta/fake/rules';

const toPoint = {
  number: '1001',
  name: 'Jana',
  surname: 'Nováková',
  email: 'jana@example.com',
  addressId: '4001',
  value: '100.00',
  weight: '1.200',
};
const home = { ...toPoint, addressId: '106', street: 'Dlouhá', houseNumber: '12', city: 'Praha', zip: '110 00' };

const names = (fields: Record<string, string>) => checkPacketAttributes(fields).faults.map((f) => f.name);

describe('the fake Packeta’s attribute rules (from the published docs and WSDL)', () => {
  it('accepts a packet to a point and a home-delivery packet', () => {
    expect(names(toPoint)).toEqual([]);
    expect(names(home)).toEqual([]);
  });

  it.each([
    ['a missing number', { ...toPoint, number: '' }, ['number']],
    ['a number longer than 24 (WSDL string24)', { ...toPoint, number: '1'.repeat(25) }, ['number']],
    ['a number with a #', { ...toPoint, number: '#1001' }, ['number']],
    [
      'a missing surname',
      { number: '1', name: 'J', email: 'a@b.cz', addressId: '4001', value: '1', weight: '1' },
      ['surname'],
    ],
    ['a surname over 32', { ...toPoint, surname: 'N'.repeat(33) }, ['surname']],
    ['no e-mail and no phone', { ...toPoint, email: '' }, ['email']],
    ['an e-mail without a domain', { ...toPoint, email: 'jana@' }, ['email']],
    ['an unknown element', { ...toPoint, colour: 'red' }, ['colour']],
    ['an unknown currency', { ...toPoint, currency: 'USD' }, ['currency']],
    ['a value with three places', { ...toPoint, value: '1.005' }, ['value']],
    ['no weight', { ...toPoint, weight: '' }, ['weight']],
    ['a zero weight', { ...toPoint, weight: '0' }, ['weight']],
    ['weight over the point’s 15 kg', { ...toPoint, weight: '15.001' }, ['weight']],
    ['an unknown point', { ...toPoint, addressId: '99999' }, ['addressId']],
    ['a point that is not active', { ...toPoint, addressId: '4020' }, ['addressId']],
    ['home delivery without a street', { ...home, street: '' }, ['street']],
    ['home delivery without a house number', { ...home, houseNumber: '' }, ['houseNumber']],
    ['a street over 32 (docs, stricter than WSDL string64)', { ...home, street: 'S'.repeat(33) }, ['street']],
    ['a CZ zip in HU form', { ...home, zip: '1051' }, ['zip']],
    ['COD in CZK with cents', { ...toPoint, cod: '10.50', currency: 'CZK' }, ['cod']],
    ['COD at a box without COD', { ...toPoint, addressId: '4005', cod: '100' }, ['cod']],
    [
      'COD with a carrier that disallows it',
      { ...home, addressId: '2401', zip: '10115', cod: '10', currency: 'EUR' },
      ['cod'],
    ],
    ['a value of 0 (import docs: value > 0)', { ...toPoint, value: '0.00' }, ['value']],
    [
      'CZK to a point that takes HUF, without a conversion',
      { ...toPoint, addressId: '6001', currency: 'CZK' },
      ['currency'],
    ],
    ['a phone of another country than the destination’s', { ...toPoint, phone: '+36301234567' }, ['phone']],
  ])('refuses %s', (_, fields, faulted) => {
    expect(names(fields as Record<string, string>)).toEqual(faulted);
  });

  it('COD steps follow the currency: HUF multiples of 5, EUR cents', () => {
    const hu = { ...toPoint, addressId: '6001' };
    expect(names({ ...hu, cod: '1005', currency: 'HUF' })).toEqual([]);
    expect(names({ ...hu, cod: '1003', currency: 'HUF' })).toEqual(['cod']);
    expect(names({ ...toPoint, addressId: '5001', cod: '10.55', currency: 'EUR' })).toEqual([]);
  });

  it('without a currency the amounts are the destination’s; another one needs the client’s conversion', () => {
    expect(checkPacketAttributes({ ...toPoint, addressId: '6001' }).currency).toBe('HUF');
    const converted = checkPacketAttributes(
      { ...toPoint, addressId: '6001', currency: 'CZK' },
      { conversions: new Set(['CZK']) },
    );
    expect(converted).toMatchObject({ faults: [], currency: 'CZK' });
  });

  it.each([
    ['+420600111222', 'CZ', true],
    ['00420600111222', 'CZ', true],
    ['600111222', 'CZ', true],
    ['+36301234567', 'HU', true],
    ['+36301234567', 'CZ', false],
    ['+42060011122', 'CZ', false],
    ['12', 'CZ', false],
    ['+420 600', 'CZ', false],
  ])('phone %s to %s is valid: %s', (phone, country, valid) => {
    expect(phoneValid(phone, country)).toBe(valid);
  });

  it('claims with password need e-mail, phone, currency, sender and consign country (WSDL)', () => {
    const claim = {
      number: 'R1',
      email: 'a@b.cz',
      phone: '+420600111222',
      value: '10',
      currency: 'CZK',
      eshop: 'shop',
      consignCountry: 'cz',
    };
    expect(checkClaimAttributes(claim)).toEqual([]);
    const { phone: _phone, currency: _currency, ...partial } = claim;
    expect(checkClaimAttributes(partial).map((f) => f.name)).toEqual(['phone', 'currency']);
  });
});

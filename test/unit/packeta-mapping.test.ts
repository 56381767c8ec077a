import {
  addressIdFor,
  kilograms,
  packetAttributes,
  packetNumber,
  packetaPhone,
  splitName,
  splitStreet,
} from '../../src/carriers/packeta/mapping';
import type { ShipmentRequest } from '../../src/carriers/port';
import { aShipmentRequest } from '../helpers/sandbox';

const settings = { eshop: 'shop', homeDeliveryCarriers: { CZ: '106' }, sealedApiPassword: 'sealed' };

const request = (overrides: Partial<ShipmentRequest> = {}): ShipmentRequest =>
  aShipmentRequest({ phone: '+420 600 111 222', ...overrides });

const fields = (r: ShipmentRequest) =>
  Object.fromEntries(packetAttributes(r, settings, addressIdFor(r, settings)!, 'CZK').map((e) => [e.name, e.text]));

describe('Packeta mapping', () => {
  it.each([
    ['#1001', '1001'],
    ['EU-1001/a', 'EU1001a'],
    ['#ÖÄ12', '12'],
    ['x'.repeat(30), 'x'.repeat(24)],
  ])('order name %s is number %s', (name, number) => expect(packetNumber(name)).toBe(number));

  it.each([
    ['Jana Nováková', { name: 'Jana', surname: 'Nováková' }],
    ['  Jana  Marie   Nováková ', { name: 'Jana Marie', surname: 'Nováková' }],
    ['Cher', { name: 'Cher', surname: 'Cher' }],
  ])('name %j splits into %j', (full, split) => expect(splitName(full)).toEqual(split));

  it.each([
    ['Dlouhá 12', { street: 'Dlouhá', houseNumber: '12' }],
    ['Na Příkopě 12/3a', { street: 'Na Příkopě', houseNumber: '12/3a' }],
    ['Andrássy út 1-3', { street: 'Andrássy út', houseNumber: '1-3' }],
    ['Hlavní', { street: 'Hlavní', houseNumber: null }],
  ])('street %j splits into %j', (street, split) => expect(splitStreet(street)).toEqual(split));

  it('weights in kilograms with three places, phones without spaces', () => {
    expect([kilograms(1), kilograms(1200), kilograms(1_000_000)]).toEqual(['0.001', '1.200', '1000.000']);
    expect(packetaPhone('+420 (600) 111-222')).toBe('+420600111222');
  });

  it('home delivery: the country’s carrier and the address; a point: its ID and no address', () => {
    expect(fields(request())).toMatchObject({ addressId: '106', street: 'Dlouhá', houseNumber: '12', zip: '110 00' });
    const toPoint = fields(request({ pickupPoint: { id: '4001', country: 'CZ' } }));
    expect(toPoint.addressId).toBe('4001');
    expect(toPoint).not.toHaveProperty('street');
    expect(addressIdFor(request({ address: { ...request().address, country: 'SK' } }), settings)).toBeNull();
  });

  it('value: the declared value, else COD, else 0, always with its currency', () => {
    const cod = { amount: '100.00', currency: 'CZK' };
    expect(fields(request())).toMatchObject({ value: '0.00', currency: 'CZK' });
    expect(fields(request({ cod }))).toMatchObject({ value: '100.00', cod: '100.00', currency: 'CZK' });
    const declared = { amount: '250.00', currency: 'CZK' };
    expect(fields(request({ cod, declaredValue: declared }))).toMatchObject({ value: '250.00', cod: '100.00' });
  });
});

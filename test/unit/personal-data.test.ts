import { redactJson } from '../../src/privacy/personal-data';

describe('redactJson', () => {
  it.each([
    [
      'a carrier call',
      { recipient: { name: 'Jana' }, serviceCode: 'a_home' },
      { recipient: null, serviceCode: 'a_home' },
    ],
    [
      'nested in arrays',
      { issues: [{ code: 'email_invalid', raw: 'x@' }] },
      { issues: [{ code: 'email_invalid', raw: null }] },
    ],
    [
      'free texts',
      { client_reference: 'Jana', note: 'called', outcome: 'x' },
      { client_reference: null, note: null, outcome: 'x' },
    ],
    [
      'a pickup point',
      { pickupPoint: { id: 'P1' }, pickup_point: { id: 'P2' } },
      { pickupPoint: null, pickup_point: null },
    ],
  ])('nulls %s', (_, value, expected) => {
    expect(redactJson(value)).toEqual({ value: expected, changed: true });
  });

  it.each([
    ['no personal keys', { status: 'succeeded', cod: { amount: '1.00' } }],
    ['personal keys already null', { email: null, phone: null }],
    ['a scalar', 'text'],
    ['null', null],
  ])('reports nothing changed for %s', (_, value) => {
    expect(redactJson(value)).toEqual({ value, changed: false });
  });
});

import {
  CARRIERS,
  isPickupPointIdOf,
  pickupPointId,
  pickupPointIdFormat,
  pickupPointIdPattern,
} from '../../src/domain/carrier-catalog';
import { SANDBOX_PICKUP_NETWORKS } from '../../src/carriers/sandbox/pickup-networks';

describe('pickup-point ID formats (catalogue `pickupNetwork.idFormat`)', () => {
  it.each<[string, string[], string[]]>([
    ['carrier_a', ['1', '4410', '1001', '1234567890'], ['', '12345678901', 'CZ10001', 'KM10000001', '44 10', '-1']],
    [
      'carrier_c',
      ['CZ10001', 'SK10073', 'HU10085'],
      ['10001', 'CZ1000', 'CZ100011', 'cz10001', 'CZE10001', 'KM10000001'],
    ],
    ['carrier_d', ['KM10000001', 'KM99999999'], ['10000001', 'KM1000000', 'KM100000001', 'km10000001', 'CZ10001']],
  ])('%s accepts its own IDs and no other', (carrier, accepted, refused) => {
    for (const id of accepted) expect([id, isPickupPointIdOf(carrier, id)]).toEqual([id, true]);
    for (const id of refused) expect([id, isPickupPointIdOf(carrier, id)]).toEqual([id, false]);
  });

  it.each([
    ['carrier_a', /^\d{1,10}$/],
    ['carrier_c', /^[A-Z]{2}\d{5}$/],
    ['carrier_d', /^KM\d{8}$/],
  ])('%s: the pattern is %s, and the documented example matches it', (carrier, pattern) => {
    const format = pickupPointIdFormat(carrier)!;
    expect(pickupPointIdPattern(format).source).toBe(pattern.source);
    expect(isPickupPointIdOf(carrier, format.example)).toBe(true);
  });

  it('carriers without a network of their own take a custom provider’s ID: 1 to 100 characters, trimmed', () => {
    expect(pickupPointIdFormat('carrier_b')).toBeNull();
    for (const id of ['shop-praha-1', 'Point 7 (Národní)', 'x'.repeat(100)])
      expect(isPickupPointIdOf('carrier_b', id)).toBe(true);
    for (const id of ['', ' shop', 'shop ', 'x'.repeat(101), 'a\nb'])
      expect(isPickupPointIdOf('carrier_b', id)).toBe(false);
  });

  it.each([
    ['carrier_a', 1001, 'CZ', '1001'],
    ['carrier_a', 7, 'CZ', '7'],
    ['carrier_c', 10073, 'SK', 'SK10073'],
    ['carrier_c', 42, 'HU', 'HU00042'],
    ['carrier_d', 10000001, 'CZ', 'KM10000001'],
  ])('%s: point number %s in %s is %s', (carrier, number, country, id) => {
    expect(pickupPointId(pickupPointIdFormat(carrier)!, number, country)).toBe(id);
  });

  it('refuses a number with more digits than the format has', () => {
    expect(() => pickupPointId(pickupPointIdFormat('carrier_c')!, 100000, 'CZ')).toThrow(/5 digits/);
    expect(() => pickupPointId(pickupPointIdFormat('carrier_d')!, 1.5, 'CZ')).toThrow();
  });

  it('every point of every sandbox network is in its carrier’s format', () => {
    const networks = Object.values(CARRIERS).filter((c) => c.pickupNetwork);
    expect(Object.keys(SANDBOX_PICKUP_NETWORKS).sort()).toEqual(networks.map((c) => c.code).sort());
    for (const [carrier, points] of Object.entries(SANDBOX_PICKUP_NETWORKS)) {
      expect(points.filter((p) => !isPickupPointIdOf(carrier, p.id))).toEqual([]);
    }
  });
});

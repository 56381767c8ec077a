import { hoursOn, packetaDay, packetaPickupNetwork, toPickupPoint } from '../../src/carriers/packeta/feed/network';
import { CarrierUnavailableError, type CarrierAccountSettings } from '../../src/carriers/port';
import type { PacketaPointRecord, PacketaPointsStore } from '../../src/db/packeta-pickup-points';
import { closedWeek } from '../../src/domain/pickup-points';

const week = (monday: string) => ({ ...closedWeek(), monday: [{ opens: monday, closes: '18:00' }] });

/** What a point shows a customer, the same in the store and in the port's PickupPoint. */
const SHOWN = {
  name: 'České Budějovice, Rudolfovská 1 (Tvořilka)',
  place: 'Tvořilka',
  street: 'Rudolfovská 1',
  city: 'České Budějovice',
  zip: '370 01',
  country: 'CZ',
  latitude: 48.97585,
  longitude: 14.47978,
};

const aRecord = (overrides: Partial<PacketaPointRecord> = {}): PacketaPointRecord => ({
  id: '12',
  feedFile: 'branch',
  boxType: null,
  ...SHOWN,
  statusId: 1,
  displayFrontend: true,
  codAllowed: true,
  maxWeightKg: 15,
  openSince: null,
  openUntil: null,
  enterableUntil: null,
  openingHours: { regular: week('08:30'), upcoming: { startDate: '2027-01-04', days: week('10:00') } },
  contentHash: 'h',
  ...overrides,
});

const account = { carrierCode: 'carrier_a', accountId: 'ca_1' } as CarrierAccountSettings;

describe("Packeta's day", () => {
  it.each([
    ['noon UTC in winter', '2026-12-02T12:00:00Z', '2026-12-02'],
    ['23:30 UTC in winter: already tomorrow in Prague (UTC+1)', '2026-12-02T23:30:00Z', '2026-12-03'],
    ['22:30 UTC in summer: already tomorrow in Prague (UTC+2)', '2026-07-01T22:30:00Z', '2026-07-02'],
    ['21:30 UTC in summer: still today', '2026-07-01T21:30:00Z', '2026-07-01'],
  ])('%s', (_name, instant, day) => {
    expect(packetaDay(new Date(instant))).toBe(day);
  });
});

describe('a stored point as the port’s PickupPoint', () => {
  it.each([
    ['before the announced week', '2027-01-03', '08:30'],
    ['on its first day', '2027-01-04', '10:00'],
    ['after it began', '2027-02-01', '10:00'],
  ])('keeps the regular hours %s, or takes the announced ones', (_name, day, opens) => {
    expect(hoursOn(aRecord(), day).monday).toEqual([{ opens, closes: '18:00' }]);
    expect(toPickupPoint(aRecord(), day).openingHours.monday[0]!.opens).toBe(opens);
  });

  it('answers a branch as a pickup point and a box as a locker, neither needing a customer ID', () => {
    expect(toPickupPoint(aRecord(), '2026-12-02')).toEqual({
      id: '12',
      type: 'pickup_point',
      ...SHOWN,
      pinUrl: null,
      openingHours: week('08:30'),
      requiresCustomerId: false,
    });
    expect(toPickupPoint(aRecord({ feedFile: 'box', boxType: 'zbox' }), '2026-12-02')).toMatchObject({
      type: 'locker',
      requiresCustomerId: false,
    });
  });
});

describe('the network over a store', () => {
  const aStore = (points: PacketaPointRecord[], imported: boolean) => {
    const asked: unknown[] = [];
    const store: Pick<PacketaPointsStore, 'nearest' | 'offerable' | 'everImported'> = {
      nearest: async (search) => {
        asked.push(search);
        return points;
      },
      offerable: async (id, day) => {
        asked.push({ id, day });
        return points.find((p) => p.id === id) ?? null;
      },
      everImported: async () => imported,
    };
    return { store, asked };
  };

  const now = () => new Date('2026-12-02T23:30:00Z');

  it("asks for the country in upper case, at most 50, on Packeta's day", async () => {
    const { store, asked } = aStore([aRecord()], true);
    const network = packetaPickupNetwork(store, now);
    const found = await network.searchPickupPoints(account, {
      latitude: 49,
      longitude: 14.5,
      countryCode: 'cz',
      limit: 500,
    });
    expect(found.map((p) => p.id)).toEqual(['12']);
    expect(asked).toEqual([{ latitude: 49, longitude: 14.5, country: 'CZ', limit: 50, day: '2026-12-03' }]);
  });

  it('is unavailable, not empty, before any import succeeded', async () => {
    const network = packetaPickupNetwork(aStore([], false).store, now);
    await expect(
      network.searchPickupPoints(account, { latitude: 49, longitude: 14.5, countryCode: 'CZ', limit: 10 }),
    ).rejects.toBeInstanceOf(CarrierUnavailableError);
    await expect(network.findPickupPoint(account, '12')).rejects.toBeInstanceOf(CarrierUnavailableError);
  });

  it('finds nothing nearby, and no point by an ID it does not hold, once imported', async () => {
    const network = packetaPickupNetwork(aStore([], true).store, now);
    await expect(
      network.searchPickupPoints(account, { latitude: 49, longitude: 14.5, countryCode: 'AT', limit: 10 }),
    ).resolves.toEqual([]);
    await expect(network.findPickupPoint(account, '99')).resolves.toBeNull();
  });

  it('does not look up an ID outside the network’s format', async () => {
    const { store, asked } = aStore([aRecord()], true);
    const network = packetaPickupNetwork(store, now);
    for (const id of ['CZ10001', '', '12345678901', '1 2'])
      await expect(network.findPickupPoint(account, id)).resolves.toBeNull();
    expect(asked).toEqual([]);
    await expect(network.findPickupPoint(account, '12')).resolves.toMatchObject({ id: '12' });
  });
});

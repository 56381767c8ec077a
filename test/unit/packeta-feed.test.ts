import { noCounts, pointChange, refusalOfReading, vanishedIds } from '../../src/carriers/packeta/feed/diff';
import { contentHash, normalizeHours, parseFeedPoint } from '../../src/carriers/packeta/feed/feed-point';
import { generatedFeedTexts, generatedPoint } from '../../src/carriers/packeta/feed/generated-feed';
import { JsonArraySplitter, MalformedFeedError } from '../../src/carriers/packeta/feed/json-array';
import type { StoredPacketaPoint } from '../../src/db/packeta-pickup-points';

/** The branch of the docs' example (branch export v5), as Packeta writes it: strings, `{}` for empty optionals. */
const aBranch = (overrides: Record<string, unknown> = {}): Record<string, unknown> => ({
  id: '12',
  name: 'České Budějovice, Rudolfovská 1 (Tvořilka)',
  special: 'vstup z ul. Otakarova',
  place: 'Tvořilka',
  street: 'Rudolfovská 1',
  city: 'České Budějovice',
  zip: '370 01',
  country: 'cz',
  currency: 'CZK',
  status: { statusId: '1', description: 'In operation' },
  displayFrontend: '1',
  directions: '<p>Vstup je z Otakarovy ulice.</p>',
  directionsCar: {},
  wheelchairAccessible: 'no',
  creditCardPayment: 'yes',
  dressingRoom: '0',
  claimAssistant: '1',
  packetConsignment: '1',
  latitude: '48.97585',
  longitude: '14.47978',
  url: 'https://www.zasilkovna.cz/pobocky/ceske-budejovice-otakarova-tvorilka',
  maxWeight: '15',
  labelRouting: 'C22-511-012',
  photos: [],
  openingHours: {
    regular: {
      monday: '08:30–18:30',
      tuesday: '08:30-18:30',
      wednesday: '08:30–12:00, 13:00–18:30',
      thursday: '8:30–18:30',
      friday: '08:30–18:30',
      saturday: '08:30–14:00',
      sunday: '',
    },
    exceptions: {},
  },
  ...overrides,
});

const aBox = (overrides: Record<string, unknown> = {}) =>
  aBranch({
    id: '8292',
    type: 'zbox',
    name: 'Z-BOX Praha 4, Braník, Vavřenova 1172/12 (Billa)',
    place: 'Z-BOX',
    codAllowed: '0',
    openingHours: {
      regular: Object.fromEntries(
        ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'].map((d) => [d, '00:00–23:59']),
      ),
      exceptions: { exception: [{ date: '2023-12-24', hours: '00:00–23:59' }] },
    },
    ...overrides,
  });

describe('a feed point', () => {
  it('reads a branch of the docs: upper-case country, numbers, both dashes, a closed Sunday', () => {
    const parsed = parseFeedPoint(aBranch(), 'branch');
    expect(parsed).toMatchObject({ ok: true, warnings: [] });
    if (!parsed.ok) return;
    expect(parsed.point).toMatchObject({
      id: '12',
      feedFile: 'branch',
      boxType: null,
      place: 'Tvořilka',
      country: 'CZ',
      latitude: 48.97585,
      longitude: 14.47978,
      statusId: 1,
      displayFrontend: true,
      codAllowed: true,
      maxWeightKg: 15,
      openSince: null,
      enterableUntil: null,
    });
    expect(parsed.point.openingHours.regular).toMatchObject({
      monday: [{ opens: '08:30', closes: '18:30' }],
      wednesday: [
        { opens: '08:30', closes: '12:00' },
        { opens: '13:00', closes: '18:30' },
      ],
      thursday: [{ opens: '08:30', closes: '18:30' }],
      sunday: [],
    });
    expect(parsed.point.openingHours.upcoming).toBeNull();
  });

  it('reads a box: its type, COD not allowed, open round the clock; date exceptions are not kept', () => {
    const parsed = parseFeedPoint(aBox(), 'box');
    expect(parsed.ok && parsed.point).toMatchObject({
      feedFile: 'box',
      boxType: 'zbox',
      codAllowed: false,
      openingHours: { regular: { sunday: [{ opens: '00:00', closes: '23:59' }] }, upcoming: null },
    });
  });

  it('keeps announced hours with their start date', () => {
    const upcoming = {
      ...(aBranch().openingHours as { regular: object }).regular,
      monday: '10:00–16:00',
      startDate: '2027-01-04',
    };
    const parsed = parseFeedPoint(aBranch({ openingHours: { regular: {}, upcoming } }), 'branch');
    expect(parsed.ok && parsed.point.openingHours.upcoming).toMatchObject({
      startDate: '2027-01-04',
      days: { monday: [{ opens: '10:00', closes: '16:00' }] },
    });
  });

  it.each([
    [
      'scheduled dates',
      { enterableUntil: '2027-02-01', openUntil: '2027-02-03', openSince: '2026-01-01' },
      {
        enterableUntil: '2027-02-01',
        openUntil: '2027-02-03',
        openSince: '2026-01-01',
      },
    ],
    ['a point hidden from customers', { displayFrontend: '0' }, { displayFrontend: false }],
    ['a status other than in operation', { status: { statusId: '3', description: 'Holiday' } }, { statusId: 3 }],
    ['numbers instead of strings', { id: 12, latitude: 48.97585, maxWeight: 10 }, { id: '12', maxWeightKg: 10 }],
    ['an empty place', { place: {} }, { place: null }],
  ])('reads %s', (_name, overrides, expected) => {
    const parsed = parseFeedPoint(aBranch(overrides), 'branch');
    expect(parsed.ok && parsed.point).toMatchObject(expected);
  });

  it.each([
    ['a malformed date', { enterableUntil: '1.2.2027' }, { enterableUntil: null }, ['enterableUntil is not a date']],
    ['a day whose hours do not read', { openingHours: { regular: { monday: 'nonstop' } } }, {}, ['regular monday']],
    ['a maximum weight that is not whole', { maxWeight: '7.5' }, { maxWeightKg: null }, ['maxWeight']],
  ])('keeps the point with a warning for %s', (_name, overrides, expected, warnings) => {
    const parsed = parseFeedPoint(aBranch(overrides), 'branch');
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.point).toMatchObject(expected);
    warnings.forEach((w, i) => expect(parsed.warnings[i]).toContain(w));
  });

  it.each([
    ['no ID', { id: {} }, null, 'id is missing'],
    ['an ID that is not a number', { id: 'AB12' }, 'AB12', 'id is not 1 to 10 digits'],
    ['an ID longer than the catalogue allows', { id: '12345678901' }, '12345678901', 'id is not 1 to 10 digits'],
    ['no coordinates', { latitude: '' }, '12', 'latitude is missing'],
    ['a latitude off the globe', { latitude: '91.5' }, '12', 'latitude is not a coordinate'],
    ['a longitude that is not a number', { longitude: '14,47' }, '12', 'longitude is not a coordinate'],
    ['no street', { street: {} }, '12', 'street is missing'],
    ['an unknown country', { country: 'xx' }, '12', 'country is not an ISO 3166-1 code'],
    ['no status', { status: {} }, '12', 'status.statusId is missing'],
    ['a visibility that is not 0 or 1', { displayFrontend: 'maybe' }, '12', 'displayFrontend is not 0 or 1'],
  ])('refuses a point with %s', (_name, overrides, id, problem) => {
    expect(parseFeedPoint(aBranch(overrides), 'branch')).toEqual({ ok: false, id, problem });
  });

  it.each([null, 'text', [aBranch()]])('refuses an element that is not an object: %j', (raw) => {
    expect(parseFeedPoint(raw, 'branch')).toEqual({ ok: false, id: null, problem: 'element is not an object' });
  });

  it('digests what it keeps: equal points, equal digests; any kept change, another digest', () => {
    const digest = (raw: Record<string, unknown>) => {
      const parsed = parseFeedPoint(raw, 'branch');
      return parsed.ok ? parsed.point.contentHash : null;
    };
    expect(digest(aBranch())).toBe(digest(aBranch()));
    // What the service does not keep (directions, photos, currency) changes nothing.
    expect(digest(aBranch({ directions: '<p>other</p>', photos: [{ thumbnail: 'x' }] }))).toBe(digest(aBranch()));
    expect(digest(aBranch({ name: 'Other' }))).not.toBe(digest(aBranch()));
    expect(digest(aBranch({ status: { statusId: '2' } }))).not.toBe(digest(aBranch()));
    const parsed = parseFeedPoint(aBranch(), 'branch');
    if (!parsed.ok) throw new Error('the docs branch reads');
    const { contentHash: hash, ...kept } = parsed.point;
    expect(contentHash(kept)).toBe(hash);
    const asBox = parseFeedPoint(aBranch(), 'box');
    expect(asBox.ok && asBox.point.contentHash).not.toBe(hash);
  });
});

describe('hours notation', () => {
  it.each([
    ['08:30–18:30', '08:30-18:30'],
    ['8:30-12:00, 13:00-17:30', '08:30-12:00, 13:00-17:30'],
    ['08:00 — 12:00', '08:00 - 12:00'],
    ['', ''],
  ])('%j reads as %j', (input, output) => {
    expect(normalizeHours(input)).toBe(output);
  });
});

describe('splitting a feed into its points as it arrives', () => {
  const text = JSON.stringify([{ a: 1 }, { b: '}{ ] "quoted" \\' }, { c: [{ d: [] }] }, { e: 'ü€' }]);
  const expected = JSON.parse(text) as unknown[];

  it('finds the same points however the text is cut into chunks', () => {
    for (let cut = 0; cut <= text.length; cut += 1) {
      const splitter = new JsonArraySplitter();
      const found = [...splitter.push(text.slice(0, cut)), ...splitter.push(text.slice(cut))];
      splitter.end();
      expect(found.map((f) => JSON.parse(f) as unknown)).toEqual(expected);
    }
  });

  it('finds them a character at a time, with whitespace and a byte order mark around', () => {
    const splitter = new JsonArraySplitter();
    const found = [...`\ufeff\n [ ${text.slice(1, -1)} ]\n`].flatMap((c) => splitter.push(c));
    splitter.end();
    expect(found.map((f) => JSON.parse(f) as unknown)).toEqual(expected);
  });

  it('reads an empty array', () => {
    const splitter = new JsonArraySplitter();
    expect(splitter.push('[]')).toEqual([]);
    expect(() => splitter.end()).not.toThrow();
  });

  it.each([
    ['an object at the root', '{"data": []}', /unexpected "\{" before the array/],
    ['a number among the points', '[{"a":1}, 2]', /unexpected "2" between points/],
    ['text after the array', '[{"a":1}] x', /unexpected "x" after the array/],
  ])('refuses %s', (_name, input, message) => {
    expect(() => new JsonArraySplitter().push(input)).toThrow(message);
  });

  it.each([
    ['an empty body', '', /empty/],
    ['a body cut off inside a point', '[{"a":1},{"b":', /ends inside its array/],
    ['a body cut off between points', '[{"a":1},', /ends inside its array/],
  ])('refuses %s at its end', (_name, input, message) => {
    const splitter = new JsonArraySplitter();
    splitter.push(input);
    expect(() => splitter.end()).toThrow(MalformedFeedError);
    expect(() => splitter.end()).toThrow(message);
  });
});

describe("an import's diff", () => {
  const stored = (feedFile: 'branch' | 'box', contentHash: string, inFeed = true): StoredPacketaPoint => ({
    feedFile,
    contentHash,
    inFeed,
  });

  it.each([
    ['a point not stored', undefined, 'h1', 'new'],
    ['a point stored with the same digest', stored('branch', 'h1'), 'h1', 'unchanged'],
    ['a point stored with another digest', stored('branch', 'h0'), 'h1', 'changed'],
    ['a point back after leaving the feed', stored('branch', 'h1', false), 'h1', 'returned'],
  ] as const)('%s is %s', (_name, before, hash, change) => {
    expect(pointChange(before, hash)).toBe(change);
  });

  it("marks vanished the file's points in the feed that the reading did not list, and only those", () => {
    const points = new Map([
      ['1', stored('branch', 'a')],
      ['2', stored('branch', 'b')],
      ['3', stored('branch', 'c', false)],
      ['4', stored('box', 'd')],
      ['5', stored('branch', 'e')],
    ]);
    expect(vanishedIds(points, 'branch', new Set(['1', '5', '9']))).toEqual(['2']);
    expect(vanishedIds(points, 'box', new Set())).toEqual(['4']);
    expect(vanishedIds(points, 'box', new Set(['4']))).toEqual([]);
  });

  it.each([
    ['a first reading', { inFeedBefore: 0, listed: 10, vanished: 0 }, null],
    ['a file that lost a few points', { inFeedBefore: 1000, listed: 990, vanished: 20 }, null],
    ['a file that lost exactly the share', { inFeedBefore: 1000, listed: 800, vanished: 200 }, null],
    ['a file that lost more than the share', { inFeedBefore: 1000, listed: 790, vanished: 201 }, /201 of 1000 points/],
    ['an empty file', { inFeedBefore: 1000, listed: 0, vanished: 1000 }, /no points/],
    ['an empty first file', { inFeedBefore: 0, listed: 0, vanished: 0 }, /no points/],
  ])('%s', (_name, reading, refusal) => {
    const result = refusalOfReading({ ...reading, maxVanishedShare: 0.2 });
    if (refusal === null) expect(result).toBeNull();
    else expect(result).toMatch(refusal);
  });

  it('starts with nothing counted', () => {
    expect(noCounts()).toEqual({ new: 0, changed: 0, returned: 0, unchanged: 0, vanished: 0, refused: 0 });
  });
});

describe('the generated network', () => {
  it('reads whole: every point of every file is a point the parser keeps, without a warning', () => {
    const texts = generatedFeedTexts(500);
    for (const file of ['branch', 'box'] as const) {
      const elements = JSON.parse(texts[file]) as unknown[];
      expect(elements.length).toBeGreaterThan(100);
      for (const element of elements) expect(parseFeedPoint(element, file)).toMatchObject({ ok: true, warnings: [] });
    }
  });

  it('changes and drops only the points a later generation names, leaving the others as they were', () => {
    expect(generatedPoint(7)).toEqual(generatedPoint(7, { changedEvery: 100, droppedEvery: 200 }));
    expect(generatedPoint(201, { droppedEvery: 200 })).toBeNull();
    expect(generatedPoint(300, { changedEvery: 100 })).not.toEqual(generatedPoint(300));
    expect(generatedPoint(300, { changedEvery: 100 })!.raw.latitude).toBe(generatedPoint(300)!.raw.latitude);
  });

  it('spreads over the six countries with about four points in ten in boxes', () => {
    const counts = new Map<string, number>();
    let boxes = 0;
    for (let i = 0; i < 5000; i += 1) {
      const point = generatedPoint(i)!;
      counts.set(String(point.raw.country), (counts.get(String(point.raw.country)) ?? 0) + 1);
      if (point.file === 'box') boxes += 1;
    }
    expect([...counts.keys()].sort()).toEqual(['cz', 'de', 'hu', 'pl', 'ro', 'sk']);
    expect(boxes / 5000).toBeGreaterThan(0.35);
    expect(boxes / 5000).toBeLessThan(0.45);
  });
});

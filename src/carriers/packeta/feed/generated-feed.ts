import type { PacketaFeedFile } from '../../../db/packeta-pickup-points';

/**
 * A generated network in the shape of Packeta's branch export v5 (every value a string, empty optionals as `{}`,
 * hours with an en dash), for the fake feed, the sandbox and the benchmark: points clustered around the large cities
 * of CZ, SK, HU, PL, RO and DE and spread over each country, about four in ten of them boxes. Point `i` depends only
 * on the seed and `i`, so a later generation can change or drop some points and leave the others as they were.
 */

interface City {
  name: string;
  latitude: number;
  longitude: number;
  weight: number;
}

interface Country {
  code: string;
  currency: string;
  /** Share of the network. */
  share: number;
  /** South, north, west, east: where points away from the cities fall. */
  box: [number, number, number, number];
  zip: (n: number) => string;
  cities: City[];
}

const pad = (n: number, width: number) => String(n).padStart(width, '0');
const city = (name: string, latitude: number, longitude: number, weight: number): City => ({
  name,
  latitude,
  longitude,
  weight,
});

export const FEED_COUNTRIES: readonly Country[] = [
  {
    code: 'cz',
    currency: 'CZK',
    share: 0.28,
    box: [48.6, 51.0, 12.1, 18.8],
    zip: (n) => `${pad(100 + (n % 690), 3)} ${pad(n % 100, 2)}`,
    cities: [
      city('Praha', 50.0755, 14.4378, 30),
      city('Brno', 49.1951, 16.6068, 10),
      city('Ostrava', 49.8209, 18.2625, 8),
      city('Plzeň', 49.7384, 13.3736, 5),
      city('Liberec', 50.7663, 15.0543, 3),
      city('Olomouc', 49.5938, 17.2509, 3),
      city('České Budějovice', 48.9745, 14.4743, 3),
      city('Hradec Králové', 50.2104, 15.8327, 3),
    ],
  },
  {
    code: 'sk',
    currency: 'EUR',
    share: 0.1,
    box: [47.75, 49.6, 16.85, 22.55],
    zip: (n) => `${pad(800 + (n % 190), 3)} ${pad(n % 100, 2)}`,
    cities: [
      city('Bratislava', 48.1486, 17.1077, 12),
      city('Košice', 48.7164, 21.2611, 6),
      city('Žilina', 49.2231, 18.7394, 3),
      city('Nitra', 48.3069, 18.0864, 3),
      city('Banská Bystrica', 48.7363, 19.1462, 3),
    ],
  },
  {
    code: 'hu',
    currency: 'HUF',
    share: 0.14,
    box: [45.75, 48.55, 16.1, 22.9],
    zip: (n) => pad(1000 + (n % 8999), 4),
    cities: [
      city('Budapest', 47.4979, 19.0402, 25),
      city('Debrecen', 47.5316, 21.6273, 4),
      city('Szeged', 46.253, 20.1414, 4),
      city('Miskolc', 48.1035, 20.7784, 3),
      city('Pécs', 46.0727, 18.2323, 3),
      city('Győr', 47.6875, 17.6504, 3),
    ],
  },
  {
    code: 'pl',
    currency: 'PLN',
    share: 0.22,
    box: [49.0, 54.8, 14.1, 24.1],
    zip: (n) => `${pad(n % 100, 2)}-${pad(n % 1000, 3)}`,
    cities: [
      city('Warszawa', 52.2297, 21.0122, 20),
      city('Kraków', 50.0647, 19.945, 9),
      city('Łódź', 51.7592, 19.456, 7),
      city('Wrocław', 51.1079, 17.0385, 7),
      city('Poznań', 52.4064, 16.9252, 6),
      city('Gdańsk', 54.352, 18.6466, 5),
      city('Katowice', 50.2649, 19.0238, 6),
    ],
  },
  {
    code: 'ro',
    currency: 'RON',
    share: 0.16,
    box: [43.6, 48.3, 20.3, 29.7],
    zip: (n) => pad(10000 + (n % 890000), 6),
    cities: [
      city('București', 44.4268, 26.1025, 22),
      city('Cluj-Napoca', 46.7712, 23.6236, 6),
      city('Timișoara', 45.7489, 21.2087, 5),
      city('Iași', 47.1585, 27.6014, 5),
      city('Constanța', 44.1598, 28.6348, 4),
      city('Brașov', 45.6427, 25.5887, 4),
    ],
  },
  {
    code: 'de',
    currency: 'EUR',
    share: 0.1,
    box: [47.3, 55.0, 5.9, 15.0],
    zip: (n) => pad(1000 + (n % 98999), 5),
    cities: [
      city('Berlin', 52.52, 13.405, 12),
      city('Hamburg', 53.5511, 9.9937, 6),
      city('München', 48.1351, 11.582, 6),
      city('Köln', 50.9375, 6.9603, 4),
      city('Frankfurt am Main', 50.1109, 8.6821, 4),
      city('Dresden', 51.0504, 13.7373, 4),
      city('Leipzig', 51.3397, 12.3731, 3),
    ],
  },
];

const STREETS = ['Hlavní', 'Nádražní', 'Masarykova', 'Školní', 'Polna', 'Kossuth utca', 'Strada Mare', 'Hauptstraße'];
const PLACES = ['Tabák', 'Papírnictví', 'Květinářství', 'Potraviny', 'Drogerie', 'Kavárna', 'Trafika', 'Kiosk'];

/** The same numbers for the same seed and index: a small integer hash (mulberry32 of seed and index). */
function randomFor(seed: number, index: number): () => number {
  let state = (seed * 0x9e3779b1 + index * 0x85ebca6b) >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function pick<T extends { weight: number }>(items: readonly T[], r: number): T {
  const total = items.reduce((sum, i) => sum + i.weight, 0);
  let left = r * total;
  for (const item of items) if ((left -= item.weight) < 0) return item;
  return items[items.length - 1]!;
}

/** A normal deviate (Box-Muller) from two uniform ones. */
const gaussian = (a: number, b: number) => Math.sqrt(-2 * Math.log(1 - a)) * Math.cos(2 * Math.PI * b);

export interface GeneratedPoint {
  file: PacketaFeedFile;
  /** The element as Packeta's feed has it. */
  raw: Record<string, unknown>;
}

export interface GenerationOptions {
  seed?: number;
  /** Every `changedEvery`-th point has another address and hours (a later generation of the feed). */
  changedEvery?: number;
  /** Every `droppedEvery`-th point (counted from 1) is left out. */
  droppedEvery?: number;
}

const week = (weekday: string, saturday: string, sunday: string) => ({
  monday: weekday,
  tuesday: weekday,
  wednesday: weekday,
  thursday: weekday,
  friday: weekday,
  saturday,
  sunday,
});

/** Point `index` of a generated network; null when a generation leaves it out. */
export function generatedPoint(index: number, options: GenerationOptions = {}): GeneratedPoint | null {
  if (options.droppedEvery && index % options.droppedEvery === 1) return null;
  const random = randomFor(options.seed ?? 1, index);
  let share = random();
  const country = FEED_COUNTRIES.find((c) => (share -= c.share) < 0) ?? FEED_COUNTRIES[0]!;
  const isBox = random() < 0.4;
  const nearCity = random() < 0.7;
  const home = pick(country.cities, random());
  const [south, north, west, east] = country.box;
  const latitude = nearCity ? home.latitude + gaussian(random(), random()) * 0.06 : south + random() * (north - south);
  const longitude = nearCity ? home.longitude + gaussian(random(), random()) * 0.09 : west + random() * (east - west);
  const id = String(100 + index);
  const changed = options.changedEvery !== undefined && index % options.changedEvery === 0;
  // A changed point has moved next door (a new street number) and, if staffed, has other hours.
  const street = `${STREETS[index % STREETS.length]} ${1 + Math.floor(random() * 180)}${changed ? 'a' : ''}`;
  const weekday = changed ? '09:00–17:00' : '08:30–12:00, 13:00–18:30';
  const roll = random();
  const place = isBox ? 'Z-BOX' : PLACES[index % PLACES.length]!;
  const name = `${home.name}, ${street} (${place})`;
  return {
    file: isBox ? 'box' : 'branch',
    raw: {
      id,
      ...(isBox ? { type: 'zbox' } : {}),
      name,
      ...(isBox ? {} : { special: 'vstup z nádvoří' }),
      place,
      street,
      city: home.name,
      zip: country.zip(index),
      country: country.code,
      currency: country.currency,
      // About one point in a hundred is closed for a while, one in two hundred hidden from customers.
      status:
        roll < 0.01
          ? { statusId: '2', description: 'Temporarily closed' }
          : { statusId: '1', description: 'In operation' },
      ...(isBox ? { codAllowed: roll < 0.95 ? '1' : '0' } : {}),
      displayFrontend: roll > 0.995 ? '0' : '1',
      directions: `<p>${place} u zastávky ${home.name} ${1 + (index % 40)}. Vstup z ulice ${street}.</p>`,
      directionsCar: isBox ? {} : '<p>Parkování přímo před provozovnou.</p>',
      directionsPublic: isBox ? {} : `<p>Zastávka ${street}, tramvaj ${1 + (index % 25)}.</p>`,
      wheelchairAccessible: roll < 0.5 ? 'yes' : 'no',
      creditCardPayment: 'yes',
      dressingRoom: '0',
      claimAssistant: isBox ? '0' : '1',
      packetConsignment: '1',
      latitude: latitude.toFixed(5),
      longitude: longitude.toFixed(5),
      url: `https://www.zasilkovna.cz/pobocky/${id}`,
      maxWeight: isBox ? '15' : '10',
      labelRouting: `C${pad(10 + (index % 80), 2)}-${pad(index % 1000, 3)}-${id}`,
      labelName: name,
      photos: [
        {
          thumbnail: `https://files.packeta.com/points/thumb/point_${id}_a.jpg`,
          normal: `https://files.packeta.com/points/normal/point_${id}_a.jpg`,
        },
      ],
      openingHours: {
        regular: isBox ? week('00:00–23:59', '00:00–23:59', '00:00–23:59') : week(weekday, '09:00–12:00', ''),
        exceptions: {},
      },
    },
  };
}

/** The elements of each file of a generated network of `count` points, in ID order. */
export function* generatedPoints(count: number, options: GenerationOptions = {}): Generator<GeneratedPoint> {
  for (let i = 0; i < count; i += 1) {
    const point = generatedPoint(i, options);
    if (point) yield point;
  }
}

/** The two files' texts as Packeta serves them (one JSON array each). */
export function generatedFeedTexts(count: number, options: GenerationOptions = {}): Record<PacketaFeedFile, string> {
  const parts: Record<PacketaFeedFile, string[]> = { branch: [], box: [] };
  for (const point of generatedPoints(count, options)) parts[point.file].push(JSON.stringify(point.raw));
  return { branch: `[${parts.branch.join(',')}]`, box: `[${parts.box.join(',')}]` };
}

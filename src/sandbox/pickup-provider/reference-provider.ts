/**
 * Reference custom pickup point provider: a complete, dependency-free implementation of the provider contract (the
 * specification's "Custom Pickup Point Provider Contract") that a store operator can copy and fill with their own
 * points.
 *
 *   PROVIDER_KEY=choose-a-long-secret PORT=8080 node --import tsx src/sandbox/pickup-provider/reference-provider.ts
 *
 * It answers `POST` on any path with `{data: [...]}`: the operator's points in the requested country, nearest
 * first, at most 50. It checks the caller by `X-Origin-Service` and the custom header `X-Provider-Key`, answers
 * `{error}` with 400 for a bad request body and 500 for unexpected problems. Run it behind HTTPS (a reverse proxy
 * or a platform that terminates TLS): the service calls providers over HTTPS only (to try it on your machine first,
 * outside production, list its origin in LOCAL_OUTBOUND_ORIGINS: docs/operators.md). The sandbox serves the same
 * handler at `POST /pickup-providers/{name}` (docs/sandbox.md), and `docs/operators.md` walks through connecting it.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';

/** The fixed text the Shipping Label API sends in `X-Origin-Service`. */
export const EXPECTED_ORIGIN_SERVICE = 'shipping-label-api/pickup-points';

export interface ProviderPoint {
  id: string;
  latitude: number;
  longitude: number;
  name: string;
  place?: string;
  street: string;
  city: string;
  zip: string;
  country: string;
  pin?: string;
  /** Lowercase weekday -> "HH:MM - HH:MM, HH:MM - HH:MM"; leave a day out when closed. */
  openingHours?: Partial<Record<string, string>>;
}

const WEEKDAY_HOURS = { monday: '09:00 - 18:00', tuesday: '09:00 - 18:00', wednesday: '09:00 - 18:00' };

/** Replace with your own points (or read them from your database). */
export const REFERENCE_POINTS: ProviderPoint[] = [
  {
    id: 'shop-praha-1',
    latitude: 50.0819,
    longitude: 14.4261,
    name: 'Our shop Národní',
    place: 'Nové Město',
    street: 'Národní 25',
    city: 'Praha',
    zip: '110 00',
    country: 'CZ',
    openingHours: { ...WEEKDAY_HOURS, thursday: '09:00 - 12:00, 13:00 - 20:00', friday: '09:00 - 18:00' },
  },
  {
    id: 'shop-praha-2',
    latitude: 50.0755,
    longitude: 14.4525,
    name: 'Our shop Vinohrady',
    place: 'Vinohrady',
    street: 'Vinohradská 48',
    city: 'Praha',
    zip: '120 00',
    country: 'CZ',
    pin: 'https://pins.example.com/our-shop.png',
    openingHours: { ...WEEKDAY_HOURS, saturday: '10:00 - 14:00' },
  },
  {
    id: 'shop-praha-3',
    latitude: 50.1036,
    longitude: 14.3901,
    name: 'Our shop Dejvice',
    street: 'Dejvická 10',
    city: 'Praha',
    zip: '160 00',
    country: 'CZ',
    openingHours: WEEKDAY_HOURS,
  },
  {
    id: 'shop-praha-4',
    latitude: 50.0311,
    longitude: 14.4917,
    name: 'Our warehouse counter Chodov',
    place: 'Chodov',
    street: 'Roztylská 19',
    city: 'Praha',
    zip: '148 00',
    country: 'CZ',
  },
  {
    id: 'shop-brno-1',
    latitude: 49.1951,
    longitude: 16.6068,
    name: 'Our shop Brno centre',
    street: 'Masarykova 3',
    city: 'Brno',
    zip: '602 00',
    country: 'CZ',
    openingHours: WEEKDAY_HOURS,
  },
  {
    id: 'shop-bratislava-1',
    latitude: 48.1439,
    longitude: 17.1097,
    name: 'Our shop Bratislava',
    street: 'Hlavná 7',
    city: 'Bratislava',
    zip: '811 01',
    country: 'SK',
    openingHours: WEEKDAY_HOURS,
  },
];

export interface ProviderSettings {
  /** Headers the caller must send, beside `X-Origin-Service` (names in any case). */
  requiredHeaders: Record<string, string>;
  points: readonly ProviderPoint[];
}

export interface ProviderReply {
  status: number;
  body: unknown;
}

function distance(a: { latitude: number; longitude: number }, b: { latitude: number; longitude: number }): number {
  const rad = (d: number) => (d * Math.PI) / 180;
  const h =
    Math.sin(rad(b.latitude - a.latitude) / 2) ** 2 +
    Math.cos(rad(a.latitude)) * Math.cos(rad(b.latitude)) * Math.sin(rad(b.longitude - a.longitude) / 2) ** 2;
  return 2 * 6_371_008.8 * Math.asin(Math.sqrt(h));
}

const header = (headers: IncomingHttpHeaders, name: string) => {
  const value = headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
};

/** The contract's search, as a pure function of the request: reused by the standalone server and the sandbox. */
export function handleSearch(
  request: { method: string; headers: IncomingHttpHeaders; body: unknown },
  settings: ProviderSettings,
): ProviderReply {
  if (request.method !== 'POST') return { status: 405, body: { error: 'use POST' } };
  if (header(request.headers, 'x-origin-service') !== EXPECTED_ORIGIN_SERVICE)
    return { status: 401, body: { error: 'unknown caller: X-Origin-Service is missing or wrong' } };
  for (const [name, value] of Object.entries(settings.requiredHeaders)) {
    if (header(request.headers, name) !== value)
      return { status: 401, body: { error: `unknown caller: ${name} is missing or wrong` } };
  }
  const body = (request.body ?? {}) as Record<string, unknown>;
  const { latitude, longitude, countryCode, shop } = body;
  if (typeof latitude !== 'number' || !Number.isFinite(latitude) || Math.abs(latitude) > 90)
    return { status: 400, body: { error: 'latitude must be a number between -90 and 90' } };
  if (typeof longitude !== 'number' || !Number.isFinite(longitude) || Math.abs(longitude) > 180)
    return { status: 400, body: { error: 'longitude must be a number between -180 and 180' } };
  if (typeof countryCode !== 'string' || !/^[A-Z]{2}$/.test(countryCode))
    return { status: 400, body: { error: 'countryCode must be an ISO 3166-1 alpha-2 code' } };
  if (typeof shop !== 'string' || shop.length === 0) return { status: 400, body: { error: 'shop is required' } };
  const origin = { latitude, longitude };
  const data = settings.points
    .filter((p) => p.country === countryCode)
    .map((p) => ({ p, d: distance(origin, p) }))
    .sort((a, b) => a.d - b.d)
    .slice(0, 50)
    .map(({ p }) => p);
  return { status: 200, body: { data } };
}

function main(): void {
  const key = process.env.PROVIDER_KEY;
  if (!key) throw new Error('set PROVIDER_KEY to the secret you configure as the X-Provider-Key header');
  const settings: ProviderSettings = { requiredHeaders: { 'X-Provider-Key': key }, points: REFERENCE_POINTS };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      let reply: ProviderReply;
      try {
        let body: unknown;
        try {
          body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
        } catch {
          body = undefined;
        }
        reply = handleSearch({ method: req.method ?? 'GET', headers: req.headers, body }, settings);
      } catch {
        reply = { status: 500, body: { error: 'unexpected server problem' } };
      }
      res.writeHead(reply.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(reply.body));
    });
  });
  server.listen(Number(process.env.PORT ?? 8080));
}

if (require.main === module) main();

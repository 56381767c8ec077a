import { loadConfig } from '../../src/config';
import pino from 'pino';
import { createLogger } from '../../src/logger';
import { maskHeaderValue, openHeaders, sealHeaders } from '../../src/pickup-points/header-vault';
import { ProviderCallError, type ProviderClient } from '../../src/pickup-points/provider-client';
import {
  checkHeaders,
  checkProviderCode,
  checkProviderUrl,
  parseHeaderArgument,
  ProviderConfigError,
} from '../../src/pickup-points/provider-config';
import { closedWeek } from '../../src/domain/pickup-points';
import { InvalidProviderAnswerError, validateProviderAnswer } from '../../src/pickup-points/provider-contract';
import { createProviderSearch, type ProviderRecord } from '../../src/pickup-points/provider-search';
import {
  BlockedTargetError,
  checkEndpointUrl,
  guardedLookup,
  isPublicAddress,
  parseLocalOrigins,
  targetPolicy,
  type Resolver,
} from '../../src/net/target-guard';

const ORIGIN = { latitude: 50.0755, longitude: 14.4378 };

function aPoint(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: 'shop-1',
    latitude: 50.0819,
    longitude: 14.4261,
    name: 'Our shop',
    street: 'Národní 25',
    city: 'Praha',
    zip: '110 00',
    country: 'CZ',
    ...overrides,
  };
}

describe('validateProviderAnswer', () => {
  it('maps a valid item to a pickup point with its distance', () => {
    const answer = validateProviderAnswer(
      {
        data: [
          aPoint({
            place: 'Nové Město',
            pin: 'https://pins.example.com/a.png',
            openingHours: { monday: '08:00 - 12:00, 13:00 - 17:00', sunday: '' },
          }),
        ],
      },
      ORIGIN,
    );
    expect(answer.dropped).toEqual([]);
    expect(answer.droppedFields).toEqual([]);
    expect(answer.points).toHaveLength(1);
    const { item, distanceMeters } = answer.points[0]!;
    expect(distanceMeters).toBeGreaterThan(900);
    expect(distanceMeters).toBeLessThan(1200);
    expect(item).toMatchObject({ id: 'shop-1', type: 'pickup_point', place: 'Nové Město', requiresCustomerId: false });
    expect(item.openingHours.monday).toEqual([
      { opens: '08:00', closes: '12:00' },
      { opens: '13:00', closes: '17:00' },
    ]);
    // Absent and empty days are closed.
    expect(item.openingHours.tuesday).toEqual([]);
    expect(item.openingHours.sunday).toEqual([]);
  });

  it('takes optional fields as absent when null and ignores fields the contract does not name', () => {
    const answer = validateProviderAnswer(
      { data: [aPoint({ place: null, pin: null, openingHours: null, rating: 5 })] },
      ORIGIN,
    );
    expect(answer.points[0]!.item).toMatchObject({ place: null, pinUrl: null });
  });

  it.each<[string, Record<string, unknown>, RegExp]>([
    ['missing id', { id: undefined }, /^id: required/],
    ['empty id', { id: '  ' }, /^id: must not be empty/],
    ['numeric id', { id: 17 }, /^id: /],
    ['missing latitude', { latitude: undefined }, /^latitude: required/],
    ['latitude as text', { latitude: '50.1' }, /^latitude: .*got "50.1"/],
    ['latitude out of range', { latitude: 91 }, /^latitude: /],
    ['longitude out of range', { longitude: -181 }, /^longitude: /],
    ['missing name', { name: undefined }, /^name: required/],
    ['missing street', { street: undefined }, /^street: required/],
    ['missing city', { city: undefined }, /^city: required/],
    ['missing zip', { zip: undefined }, /^zip: required/],
    ['missing country', { country: undefined }, /^country: required/],
    ['country as a name', { country: 'Czechia' }, /^country: must be an ISO 3166-1 alpha-2 code/],
    ['country in lower case', { country: 'cz' }, /^country: /],
    ['country not assigned', { country: 'XK' }, /^country: /],
  ])('drops an item with %s and says why', (_name, overrides, problem) => {
    const answer = validateProviderAnswer({ data: [aPoint(overrides), aPoint({ id: 'shop-2' })] }, ORIGIN);
    expect(answer.points.map((p) => p.item.id)).toEqual(['shop-2']);
    expect(answer.dropped).toHaveLength(1);
    expect(answer.dropped[0]!.index).toBe(0);
    expect(answer.dropped[0]!.problems[0]).toMatch(problem);
  });

  it.each<[string, Record<string, unknown>, 'place' | 'pin' | 'openingHours', RegExp, Record<string, unknown>]>([
    ['pin not a URL', { pin: 'pin.png' }, 'pin', /^pin: /, { pinUrl: null }],
    [
      'pin with a script scheme',
      { pin: 'javascript:alert(1)' },
      'pin',
      /^pin: must be an http\(s\) URL/,
      { pinUrl: null },
    ],
    ['pin not text', { pin: 42 }, 'pin', /^pin: /, { pinUrl: null }],
    ['place not text', { place: ['Nové Město'] }, 'place', /^place: /, { place: null }],
    [
      'a day that is no range',
      { openingHours: { monday: '8-17', tuesday: '08:00 - 12:00' } },
      'openingHours',
      /^openingHours\.monday: "8-17" is not a range/,
      { openingHours: expect.objectContaining({ monday: [], tuesday: [{ opens: '08:00', closes: '12:00' }] }) },
    ],
    [
      'an unknown weekday',
      { openingHours: { funday: '08:00 - 12:00' } },
      'openingHours',
      /^openingHours\.funday: unknown key "funday"/,
      { openingHours: closedWeek() },
    ],
    [
      'a capitalised weekday',
      { openingHours: { Monday: '08:00 - 12:00' } },
      'openingHours',
      /^openingHours\.Monday: unknown key "Monday"/,
      { openingHours: closedWeek() },
    ],
    [
      'opening hours not an object',
      { openingHours: 'always' },
      'openingHours',
      /^openingHours: must be an object/,
      { openingHours: closedWeek() },
    ],
  ])('keeps an item with %s, leaves the field out and says why', (_name, overrides, field, problem, kept) => {
    const answer = validateProviderAnswer(
      { data: [aPoint({ pin: 'https://pins.example.com/a.png', ...overrides })] },
      ORIGIN,
    );
    expect(answer.dropped).toEqual([]);
    expect(answer.points.map((p) => p.item.id)).toEqual(['shop-1']);
    expect(answer.points[0]!.item).toMatchObject(kept);
    expect(answer.droppedFields).toEqual([{ index: 0, id: 'shop-1', field, problem: expect.stringMatching(problem) }]);
  });

  it('reads a range past midnight as the contract writes it: the day ends at 24:00 and the next opens at 00:00', () => {
    const answer = validateProviderAnswer({ data: [aPoint({ openingHours: { friday: '17:00 - 08:00' } })] }, ORIGIN);
    expect(answer.droppedFields).toEqual([]);
    expect(answer.points[0]!.item.openingHours).toMatchObject({
      friday: [{ opens: '17:00', closes: '24:00' }],
      saturday: [{ opens: '00:00', closes: '08:00' }],
    });
  });

  it('drops items that are not objects and a repeated id', () => {
    const answer = validateProviderAnswer({ data: [aPoint(), 'shop', null, aPoint()] }, ORIGIN);
    expect(answer.points).toHaveLength(1);
    expect(answer.dropped.map((d) => [d.index, d.id])).toEqual([
      [1, null],
      [2, null],
      [3, 'shop-1'],
    ]);
    expect(answer.dropped[2]!.problems).toEqual(['id: duplicate of item 0']);
  });

  it('processes only the first 50 items and counts the rest', () => {
    const data = Array.from({ length: 80 }, (_, i) => aPoint({ id: `p${i}`, latitude: 50.08 + i * 0.001 }));
    const answer = validateProviderAnswer({ data }, ORIGIN);
    expect(answer.received).toBe(80);
    expect(answer.points).toHaveLength(50);
    expect(answer.points.at(-1)!.item.id).toBe('p49');
    expect(answer.ignoredOverLimit).toBe(30);
  });

  it('keeps the order of the answer and reports where it is not nearest first', () => {
    const data = [50.1, 50.09, 50.08].map((latitude, i) => aPoint({ id: `p${i}`, latitude }));
    const answer = validateProviderAnswer({ data }, ORIGIN);
    expect(answer.points.map((p) => p.item.id)).toEqual(['p0', 'p1', 'p2']);
    expect(answer.outOfOrder.map((o) => o.index)).toEqual([1, 2]);
  });

  it.each([[[]], [{}], [{ data: {} }], [{ points: [] }], ['[]'], [null]])(
    'refuses an answer that is not {data: [...]}: %j',
    (body) => {
      expect(() => validateProviderAnswer(body, ORIGIN)).toThrow(InvalidProviderAnswerError);
    },
  );

  it('accepts an empty list', () => {
    expect(validateProviderAnswer({ data: [] }, ORIGIN)).toMatchObject({ points: [], received: 0, dropped: [] });
  });
});

describe('isPublicAddress', () => {
  it.each([
    ['127.0.0.1', false],
    ['127.8.9.10', false],
    ['10.1.2.3', false],
    ['172.16.0.1', false],
    ['172.31.255.255', false],
    ['192.168.1.1', false],
    ['169.254.169.254', false],
    ['100.64.0.1', false],
    ['0.0.0.0', false],
    ['224.0.0.1', false],
    ['255.255.255.255', false],
    ['::1', false],
    ['::', false],
    ['::ffff:127.0.0.1', false],
    ['::ffff:8.8.8.8', false],
    ['fe80::1', false],
    ['fd00::1', false],
    ['ff02::1', false],
    ['64:ff9b::7f00:1', false],
    ['2002:7f00:1::', false],
    ['not-an-ip', false],
    ['8.8.8.8', true],
    ['93.184.215.14', true],
    ['172.32.0.1', true],
    ['2606:4700:4700::1111', true],
  ])('%s -> %s', (address, expected) => {
    expect(isPublicAddress(address)).toBe(expected);
  });
});

describe('checkEndpointUrl', () => {
  const policy = { trustedOrigins: ['http://127.0.0.1:4010'] };
  it.each([
    ['https://pickup.example.com/search', null],
    ['https://pickup.example.com:8443/v1/points?x=1', null],
    ['http://127.0.0.1:4010/pickup-providers/ref', null],
    ['http://pickup.example.com/search', 'scheme_not_https'],
    ['ftp://pickup.example.com/', 'scheme_not_https'],
    ['http://127.0.0.1:4011/other-port', 'scheme_not_https'],
    ['https://127.0.0.1/', 'private_address'],
    ['https://2130706433/', 'private_address'],
    ['https://0x7f.1/', 'private_address'],
    ['https://[::1]/', 'private_address'],
    ['https://[::ffff:127.0.0.1]/', 'private_address'],
    ['https://169.254.169.254/latest/meta-data', 'private_address'],
    ['https://10.0.0.5/', 'private_address'],
    ['https://user:secret@pickup.example.com/', 'credentials_in_url'],
    ['not a url', 'invalid_url'],
    ['/relative/path', 'invalid_url'],
  ])('%s', (url, reason) => {
    if (reason === null) expect(checkEndpointUrl(url, policy)).toBeInstanceOf(URL);
    else expect(() => checkEndpointUrl(url, policy)).toThrow(expect.objectContaining({ reason }));
  });
  it('trusts no origin in production; elsewhere the sandbox and the configured local origins', () => {
    const local = ['http://127.0.0.1:8080'];
    expect(
      targetPolicy({ env: 'production', sandboxUrl: 'http://127.0.0.1:4010', localOutboundOrigins: local })
        .trustedOrigins,
    ).toEqual([]);
    expect(
      targetPolicy({ env: 'test', sandboxUrl: 'http://127.0.0.1:4010/', localOutboundOrigins: [] }).trustedOrigins,
    ).toEqual(['http://127.0.0.1:4010']);
    expect(
      targetPolicy({ env: 'development', sandboxUrl: 'http://127.0.0.1:4010', localOutboundOrigins: local })
        .trustedOrigins,
    ).toEqual(['http://127.0.0.1:4010', 'http://127.0.0.1:8080']);
  });
});

describe('local outbound origins (LOCAL_OUTBOUND_ORIGINS, outside production)', () => {
  const policy = targetPolicy({
    env: 'development',
    sandboxUrl: 'http://127.0.0.1:4010',
    localOutboundOrigins: parseLocalOrigins('http://127.0.0.1:8080, http://localhost:9000'),
  });
  it.each([
    ['http://127.0.0.1:8080/pickup/search', null],
    ['http://localhost:9000/hooks', null],
    // Exactly the listed origins: another port, scheme or spelling of the host is refused as before.
    ['http://127.0.0.1:8081/hooks', 'scheme_not_https'],
    ['https://127.0.0.1:8080/hooks', 'private_address'],
    ['http://localhost:8080/hooks', 'scheme_not_https'],
    ['http://[::1]:8080/hooks', 'scheme_not_https'],
    ['http://10.0.0.7:8080/hooks', 'scheme_not_https'],
    ['https://192.168.1.20/hooks', 'private_address'],
    ['http://user:pw@127.0.0.1:8080/hooks', 'credentials_in_url'],
  ])('%s', (url, reason) => {
    if (reason === null) expect(checkEndpointUrl(url, policy)).toBeInstanceOf(URL);
    else expect(() => checkEndpointUrl(url, policy)).toThrow(expect.objectContaining({ reason }));
  });

  it('a refused loopback URL names the setting outside production, never in production or for other hosts', () => {
    expect(() => checkEndpointUrl('http://127.0.0.1:8081/hooks', policy)).toThrow(
      'the URL must use HTTPS (to try a local endpoint outside production, set LOCAL_OUTBOUND_ORIGINS=http://127.0.0.1:8081)',
    );
    expect(() => checkEndpointUrl('https://[::1]/hooks', policy)).toThrow(/LOCAL_OUTBOUND_ORIGINS=https:\/\/\[::1\]/);
    expect(() => checkEndpointUrl('http://hooks.example.com/x', policy)).toThrow(/^the URL must use HTTPS$/);
    const production = targetPolicy({
      env: 'production',
      sandboxUrl: 'http://127.0.0.1:4010',
      localOutboundOrigins: [],
    });
    expect(() => checkEndpointUrl('http://127.0.0.1:8081/hooks', production)).toThrow(/^the URL must use HTTPS$/);
  });

  it('parses a list of loopback origins, each as the exact origin URLs are compared with', () => {
    expect(parseLocalOrigins('')).toEqual([]);
    expect(
      parseLocalOrigins(' http://127.0.0.1:8080 ,https://LOCALHOST:8443/,http://[::1]:9000,,http://127.0.0.2'),
    ).toEqual(['http://127.0.0.1:8080', 'https://localhost:8443', 'http://[::1]:9000', 'http://127.0.0.2']);
    expect(parseLocalOrigins('http://localhost:80,http://localhost')).toEqual(['http://localhost']);
  });

  it.each([
    ['127.0.0.1:8080', /not an origin/],
    ['ftp://127.0.0.1:21', /not an origin/],
    ['http://127.0.0.1:8080/hooks', /without credentials, path or query/],
    ['http://127.0.0.1:8080?x=1', /without credentials, path or query/],
    ['http://user:pw@127.0.0.1:8080', /without credentials, path or query/],
    ['http://10.0.0.7:8080', /not on loopback/],
    ['http://192.168.1.20', /not on loopback/],
    ['http://169.254.169.254', /not on loopback/],
    ['http://receiver.example.com:8080', /not on loopback/],
    ['http://localhost.example.com', /not on loopback/],
  ])('refuses %s', (value, message) => {
    expect(() => parseLocalOrigins(value)).toThrow(message);
  });
});

describe('guardedLookup', () => {
  const resolver =
    (table: Record<string, string[]>): Resolver =>
    async (hostname) =>
      (table[hostname] ?? []).map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  const lookUp = (resolve: Resolver, hostname: string, all: boolean) =>
    new Promise<unknown>((resolveLookup, reject) => {
      guardedLookup(resolve)(hostname, { all }, (error: Error | null, address: unknown, family?: unknown) => {
        if (error) reject(error);
        else resolveLookup(all ? address : { address, family });
      });
    });
  const table = {
    'pickup.localtest.me': ['127.0.0.1'],
    'mixed.example.com': ['93.184.215.14', '10.0.0.7'],
    'metadata.example.com': ['169.254.169.254'],
    'public.example.com': ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'],
  };

  it.each(['pickup.localtest.me', 'mixed.example.com', 'metadata.example.com', 'nowhere.example.com'])(
    'refuses %s',
    async (hostname) => {
      await expect(lookUp(resolver(table), hostname, true)).rejects.toBeInstanceOf(BlockedTargetError);
    },
  );

  it('passes public addresses on, one or all', async () => {
    expect(await lookUp(resolver(table), 'public.example.com', false)).toEqual({
      address: '93.184.215.14',
      family: 4,
    });
    expect(await lookUp(resolver(table), 'public.example.com', true)).toHaveLength(2);
  });
});

describe('provider settings', () => {
  it.each([
    ['shops', true],
    ['my_shops_2', true],
    ['s', false],
    ['Shops', false],
    ['2shops', false],
    ['custom:shops', false],
    ['a'.repeat(33), false],
  ])('code %s', (code, ok) => {
    if (ok) expect(checkProviderCode(code)).toBe(code);
    else expect(() => checkProviderCode(code)).toThrow(ProviderConfigError);
  });

  it('parses "Name: value" and keeps colons in the value', () => {
    expect(parseHeaderArgument('Authorization: Bearer a:b')).toEqual({ name: 'Authorization', value: 'Bearer a:b' });
    expect(() => parseHeaderArgument('no-colon')).toThrow(ProviderConfigError);
  });

  it.each([
    [[{ name: 'X-Provider-Key', value: 'secret' }], null],
    [[{ name: 'X-Origin-Service', value: 'spoof' }], /set by the service/],
    [[{ name: 'content-type', value: 'text/plain' }], /set by the service/],
    [[{ name: 'Bad Name', value: 'x' }], /not valid/],
    [[{ name: 'X-A', value: 'line\r\nX-B: injected' }], /one line/],
    [[{ name: 'X-A', value: '' }], /value/],
    [
      [
        { name: 'X-A', value: '1' },
        { name: 'x-a', value: '2' },
      ],
      /twice/,
    ],
  ])('headers %j', (headers, problem) => {
    if (problem === null) expect(checkHeaders(headers)).toEqual(headers);
    else expect(() => checkHeaders(headers)).toThrow(problem);
  });

  it('refuses URLs the guard refuses, with the reason', () => {
    const policy = { trustedOrigins: [] };
    expect(() => checkProviderUrl('http://pickup.example.com', policy)).toThrow(/HTTPS/);
    expect(() => checkProviderUrl('https://192.168.0.10/points', policy)).toThrow(/not a public address/);
    expect(checkProviderUrl('https://pickup.example.com/points', policy)).toBe('https://pickup.example.com/points');
  });
});

describe('header vault', () => {
  const key = Buffer.alloc(32, 7);
  const headers = [{ name: 'X-Provider-Key', value: 'a-long-shared-secret-value' }];

  it('round-trips, and the sealed text does not contain the value', () => {
    const sealed = sealHeaders(key, 'pp_1', headers);
    expect(sealed).not.toContain('a-long-shared-secret-value');
    expect(sealed).not.toContain('X-Provider-Key');
    expect(openHeaders(key, 'pp_1', sealed)).toEqual(headers);
  });

  it('does not open under another key or for another provider', () => {
    const sealed = sealHeaders(key, 'pp_1', headers);
    expect(() => openHeaders(Buffer.alloc(32, 8), 'pp_1', sealed)).toThrow();
    expect(() => openHeaders(key, 'pp_2', sealed)).toThrow();
  });

  it.each([
    ['a-long-shared-secret-value', '••••alue'],
    ['short-secret', '••••'],
  ])('masks %s as %s', (value, masked) => {
    expect(maskHeaderValue(value)).toBe(masked);
  });
});

describe('provider search: cache, single flight and stale answers', () => {
  const provider: ProviderRecord = {
    id: 'pp_1',
    storeId: 'st_1',
    code: 'shops',
    name: 'Shops',
    url: 'https://pickup.example.com',
    headers: [],
    updatedAt: new Date('2026-11-01T00:00:00Z'),
  };
  const input = { location: ORIGIN, countryCode: 'CZ', shop: 'shop.myshopify.com' };
  const logger = createLogger('silent');

  function setup(options: { cacheTtlMs?: number; staleTtlMs?: number } = {}) {
    let now = new Date('2026-11-23T10:00:00Z').getTime();
    const calls: Array<Parameters<ProviderClient>[1]> = [];
    let next: () => Promise<unknown> = async () => ({ data: [aPoint()] });
    const client: ProviderClient = async (_endpoint, search) => {
      calls.push(search);
      return { status: 200, body: await next(), attempts: 1 };
    };
    const search = createProviderSearch({
      client,
      cacheTtlMs: options.cacheTtlMs ?? 60_000,
      staleTtlMs: options.staleTtlMs ?? 3_600_000,
      now: () => new Date(now),
      logger,
    });
    return {
      search,
      calls,
      advance: (ms: number) => (now += ms),
      answerWith: (fn: () => Promise<unknown>) => (next = fn),
    };
  }
  const failing =
    (kind: 'timeout' | 'http_error' | 'network', status: number | null = null) =>
    async () => {
      throw new ProviderCallError(kind, 'down', { status, providerMessage: 'db down', attempts: 2 });
    };

  it('sends the location as it is and serves the cache for the same search within the TTL', async () => {
    const t = setup();
    expect((await t.search(provider, input)).freshness).toBe('fresh');
    expect(t.calls[0]).toEqual({ ...ORIGIN, countryCode: 'CZ', shop: 'shop.myshopify.com' });
    expect((await t.search(provider, input)).freshness).toBe('cached');
    expect(t.calls).toHaveLength(1);
    // About 20 m away is another search: the provider's nearest are that point's.
    const nearby = { ...input, location: { latitude: 50.07569, longitude: 14.43801 } };
    expect((await t.search(provider, nearby)).freshness).toBe('fresh');
    expect(t.calls[1]).toMatchObject(nearby.location);
    t.advance(60_001);
    expect((await t.search(provider, input)).freshness).toBe('fresh');
    expect(t.calls).toHaveLength(3);
  });

  it('counts dropped items and the optional fields left out of kept points', async () => {
    const counted: Array<[string, number]> = [];
    const search = createProviderSearch({
      client: async () => ({
        status: 200,
        body: {
          data: [
            aPoint({ pin: 'javascript:alert(1)', openingHours: { Monday: '08:00 - 12:00', friday: 'all day' } }),
            aPoint({ id: 'shop-2', street: undefined }),
            aPoint({ id: 'shop-3', pin: 'pin.png' }),
          ],
        },
        attempts: 1,
      }),
      cacheTtlMs: 60_000,
      staleTtlMs: 3_600_000,
      now: () => new Date(),
      logger,
      onDropped: (part, count) => counted.push([part, count]),
    });
    const result = await search(provider, input);
    expect(result.answer.points.map((p) => p.item.id)).toEqual(['shop-1', 'shop-3']);
    expect(counted).toEqual([
      ['item', 1],
      ['pin', 2],
      ['openingHours', 2],
    ]);
    // A cached answer is not counted again.
    await search(provider, input);
    expect(counted).toHaveLength(3);
  });

  it('keys the cache by country and by the provider configuration', async () => {
    const t = setup();
    await t.search(provider, input);
    await t.search(provider, { ...input, countryCode: 'SK' });
    await t.search({ ...provider, updatedAt: new Date('2026-11-02T00:00:00Z') }, input);
    await t.search({ ...provider, id: 'pp_2' }, input);
    expect(t.calls).toHaveLength(4);
  });

  it('shares one call between identical searches in flight', async () => {
    const t = setup();
    const results = await Promise.all([t.search(provider, input), t.search(provider, input)]);
    expect(t.calls).toHaveLength(1);
    expect(results.map((r) => r.answer.points.length)).toEqual([1, 1]);
  });

  it.each([
    ['a timeout', failing('timeout')],
    ['a server error', failing('http_error', 500)],
    ['a network error', failing('network')],
  ])('serves the last answer as stale on %s', async (_name, failure) => {
    const t = setup({ cacheTtlMs: 1_000 });
    await t.search(provider, input);
    t.advance(5_000);
    t.answerWith(failure);
    const result = await t.search(provider, input);
    expect(result.freshness).toBe('stale');
    expect(result.answer.points.map((p) => p.item.id)).toEqual(['shop-1']);
    expect(result.failure?.details.providerMessage).toBe('db down');
  });

  it('does not let a stale answer stand in for a 400, or after the stale TTL', async () => {
    const t = setup({ cacheTtlMs: 1_000, staleTtlMs: 10_000 });
    await t.search(provider, input);
    t.advance(5_000);
    t.answerWith(failing('http_error', 400));
    await expect(t.search(provider, input)).rejects.toMatchObject({ kind: 'http_error' });
    t.advance(10_000);
    t.answerWith(failing('timeout'));
    await expect(t.search(provider, input)).rejects.toMatchObject({ kind: 'timeout' });
  });

  it("logs a failure with the provider's own message for the operator", async () => {
    const lines: string[] = [];
    const logged = pino({ level: 'warn' }, { write: (line: string) => lines.push(line) });
    const search = createProviderSearch({
      client: failing('http_error', 500),
      cacheTtlMs: 0,
      staleTtlMs: 0,
      now: () => new Date(),
      logger: logged,
    });
    await expect(search(provider, input)).rejects.toBeInstanceOf(ProviderCallError);
    expect(JSON.parse(lines[0]!)).toMatchObject({
      pickup_provider_id: 'pp_1',
      failure: 'http_error',
      status: 500,
      provider_message: 'db down',
      served_stale: false,
    });
  });

  it('fails without a cached answer, and turns a body that is not {data} into invalid_answer', async () => {
    const t = setup();
    t.answerWith(failing('timeout'));
    await expect(t.search(provider, input)).rejects.toMatchObject({ kind: 'timeout' });
    t.answerWith(async () => ({ points: [] }));
    await expect(t.search(provider, input)).rejects.toMatchObject({ kind: 'invalid_answer' });
  });
});

describe('configuration', () => {
  const key = Buffer.alloc(32, 3).toString('base64');
  it('reads the settings key and the provider durations', () => {
    const config = loadConfig({ SETTINGS_ENCRYPTION_KEY: key, PICKUP_PROVIDER_TIMEOUT: '500ms' });
    expect(config.settingsEncryptionKey.equals(Buffer.alloc(32, 3))).toBe(true);
    expect(config.pickupPoints).toEqual({ providerTimeoutMs: 500, cacheTtlMs: 300_000, staleTtlMs: 86_400_000 });
  });
  it('refuses a key that is not 32 bytes, and production without a key', () => {
    expect(() => loadConfig({ SETTINGS_ENCRYPTION_KEY: 'c2hvcnQ=' })).toThrow(/SETTINGS_ENCRYPTION_KEY/);
    expect(() => loadConfig({ NODE_ENV: 'production', CURSOR_SECRET: 'x'.repeat(20) })).toThrow(
      /SETTINGS_ENCRYPTION_KEY: required in production/,
    );
    expect(
      loadConfig({ NODE_ENV: 'production', CURSOR_SECRET: 'x'.repeat(20), SETTINGS_ENCRYPTION_KEY: key }).env,
    ).toBe('production');
  });
});

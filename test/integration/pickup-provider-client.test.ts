import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createProviderClient, PROVIDER_CLIENT_DEFAULTS } from '../../src/pickup-points/provider-client';
import { validateProviderAnswer } from '../../src/pickup-points/provider-contract';
import { systemResolver, type Resolver } from '../../src/net/target-guard';
import {
  aProviderName,
  configureProvider,
  providerRequests,
  providerUrl,
  scriptProviderFaults,
} from '../helpers/pickup';
import { sandboxUrl } from '../helpers/sandbox';

const SEARCH = { latitude: 50.076, longitude: 14.438, countryCode: 'CZ', shop: 'client-test.myshopify.com' };

/** The client as the service builds it, trusting the sandbox origin (as outside production), with a short time box. */
function client(resolve: Resolver = systemResolver, trusted = [new URL(sandboxUrl()).origin]) {
  return createProviderClient({
    ...PROVIDER_CLIENT_DEFAULTS,
    timeoutMs: 400,
    resolve,
    policy: { trustedOrigins: trusted },
  });
}

async function aProvider(secret = 'client-test-secret') {
  const name = aProviderName();
  await configureProvider(name, { 'X-Provider-Key': secret });
  return { name, endpoint: { url: providerUrl(name), headers: [{ name: 'X-Provider-Key', value: secret }] } };
}

describe('custom provider client against the sandbox reference provider', () => {
  it('POSTs the contract body with Content-Type, X-Origin-Service and the configured headers', async () => {
    const { name, endpoint } = await aProvider();
    const answer = await client()(
      { ...endpoint, headers: [...endpoint.headers, { name: 'X-Tenant', value: 'eu-1' }] },
      SEARCH,
    );
    expect(answer).toMatchObject({ status: 200, attempts: 1 });
    const validated = validateProviderAnswer(answer.body, SEARCH);
    expect(validated.points.map((p) => p.item.id)).toEqual([
      'shop-praha-2',
      'shop-praha-1',
      'shop-praha-3',
      'shop-praha-4',
      'shop-brno-1',
    ]);
    expect(validated.dropped).toEqual([]);
    expect(validated.outOfOrder).toEqual([]);
    const [request] = await providerRequests(name);
    expect(request!.body).toEqual(SEARCH);
    expect(request!.headers).toMatchObject({
      'content-type': 'application/json',
      'x-origin-service': 'shipping-label-api/pickup-points',
      'x-provider-key': 'client-test-secret',
      'x-tenant': 'eu-1',
    });
  });

  it.each([
    ['a wrong key', [{ name: 'X-Provider-Key', value: 'wrong' }], 401, /X-Provider-Key is missing or wrong/],
    ['no key', [], 401, /X-Provider-Key is missing or wrong/],
  ])('reports %s as http_error with the provider message', async (_name, headers, status, message) => {
    const { endpoint } = await aProvider();
    await expect(client()({ ...endpoint, headers }, SEARCH)).rejects.toMatchObject({
      kind: 'http_error',
      details: { status, providerMessage: expect.stringMatching(message), attempts: 1 },
    });
  });

  it('reports a 400 {error} from the reference provider for a bad body, unretried', async () => {
    const { name, endpoint } = await aProvider();
    await expect(client()(endpoint, { ...SEARCH, countryCode: 'cz' })).rejects.toMatchObject({
      kind: 'http_error',
      details: { status: 400, providerMessage: 'countryCode must be an ISO 3166-1 alpha-2 code', attempts: 1 },
    });
    expect(await providerRequests(name)).toHaveLength(1);
  });

  it.each([
    ['slow', { type: 'slow', delay_ms: 1500 }, 'timeout', 1],
    ['500 twice', { type: 'server_error', times: 2 }, 'http_error', 2],
    ['dropped twice', { type: 'drop', times: 2 }, 'network', 2],
    ['not JSON', { type: 'not_json' }, 'not_json', 1],
    ['over 512 KB', { type: 'oversized' }, 'too_large', 1],
  ])('fails on a provider that is %s', async (_name, fault, kind, attempts) => {
    const { name, endpoint } = await aProvider();
    await scriptProviderFaults(name, [fault]);
    await expect(client()(endpoint, SEARCH)).rejects.toMatchObject({ kind, details: { attempts } });
    expect(await providerRequests(name)).toHaveLength(attempts);
  });

  it('keeps the 500 message for the operator', async () => {
    const { name, endpoint } = await aProvider();
    await scriptProviderFaults(name, [{ type: 'server_error', times: 2 }]);
    await expect(client()(endpoint, SEARCH)).rejects.toMatchObject({
      details: { status: 500, providerMessage: 'Scripted failure: the point database is unavailable' },
    });
  });

  it('succeeds on the retry after one 500 or one dropped connection', async () => {
    for (const fault of [{ type: 'server_error' }, { type: 'drop' }]) {
      const { name, endpoint } = await aProvider();
      await scriptProviderFaults(name, [fault]);
      expect((await client()(endpoint, SEARCH)).attempts).toBe(2);
      expect(await providerRequests(name)).toHaveLength(2);
    }
  });
});

describe('SSRF guard', () => {
  let server: Server;
  let port: number;
  let hits = 0;
  beforeAll(async () => {
    // A listener on loopback standing in for an internal service an attacker would like to reach.
    server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"data":[]}');
    });
    // Counted per TCP connection: a refused target must not even be connected to.
    server.on('connection', () => (hits += 1));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => new Promise<void>((resolve) => server.close(() => resolve())));

  const resolver =
    (table: Record<string, string[]>): Resolver =>
    async (hostname) =>
      (table[hostname] ?? []).map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

  it.each([
    ['a name resolving to 127.0.0.1', 'https://pickup.localtest.me', { 'pickup.localtest.me': ['127.0.0.1'] }],
    [
      'a name resolving to a private and a public address',
      'https://mixed.example.test',
      { 'mixed.example.test': ['93.184.215.14', '127.0.0.1'] },
    ],
    ['a name resolving to IPv6 loopback', 'https://six.example.test', { 'six.example.test': ['::1'] }],
    ['localhost through the system resolver', 'https://localhost', null],
  ])('refuses %s before connecting', async (_name, base, table) => {
    const before = hits;
    const call = client(table ? resolver(table) : undefined)({ url: `${base}:${port}/search`, headers: [] }, SEARCH);
    await expect(call).rejects.toMatchObject({ kind: 'blocked_target', details: { attempts: 1 } });
    await expect(call).rejects.toThrow(/not a public address|does not resolve/);
    expect(hits).toBe(before);
  });

  it.each([
    ['plain HTTP', `http://pickup.example.test/search`],
    ['a literal loopback address', 'https://127.0.0.1/search'],
    ['the cloud metadata address', 'https://169.254.169.254/latest'],
    ['a private address', 'https://10.1.2.3/search'],
    ['a loopback port of the sandbox host that is not the sandbox', `http://127.0.0.1:${1}/x`],
  ])('refuses %s without resolving anything', async (_name, url) => {
    let resolved = false;
    const call = client(async () => {
      resolved = true;
      return [{ address: '93.184.215.14', family: 4 }];
    })({ url, headers: [] }, SEARCH);
    await expect(call).rejects.toMatchObject({ kind: 'blocked_target', details: { attempts: 0 } });
    expect(resolved).toBe(false);
  });

  it('reaches the sandbox only because its origin is trusted outside production', async () => {
    const { endpoint } = await aProvider();
    expect((await client()(endpoint, SEARCH)).status).toBe(200);
    await expect(client(undefined, [])(endpoint, SEARCH)).rejects.toMatchObject({ kind: 'blocked_target' });
  });
});

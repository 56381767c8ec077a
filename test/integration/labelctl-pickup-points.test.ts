import { PickupPointProvider } from '../../src/db/entities/pickup-point-provider';
import { addProvider } from '../../src/pickup-points/providers-repository';
import { randomToken } from '../../src/ids';
import {
  aPlatformOrder,
  aProviderName,
  configureProvider,
  providerRequests,
  providerUrl,
  scriptProviderFaults,
  storeDomain,
} from '../helpers/pickup';
import { labelctl, labelctlJson as json } from '../helpers/labelctl';
import { aStoreWithKey } from '../helpers/stores';
import { startTestApp, type TestApp } from '../helpers/test-app';

const verifyArgs = ['--lat', '50.0755', '--lng', '14.4378', '--country', 'CZ'];

/** `pickup-points provider add <domain> --code shops --name Shops --url <sandbox provider> --header <header>`. */
const addShops = (domain: string, sandboxName: string, header: string) =>
  json(
    'pickup-points',
    'provider',
    'add',
    domain,
    '--code',
    'shops',
    '--name',
    'Shops',
    '--url',
    providerUrl(sandboxName),
    '--header',
    header,
  );

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => app.close());

describe('labelctl pickup-points', () => {
  it('adds, lists, updates and removes a provider; header values are stored sealed and never printed in full', async () => {
    const store = await aStoreWithKey(app.orm);
    const domain = await storeDomain(app.orm, store.storeId);
    const name = aProviderName();
    const secret = `s3cret-${randomToken(20)}`;
    await configureProvider(name, { 'X-Provider-Key': secret });

    const added = await json(
      'pickup-points',
      'provider',
      'add',
      domain,
      '--code',
      'shops',
      '--name',
      'Our shops',
      '--url',
      providerUrl(name),
      '--header',
      `X-Provider-Key: ${secret}`,
      '--enabled',
      'false',
    );
    expect(added).toMatchObject({ code: 'shops', network: 'custom:shops', enabled: false });
    expect(added.headers).toEqual([{ name: 'X-Provider-Key', value: `••••${secret.slice(-4)}` }]);

    const stored = await app.orm.em.fork().findOneOrFail(PickupPointProvider, { storeId: store.storeId });
    expect(stored.headersSealed).not.toContain(secret);

    const listed = await labelctl('pickup-points', 'provider', 'list', domain);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain('X-Provider-Key: ••••');
    expect(listed.stdout).not.toContain(secret);
    const listedJson = await json('pickup-points', 'provider', 'list', domain);
    expect(JSON.stringify(listedJson)).not.toContain(secret);

    // A disabled provider is not searched for merchants, but verify works.
    const order = await aPlatformOrder(domain);
    const before = await app.request('GET', `/v1/orders/${order.id}/pickup-points`, { headers: store.auth });
    expect(before.body.sources).toEqual([]);
    const verified = await json('pickup-points', 'verify', domain, ...verifyArgs);
    expect(verified.shown.map((p: { id: string }) => p.id)).toContain('shop-praha-1');
    expect((await providerRequests(name)).at(-1)!.headers['x-provider-key']).toBe(secret);

    const updated = await json(
      'pickup-points',
      'provider',
      'update',
      domain,
      'shops',
      '--enabled',
      'true',
      '--name',
      'Our own shops',
      '--header',
      'X-Tenant: eu-1',
    );
    expect(updated).toMatchObject({ name: 'Our own shops', enabled: true });
    expect(updated.headers.map((h: { name: string }) => h.name)).toEqual(['X-Provider-Key', 'X-Tenant']);
    const after = await app.request('GET', `/v1/orders/${order.id}/pickup-points`, { headers: store.auth });
    expect(after.body.sources).toEqual([
      expect.objectContaining({
        carrier: { code: 'custom:shops', name: 'Our own shops', account_id: null },
        status: 'ok',
      }),
    ]);
    expect(after.text).not.toContain(secret);
    expect((await providerRequests(name)).at(-1)!.headers['x-tenant']).toBe('eu-1');

    const removedHeader = await json(
      'pickup-points',
      'provider',
      'update',
      domain,
      'shops',
      '--remove-header',
      'x-tenant',
    );
    expect(removedHeader.headers.map((h: { name: string }) => h.name)).toEqual(['X-Provider-Key']);

    expect(await json('pickup-points', 'provider', 'remove', domain, 'shops')).toEqual({
      code: 'shops',
      removed: true,
    });
    expect(await json('pickup-points', 'provider', 'list', domain)).toEqual([]);
  });

  it('verify prints what the service would show and each dropped item with its reason', async () => {
    const store = await aStoreWithKey(app.orm);
    const domain = await storeDomain(app.orm, store.storeId);
    const name = aProviderName();
    await addShops(domain, name, 'X-Provider-Key: sandbox-provider-key');

    await scriptProviderFaults(name, [{ type: 'malformed_items' }]);
    const malformed = await json('pickup-points', 'verify', domain, ...verifyArgs);
    expect(malformed.request).toEqual({ latitude: 50.0755, longitude: 14.4378, countryCode: 'CZ', shop: domain });
    expect(malformed.shown.map((p: { id: string }) => p.id)).toEqual(['gen-1', 'gen-4', 'gen-5', 'gen-6', 'gen-9']);
    expect(malformed.shown[0]).toMatchObject({
      carrier: { code: 'custom:shops' },
      opening_hours: { monday: [{ opens: '08:00', closes: '16:00' }] },
    });
    expect(malformed.dropped.map((d: { index: number; problems: string[] }) => [d.index, d.problems[0]])).toEqual([
      [1, 'street: required'],
      [2, expect.stringMatching(/^country: must be an ISO 3166-1 alpha-2 code.*"Czechia"/)],
      [6, expect.stringMatching(/^latitude: /)],
      [7, 'id: required'],
      [9, 'id: duplicate of item 0'],
    ]);
    // Unusable optional fields are left out of points that are shown.
    expect(
      malformed.dropped_fields.map((d: { index: number; field: string; problem: string }) => [
        d.index,
        d.field,
        d.problem,
      ]),
    ).toEqual([
      [3, 'pin', expect.stringMatching(/^pin: must be an http\(s\) URL/)],
      [4, 'openingHours', expect.stringMatching(/^openingHours\.monday: "8-17" is not a range/)],
      [5, 'openingHours', expect.stringMatching(/^openingHours\.funday: unknown key "funday"/)],
    ]);

    await scriptProviderFaults(name, [{ type: 'malformed_items' }]);
    const text = await labelctl('pickup-points', 'verify', domain, ...verifyArgs);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('10 items received, 5 shown, 5 dropped');
    expect(text.stdout).toMatch(/dropped item 1 \(gen-2\): street: required/);
    expect(text.stdout).toMatch(/left out of item 3 \(gen-4\): pin: must be an http\(s\) URL/);
    expect(text.stdout).toMatch(/1\. gen-1 .* mon 08:00-16:00/);

    await scriptProviderFaults(name, [{ type: 'many_items' }]);
    const many = await json('pickup-points', 'verify', domain, ...verifyArgs);
    expect({ received: many.received, shown: many.shown.length, ignored: many.ignored_over_limit }).toEqual({
      received: 80,
      shown: 50,
      ignored: 30,
    });

    await scriptProviderFaults(name, [{ type: 'unsorted' }]);
    const unsorted = await labelctl('pickup-points', 'verify', domain, ...verifyArgs);
    expect(unsorted.stdout).toMatch(/not nearest first: shown item 2 is 0\.\d km away, after one 1\.\d km away/);
  });

  it('verify reports the provider failure with its own message, exit code 2', async () => {
    const store = await aStoreWithKey(app.orm);
    const domain = await storeDomain(app.orm, store.storeId);
    const name = aProviderName();
    await addShops(domain, name, 'X-Provider-Key: wrong-key');
    const unauthorised = await labelctl('pickup-points', 'verify', domain, ...verifyArgs);
    expect(unauthorised.code).toBe(2);
    expect(unauthorised.stderr).toMatch(
      /\[http_error\].*HTTP 401.*provider says: unknown caller: X-Provider-Key is missing or wrong/,
    );

    await json(
      'pickup-points',
      'provider',
      'update',
      domain,
      'shops',
      '--header',
      'X-Provider-Key: sandbox-provider-key',
    );
    await scriptProviderFaults(name, [{ type: 'server_error', times: 2 }]);
    const failing = await labelctl('pickup-points', 'verify', domain, ...verifyArgs);
    expect(failing.code).toBe(2);
    expect(failing.stderr).toMatch(
      /\[http_error\] after 2 attempt\(s\).*HTTP 500.*Scripted failure: the point database is unavailable/,
    );
  });

  it('lists a provider whose headers no longer open, and update --header sets them again', async () => {
    const store = await aStoreWithKey(app.orm);
    const domain = await storeDomain(app.orm, store.storeId);
    const name = aProviderName();
    const headers = [{ name: 'X-Provider-Key', value: 'sandbox-provider-key' }];
    // Sealed under another SETTINGS_ENCRYPTION_KEY than the one labelctl runs with.
    await addProvider(
      app.orm.em.fork(),
      Buffer.alloc(32, 9),
      { storeId: store.storeId, code: 'shops', name: 'Shops', url: providerUrl(name), headers },
      new Date(),
    );
    const listed = await labelctl('pickup-points', 'provider', 'list', domain);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain('unreadable with this SETTINGS_ENCRYPTION_KEY');
    const updated = await json(
      'pickup-points',
      'provider',
      'update',
      domain,
      'shops',
      '--header',
      'X-Provider-Key: sandbox-provider-key',
    );
    expect(updated.headers).toEqual([{ name: 'X-Provider-Key', value: '••••-key' }]);
    expect((await json('pickup-points', 'verify', domain, ...verifyArgs)).shown.length).toBeGreaterThan(0);
  });

  it('refuses unsafe settings, and verify shows the SSRF guard at work', async () => {
    const store = await aStoreWithKey(app.orm);
    const domain = await storeDomain(app.orm, store.storeId);
    const add = (code: string, url: string, ...rest: string[]) =>
      labelctl('pickup-points', 'provider', 'add', domain, '--code', code, '--name', 'X', '--url', url, ...rest);
    // Each rule has its unit test (test/unit/pickup-provider.test.ts); these prove the CLI applies them.
    for (const [args, message] of [
      [['shops', 'http://pickup.example.com/search'], /HTTPS/],
      [['shops', 'https://169.254.169.254/latest'], /not a public address/],
      [['shops', 'https://pickup.example.com/', '--header', 'X-Origin-Service: spoof'], /set by the service/],
    ] as const) {
      const result = await add(...(args as unknown as [string, string, ...string[]]));
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(message);
    }
    // A name is only checked when it is resolved, at every call: localhost resolves to a loopback address.
    expect((await add('local', 'https://localhost:8443/search')).code).toBe(0);
    const blocked = await labelctl('pickup-points', 'verify', domain, ...verifyArgs);
    expect(blocked.code).toBe(2);
    expect(blocked.stderr).toMatch(
      /\[blocked_target\].*localhost resolves to (127\.0\.0\.1|::1), which is not a public address/,
    );
    const duplicate = await add('local', 'https://pickup.example.com/');
    expect(duplicate.stderr).toMatch(/already has a provider local/);
  });
});

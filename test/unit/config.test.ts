import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig, SERVICE_VARIABLES } from '../../src/config';
import { apiShape } from '../../src/config/api';
import { coreShape } from '../../src/config/core';
import { creationShape } from '../../src/config/creation';
import { integrationsShape } from '../../src/config/integrations';
import { packetaFeedShape } from '../../src/config/packeta-feed';
import { loadSandboxConfig, sandboxShape } from '../../src/config/sandbox';
import { temporalShape } from '../../src/config/temporal';
import { tracingShape } from '../../src/config/tracing';
import { workerShape } from '../../src/config/worker';

const production = {
  NODE_ENV: 'production',
  CURSOR_SECRET: 'a-secret-of-this-deployment',
  SETTINGS_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
};

describe('the configuration, by process over a shared core', () => {
  const parts = {
    coreShape,
    temporalShape,
    tracingShape,
    apiShape,
    workerShape,
    creationShape,
    integrationsShape,
    packetaFeedShape,
  };

  it('gives every variable to one part only (a second owner would silently win the merge)', () => {
    const owners = new Map<string, string[]>();
    for (const [part, shape] of Object.entries(parts))
      for (const name of Object.keys(shape)) owners.set(name, [...(owners.get(name) ?? []), part]);
    expect([...owners].filter(([, of]) => of.length > 1)).toEqual([]);
    expect([...owners.keys()].sort()).toEqual([...SERVICE_VARIABLES].sort());
  });

  it('reads what .env.example documents, and nothing it does not but the few set only by tooling or tests', () => {
    const example = readFileSync(join(__dirname, '..', '..', '.env.example'), 'utf8');
    const documented = new Set([...example.matchAll(/^#? ?([A-Z][A-Z0-9_]*)=/gm)].map((m) => m[1]!));
    // Read by the Temporal CLI finder and the OpenTelemetry SDK themselves, not by the service's configuration.
    expect([...documented].filter((name) => !SERVICE_VARIABLES.includes(name)).sort()).toEqual([
      'OTEL_EXPORTER_OTLP_HEADERS',
      'TEMPORAL_CLI_PATH',
    ]);
    expect(SERVICE_VARIABLES.filter((name) => !documented.has(name)).sort()).toEqual([
      'MAX_BODY_BYTES',
      'NODE_ENV',
      'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL',
    ]);
  });

  it('uses the spec values by default, frozen', () => {
    const config = loadConfig({});
    expect(config.requestLog.retentionMs).toBe(90 * 86_400_000);
    expect(config.maxBodyBytes).toBe(262_144);
    expect(config.port).toBe(3000);
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('lists every bad variable in one message, whichever part reads it', () => {
    expect(() => loadConfig({ PORT: 'x', REQUEST_LOG_RETENTION: 'forever', CARRIER_TIMEOUT: 'soon' })).toThrow(
      /invalid configuration:\n {2}PORT[\s\S]*REQUEST_LOG_RETENTION[\s\S]*CARRIER_TIMEOUT/,
    );
  });
});

describe('the shared core', () => {
  it('refuses the pretty console in production', () => {
    expect(() => loadConfig({ ...production, LOG_FORMAT: 'pretty' })).toThrow(/LOG_FORMAT: pretty is for people/);
    expect(loadConfig({ LOG_FORMAT: 'pretty' }).log).toEqual({ format: 'pretty', requests: 'all' });
  });
});

describe("the API's part", () => {
  it("refuses production without a cursor secret of its own, the examples' placeholders included", () => {
    const key = { SETTINGS_ENCRYPTION_KEY: production.SETTINGS_ENCRYPTION_KEY };
    expect(() => loadConfig({ NODE_ENV: 'production', ...key })).toThrow(/CURSOR_SECRET/);
    for (const placeholder of ['change-me-to-a-long-random-value', 'development-only-cursor-secret'])
      expect(() => loadConfig({ NODE_ENV: 'production', CURSOR_SECRET: placeholder, ...key })).toThrow(/CURSOR_SECRET/);
    expect(loadConfig(production).env).toBe('production');
  });

  it('trusts a proxy only when told to, and keeps in-flight idempotency leases short', () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: 'true' }).trustProxy).toBe(true);
    expect(loadConfig({}).idempotencyLeaseMs).toBe(30_000);
  });
});

describe("the integrations' part", () => {
  it('takes LOCAL_OUTBOUND_ORIGINS outside production and refuses to start with it in production', () => {
    expect(loadConfig({}).localOutboundOrigins).toEqual([]);
    expect(
      loadConfig({ LOCAL_OUTBOUND_ORIGINS: 'http://127.0.0.1:8080,http://localhost:9000/' }).localOutboundOrigins,
    ).toEqual(['http://127.0.0.1:8080', 'http://localhost:9000']);
    expect(() => loadConfig({ LOCAL_OUTBOUND_ORIGINS: 'http://10.0.0.7:8080' })).toThrow(
      /LOCAL_OUTBOUND_ORIGINS: "http:\/\/10\.0\.0\.7:8080" is not on loopback/,
    );
    expect(loadConfig(production).localOutboundOrigins).toEqual([]);
    expect(() => loadConfig({ ...production, LOCAL_OUTBOUND_ORIGINS: 'http://127.0.0.1:8080' })).toThrow(
      /LOCAL_OUTBOUND_ORIGINS: not allowed in production/,
    );
    expect(loadConfig({ ...production, LOCAL_OUTBOUND_ORIGINS: '' }).env).toBe('production');
  });

  it('pins a Shopify Admin API version and takes an https endpoint in production only', () => {
    expect(loadConfig({}).shopify).toEqual({
      apiVersion: '2026-10',
      adminUrl: 'https://{shop}/admin/api/{version}/graphql.json',
      timeoutMs: 10_000,
    });
    expect(() => loadConfig({ SHOPIFY_API_VERSION: 'latest' })).toThrow(/SHOPIFY_API_VERSION/);
    expect(() => loadConfig({ SHOPIFY_ADMIN_URL: 'https://example.com/graphql' })).toThrow(/must contain \{shop\}/);
    const fake = 'http://127.0.0.1:4010/shopify/{shop}/admin/api/{version}/graphql.json';
    expect(loadConfig({ SHOPIFY_ADMIN_URL: fake }).shopify.adminUrl).toBe(fake);
    expect(() => loadConfig({ ...production, SHOPIFY_ADMIN_URL: fake })).toThrow(/SHOPIFY_ADMIN_URL: must be https/);
  });

  it('calls Packeta at its REST URL unless told; the fake over http only outside production', () => {
    expect(loadConfig({}).packetaApiUrl).toBe('https://www.zasilkovna.cz/api/rest');
    const fake = 'http://127.0.0.1:4010/packeta/api/rest';
    expect(loadConfig({ PACKETA_API_URL: fake }).packetaApiUrl).toBe(fake);
    expect(() => loadConfig({ ...production, PACKETA_API_URL: fake })).toThrow(/PACKETA_API_URL: must be https/);
  });

  it('refuses production without a settings key, and sends data exports from SUPPORT_EMAIL unless told otherwise', () => {
    expect(() => loadConfig({ NODE_ENV: 'production', CURSOR_SECRET: production.CURSOR_SECRET })).toThrow(
      /SETTINGS_ENCRYPTION_KEY: required in production/,
    );
    expect(loadConfig({ SUPPORT_EMAIL: 'help@shop.example' }).privacy.exportEmail).toBe('help@shop.example');
    expect(
      loadConfig({ SUPPORT_EMAIL: 'help@shop.example', PRIVACY_EXPORT_EMAIL: 'privacy@shop.example' }).privacy
        .exportEmail,
    ).toBe('privacy@shop.example');
  });
});

describe("Packeta's pickup-point feed", () => {
  it('imports nothing without an API key', () => {
    expect(loadConfig({}).packetaFeed).toBeNull();
  });

  it('reads the key, the base URL without its trailing slash, the interval and the share', () => {
    expect(
      loadConfig({
        PACKETA_FEED_API_KEY: 'abcdef0123456789',
        PACKETA_FEED_URL: 'http://127.0.0.1:4010/packeta-feed/v5/',
        PACKETA_FEED_INTERVAL: '15m',
        PACKETA_FEED_MAX_VANISHED_SHARE: '0.5',
      }).packetaFeed,
    ).toEqual({
      baseUrl: 'http://127.0.0.1:4010/packeta-feed/v5',
      apiKey: 'abcdef0123456789',
      timeoutMs: 300_000,
      intervalMs: 900_000,
      maxVanishedShare: 0.5,
    });
  });

  it.each([
    [{ PACKETA_FEED_API_KEY: 'abc/def' }, /PACKETA_FEED_API_KEY/],
    [{ PACKETA_FEED_API_KEY: 'abc', PACKETA_FEED_MAX_VANISHED_SHARE: '0' }, /PACKETA_FEED_MAX_VANISHED_SHARE/],
    [{ ...production, PACKETA_FEED_API_KEY: 'abc', PACKETA_FEED_URL: 'http://feed.example.com/v5' }, /https/],
  ])('refuses %j', (env, message) => {
    expect(() => loadConfig(env)).toThrow(message);
  });
});

describe("the sandbox's part", () => {
  it('listens on 4010 on loopback by default and logs as the other processes do', () => {
    expect(loadSandboxConfig({})).toEqual({
      port: 4010,
      host: '127.0.0.1',
      logLevel: 'info',
      log: { format: 'json', requests: 'all' },
    });
    expect(loadSandboxConfig({ SANDBOX_PORT: '0', LOG_FORMAT: 'pretty' })).toMatchObject({
      port: 0,
      log: { format: 'pretty' },
    });
  });

  it('refuses a bad variable with the same message as the service, and reads none of the service', () => {
    expect(() => loadSandboxConfig({ SANDBOX_PORT: 'x' })).toThrow(/invalid configuration:\n {2}SANDBOX_PORT/);
    expect(
      Object.keys(sandboxShape).filter((name) => SERVICE_VARIABLES.includes(name) && !name.startsWith('LOG_')),
    ).toEqual([]);
  });
});

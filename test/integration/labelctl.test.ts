import { randomToken } from '../../src/ids';
import { labelctl, labelctlJson as json } from '../helpers/labelctl';
import { aStoreWithKey } from '../helpers/stores';
import { startTestApp, type TestApp } from '../helpers/test-app';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => app.close());

describe('labelctl (spawned as a process)', () => {
  const domain = `cli-${randomToken(8).toLowerCase()}.myshopify.com`;

  it('creates a store, opens its gates, and issues a key that works against the API once', async () => {
    const store = await json(
      'store',
      'create',
      '--name',
      'CLI store',
      '--domain',
      domain,
      '--email',
      'owner@example.com',
      '--subscription',
      'true',
    );
    expect(store).toMatchObject({ domain, app_installed: true, api_enabled: false, subscription_active: true });

    const key = await json('key', 'create', domain, '--name', 'warehouse', '--scope', 'labels:print');
    expect(key.secret).toMatch(/^sla_live_/);
    expect(key.scopes).toContain('labels:print');
    const auth = { authorization: `Bearer ${key.secret}` };
    expect((await app.request('GET', '/v1/shop', { headers: auth })).body.error.code).toBe('access_required');

    const gated = await json('store', 'gates', store.id, '--api-enabled', 'true', '--write-access', 'true');
    expect(gated).toMatchObject({ api_enabled: true, write_access: true });
    expect((await app.request('GET', '/v1/shop', { headers: auth })).status).toBe(200);

    const listed = await json('key', 'list', domain);
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ id: key.id, active: true, ending_in: key.secret.slice(-4) });
    expect(JSON.stringify(listed)).not.toContain(key.secret);

    const rotated = await json('key', 'rotate', domain, key.id, '--overlap', 'none');
    expect(rotated.secret).toMatch(/^sla_live_/);
    expect(rotated.previous.id).toBe(key.id);
    expect((await app.request('GET', '/v1/shop', { headers: auth })).body.error.code).toBe('invalid_token');
    const fresh = { authorization: `Bearer ${rotated.secret}` };
    expect((await app.request('GET', '/v1/shop', { headers: fresh })).status).toBe(200);

    const revoked = await json('key', 'revoke', domain, rotated.id);
    expect(revoked.revoked_at).not.toBeNull();
    expect((await app.request('GET', '/v1/shop', { headers: fresh })).body.error.code).toBe('invalid_token');

    const outbox = await json('outbox', '--store', domain);
    expect(outbox.map((m: { kind: string }) => m.kind)).toEqual([
      'api_key.revoked',
      'api_key.rotated',
      'api_key.created',
    ]);
    expect(outbox[0]).toMatchObject({ to: 'owner@example.com', sent_at: null });
    for (const mail of outbox) expect(mail.body).not.toContain('sla_live_');

    const log = await json('log', domain);
    expect(log.map((r: { status: number }) => r.status)).toEqual([403, 200, 200]);
    expect(log[0]).toMatchObject({ endpoint: '/v1/shop', error_code: 'access_required', api_key_id: key.id });
  });

  it('limits: support sets, shows and resets a store’s limit, which the API applies at once', async () => {
    const shop = await aStoreWithKey(app.orm);
    const limitOf = async () => {
      const res = await app.request('GET', '/v1/shop', { headers: shop.auth });
      return [res.headers.get('x-ratelimit-bucket'), res.headers.get('x-ratelimit-limit')];
    };
    expect(await limitOf()).toEqual(['read_key_per_second', '10']);

    expect(await json('limits', 'set', shop.domain, 'read_key_per_second', '25')).toEqual({
      store_id: shop.storeId,
      bucket: 'read_key_per_second',
      limit: 25,
    });
    expect(await limitOf()).toEqual(['read_key_per_second', '25']);
    const shown = await json('limits', 'show', shop.storeId);
    expect(shown).toHaveLength(19);
    expect(shown.find((l: { bucket: string }) => l.bucket === 'read_key_per_second')).toEqual({
      bucket: 'read_key_per_second',
      scope: 'key',
      window_seconds: 1,
      default: 10,
      override: 25,
      limit: 25,
    });
    expect(shown.find((l: { bucket: string }) => l.bucket === 'write_queue_depth')).toEqual({
      bucket: 'write_queue_depth',
      scope: 'shop',
      window_seconds: null,
      default: 100,
      override: null,
      limit: 100,
    });

    expect(await json('limits', 'reset', shop.domain, 'read_key_per_second')).toMatchObject({ had_override: true });
    expect(await limitOf()).toEqual(['read_key_per_second', '10']);
    const text = await labelctl('limits', 'show', shop.domain);
    expect(text.stdout).toMatch(/^bucket\s+scope\s+window_seconds\s+default\s+override\s+limit$/m);
    expect(text.stdout).toMatch(/^create_new_daily\s+shop\s+86400\s+50\s+50$/m);
  });

  it('prints one clear line and exits 2 on errors', async () => {
    for (const args of [
      ['limits', 'set', domain, 'reads_per_key_second', '5'],
      ['limits', 'set', domain, 'shopify_budget', '5'],
      ['limits', 'reset', domain, 'render_concurrency'],
      ['limits', 'set', domain, 'read_key_per_second', '-1'],
      ['limits', 'set', domain, 'read_key_per_second', 'many'],
      ['limits', 'reset', 'no-such-store.myshopify.com', 'read_key_per_second'],
      ['key', 'create', 'no-such-store.myshopify.com', '--name', 'x'],
      ['key', 'create', domain, '--name', 'x', '--scope', 'label_creations:resolve'],
      ['store', 'gates', domain, '--api-enabled', 'maybe'],
      ['store', 'gates', domain],
      ['key', 'rotate', domain, 'ak_missing'],
    ]) {
      const result = await labelctl(...args);
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr.trim().split('\n')[0]).toMatch(/^(labelctl: |error: )/);
    }
  });
});

import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadFixture } from '../../src/fixtures/load-fixture';
import { FixtureError } from '../../src/fixtures/schema';
import { randomToken } from '../../src/ids';
import { composeAdapters } from '../../src/adapters';
import { startTestApp, type TestApp } from '../helpers/test-app';

const demo = JSON.parse(
  readFileSync(join(__dirname, '..', '..', 'src', 'sandbox', 'fixtures', 'demo-store.json'), 'utf8'),
);

/** The demo fixture under a store, IDs and key of the test's own, so tests never share rows. */
function uniqueFixture() {
  const suffix = randomToken(8);
  const text = JSON.stringify(demo)
    .replace(/demo-store\.myshopify\.com/g, `fixture-${suffix.toLowerCase()}.myshopify.com`)
    .replace(/"(lbl|ca|lcr)_demo_/g, `"$1_${suffix}_`);
  const fixture = JSON.parse(text);
  const secret = `sla_live_${randomToken(40)}`;
  fixture.api_keys = [{ name: 'fixture key', secret, scopes: ['labels:print', 'labels:write'] }];
  return { fixture, secret, suffix };
}

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => app.close());

const deps = () => ({
  orm: app.orm,
  now: new Date(),
  sandboxUrl: app.config.sandboxUrl,
  carrierFor: composeAdapters(app.config, app.orm).carrierFor,
});

async function snapshot(storeId: string) {
  const conn = app.orm.em.fork();
  const q = (sql: string) => conn.execute<Record<string, unknown>[]>(sql, [storeId]);
  return {
    stores: await q('select * from stores where id = ?'),
    keys: await q('select id, name, scopes, secret_hash from api_keys where store_id = ? order by id'),
    accounts: await q('select * from carrier_accounts where store_id = ? order by id'),
    rules: await q(
      'select id, priority, conditions, carrier_account_id, service_code from carrier_rules where store_id = ? order by priority',
    ),
    labels: await q('select * from labels where store_id = ? order by id'),
    coverage: await q(
      'select * from label_fulfillment_orders where store_id = ? order by label_id, fulfillment_order_gid',
    ),
    documents: await q(
      'select d.label_id, d.page_size, d.page_count, d.byte_size, d.not_isolated from label_documents d join labels l on l.id = d.label_id where l.store_id = ? order by d.label_id',
    ),
  };
}

describe('fixtures', () => {
  it('loads a store with every label state, served by the API as the spec derives it', async () => {
    const { fixture, secret, suffix } = uniqueFixture();
    const result = await loadFixture(deps(), fixture);
    expect(result.created).toEqual({ api_keys: 1, carrier_accounts: 5, labels: 18 });
    const auth = { authorization: `Bearer ${secret}` };
    const labels: any[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await app.request('GET', `/v1/labels?limit=250${cursor ? `&cursor=${cursor}` : ''}`, {
        headers: auth,
      });
      labels.push(...page.body.data);
      cursor = page.body.has_more ? page.body.next_cursor : null;
    } while (cursor);
    const byId = (name: string) => labels.find((l) => l.id === `lbl_${suffix}_${name}`);
    expect(labels).toHaveLength(18);
    expect(new Set(labels.map((l) => l.document.availability))).toEqual(
      new Set([
        'available',
        'pending',
        'expired',
        'not_applicable',
        'not_isolated',
        'carrier_excluded',
        'not_reissuable',
      ]),
    );
    expect(new Set(labels.map((l) => l.status))).toEqual(new Set(['pending', 'ready', 'failed']));
    expect(byId('import_rejected_b')).toMatchObject({
      status: 'failed',
      failure_reason: 'carrier_import_rejected',
      current: false,
    });
    expect(byId('not_finalized_d')).toMatchObject({ status: 'failed', failure_reason: 'not_finalized' });
    expect(byId('superseded_c')).toMatchObject({ current: false, superseded_by: [`lbl_${suffix}_current_c`] });
    expect(byId('current_c')).toMatchObject({
      current: true,
      supersedes: [`lbl_${suffix}_superseded_c`],
      current_set: 'ok',
    });
    expect(byId('ambiguous_1').current_set).toBe('ambiguous');
    expect(byId('ambiguous_2')).toMatchObject({
      current: true,
      current_set: 'ambiguous',
      source: null,
      updated_at: null,
    });
    expect(byId('ambiguous_1')).toMatchObject({ current: true });
    expect(byId('legacy_no_source')).toMatchObject({ fulfillment_orders: [], source: null, updated_at: null });
    expect(byId('return_claim_a')).toMatchObject({
      direction: 'return',
      kind: 'claim',
      current: false,
      document: { availability: 'not_applicable' },
    });
    expect(byId('collection_d')).toMatchObject({ kind: 'collection', document: { availability: 'not_applicable' } });
    expect(byId('rendered_e').document).toMatchObject({ availability: 'available', source: 'carrier' });
    expect(byId('ready_a')).toMatchObject({
      extras: { consign_password: '4711' },
      cod: { amount: '499.00', currency: 'CZK', source: 'payment_gateway' },
    });

    // The documents are real PDFs: stored ones, a two-page service, and a render at the sandbox carrier.
    for (const name of ['ready_a', 'current_c', 'rendered_e']) {
      const res = await app.request('GET', `/v1/labels/lbl_${suffix}_${name}/document`, { headers: auth });
      expect(res.status).toBe(200);
    }
    const order = await app.request('GET', '/v1/orders/1007/label-document', { headers: auth });
    expect(order.body.error.code).toBe('ambiguous_current_set');
  });

  it('loading twice changes nothing', async () => {
    const { fixture } = uniqueFixture();
    const first = await loadFixture(deps(), fixture);
    const before = await snapshot(first.store_id);
    const second = await loadFixture(deps(), fixture);
    expect(second.store_id).toBe(first.store_id);
    expect(second.created).toEqual({ api_keys: 0, carrier_accounts: 0, labels: 0 });
    expect(second.unchanged).toEqual({ api_keys: 1, carrier_accounts: 5, labels: 18 });
    expect(await snapshot(first.store_id)).toEqual(before);
  });

  it('refuses a bad fixture whole, naming the path of each problem', async () => {
    const { fixture } = uniqueFixture();
    fixture.labels[0].status = 'lost';
    fixture.labels[1].carrier = 'carrier_z';
    fixture.carrier_accounts[0].currency = 'KORUNA';
    fixture.unexpected = true;
    const error = await loadFixture(deps(), fixture).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FixtureError);
    const problems = (error as FixtureError).problems.join('\n');
    expect(problems).toMatch(/labels\[0\]\.status/);
    expect(problems).toMatch(/labels\[1\]\.carrier/);
    expect(problems).toMatch(/carrier_accounts\[0\]\.currency/);
    expect(problems).toMatch(/unexpected/);
    const domain = fixture.store.domain;
    const stores = await app.orm.em.fork().execute('select id from stores where domain = ?', [domain]);
    expect(stores).toHaveLength(0);
  });

  it('refuses references to missing orders, fulfillment orders and accounts', async () => {
    const { fixture } = uniqueFixture();
    fixture.labels[0].order_id = '999999';
    fixture.labels[1].fulfillment_order_ids = ['424242'];
    fixture.rules[0].carrier_account_id = 'ca_missing';
    const error = (await loadFixture(deps(), fixture).catch((e: unknown) => e)) as FixtureError;
    expect(error.problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^rules\[0\]\.carrier_account_id: no carrier account ca_missing/),
        expect.stringMatching(/^labels\[0\]\.order_id: no order 999999/),
        expect.stringMatching(/^labels\[1\]\.fulfillment_order_ids\[0\]: order 1002 has no fulfillment order 424242/),
      ]),
    );
  });

  it('labelctl seed loads a file and reports each problem of a bad one with exit code 2', async () => {
    const { fixture } = uniqueFixture();
    const dir = mkdtempSync(join(tmpdir(), 'fixture-'));
    const good = join(dir, 'good.json');
    writeFileSync(good, JSON.stringify(fixture));
    const runWith = (env: NodeJS.ProcessEnv, ...args: string[]) =>
      new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, [join(__dirname, '..', '..', 'bin', 'labelctl.js'), ...args], {
          env: { ...process.env, ...env },
        });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
        child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
        child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
      });
    const run = (...args: string[]) => runWith({}, ...args);
    const production = {
      NODE_ENV: 'production',
      // Production talks to Shopify and Packeta themselves: not the run's fakes (their http:// URLs are refused there).
      SHOPIFY_ADMIN_URL: undefined,
      PACKETA_API_URL: undefined,
      CURSOR_SECRET: 'a-real-secret-of-this-deployment',
      SETTINGS_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
    };
    const guarded = await runWith(production, 'seed', good);
    expect(guarded.code).toBe(2);
    expect(guarded.stderr).toMatch(/refusing to seed with NODE_ENV=production/);
    const loaded = await run('--json', 'seed', good);
    expect(loaded.code).toBe(0);
    expect(JSON.parse(loaded.stdout)).toMatchObject({ domain: fixture.store.domain, created: { labels: 18 } });
    const again = await runWith(production, '--json', 'seed', good, '--force');
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ created: { labels: 0, carrier_accounts: 0, api_keys: 0 } });

    fixture.labels[2].age = 'a while';
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify(fixture));
    const refused = await run('seed', bad);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/^labelctl: fixture refused \(1 problem\):\n {2}labels\[2\]\.age: /);
  });
});

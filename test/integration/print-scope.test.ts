import { createApiKey, rotateApiKey } from '../../src/access/api-keys';
import { LABELS_PRINT_SINCE } from '../../src/access/scopes';
import { Label } from '../../src/db/entities/label';
import { Migration20261130000000LabelsPrintForEarlierKeys } from '../../src/db/migrations/20261130000000-labels-print-for-earlier-keys';
import { expectError } from '../helpers/errors';
import { aCarrierAccount, aLabel, aPdf, aStoredDocument } from '../helpers/labels';
import { aStoreWithKey } from '../helpers/stores';
import { startTestApp, type TestApp } from '../helpers/test-app';

// Spec "Authentication": `labels:print` replaced `label_documents:read` on 20 October 2026, and marking printed moved to
// it from `labels:write`; earlier keys hold `labels:print`. Keys created since hold exactly what they were given.

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => app.close());

const DAY = 86_400_000;
const before = new Date(LABELS_PRINT_SINCE.getTime() - DAY);

/** A store with a printable label, and a key of `scopes` created at `createdAt` (now when not given). */
async function aKey(scopes: string[], createdAt?: Date) {
  const store = await aStoreWithKey(app.orm, { scopes: [] });
  const account = await aCarrierAccount(app.orm, store.storeId, { carrierCode: 'carrier_a' });
  const label = await aLabel(app.orm, store.storeId, {
    carrierCode: 'carrier_a',
    carrierAccountId: account.id,
    createdAt: new Date(Date.now() - 60_000),
  });
  await aStoredDocument(app.orm, label.id, { pdf: await aPdf() });
  const { key, secret } = await createApiKey(app.orm.em.fork(), {
    storeId: store.storeId,
    name: 'older integration',
    scopes,
    now: createdAt ?? new Date(),
  });
  return { storeId: store.storeId, keyId: key.id, label, auth: { authorization: `Bearer ${secret}` } };
}

const markPrinted = (labelId: string, auth: Record<string, string>, key: string) =>
  app.request('POST', `/v1/labels/${labelId}/printed`, { headers: { ...auth, 'idempotency-key': key } });

describe('labels:print for keys created before 20 October 2026', () => {
  it('a key created earlier with labels:write holds labels:print: it marks printed, downloads and GET /shop lists it', async () => {
    const { label, auth } = await aKey(['labels:write'], before);
    const shop = await app.request('GET', '/v1/shop', { headers: auth });
    expect(shop.body.api_key.scopes).toEqual([
      'shop:read',
      'labels:read',
      'carriers:read',
      'orders:read',
      'pickup_points:read',
      'labels:print',
      'labels:write',
    ]);
    const printed = await markPrinted(label.id, auth, 'early-writer-0001');
    expect(printed.status).toBe(200);
    expect(printed.body).toMatchObject({ id: label.id });
    expect((await app.orm.em.fork().findOneOrFail(Label, { id: label.id })).printedCount).toBe(1);
    const pdf = await app.request('GET', `/v1/labels/${label.id}/document`, { headers: auth });
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
  });

  it('a key created earlier with label_documents:read holds labels:print and marks printed', async () => {
    const { label, auth } = await aKey(['label_documents:read'], before);
    const shop = await app.request('GET', '/v1/shop', { headers: auth });
    expect(shop.body.api_key.scopes).toContain('labels:print');
    expect(shop.body.api_key.scopes).not.toContain('label_documents:read');
    expect((await markPrinted(label.id, auth, 'early-docs-0001')).status).toBe(200);
  });

  it('a key created since with labels:write holds exactly that: marking printed is 403 insufficient_scope', async () => {
    const { label, auth } = await aKey(['labels:write'], LABELS_PRINT_SINCE);
    const shop = await app.request('GET', '/v1/shop', { headers: auth });
    expect(shop.body.api_key.scopes).not.toContain('labels:print');
    expect(shop.body.api_key.scopes).toContain('labels:write');
    expectError(await markPrinted(label.id, auth, 'late-writer-0001'), 403, 'insufficient_scope', {
      required_scope: 'labels:print',
      retry: 'no',
      next_action: 'none',
    });
    expectError(
      await app.request('GET', `/v1/labels/${label.id}/document`, { headers: auth }),
      403,
      'insufficient_scope',
      { required_scope: 'labels:print', retry: 'no', next_action: 'none' },
    );
  });

  it('rotating an earlier key keeps labels:print on the new key', async () => {
    const { storeId, keyId, label } = await aKey(['labels:write'], before);
    const rotated = await rotateApiKey(app.orm.em.fork(), { storeId, keyId, overlap: 'none', now: new Date() });
    const auth = { authorization: `Bearer ${rotated.secret}` };
    expect((await app.request('GET', '/v1/shop', { headers: auth })).body.api_key.scopes).toContain('labels:print');
    expect((await markPrinted(label.id, auth, 'rotated-early-0001')).status).toBe(200);
  });

  it('the migration gives labels:print to earlier keys stored without it, and to no other key', async () => {
    const earlyWriter = await aKey(['labels:write'], before);
    const earlyDocs = await aKey(['label_documents:read'], before);
    const earlyAssign = await aKey(['pickup_points:assign'], before);
    const lateWriter = await aKey(['labels:write']);
    // As a version before this rule stored them: the granted scopes only (the retired name kept as given).
    const em = app.orm.em.fork();
    const stored: Array<[string, string[]]> = [
      [earlyWriter.keyId, ['labels:write']],
      [earlyDocs.keyId, ['label_documents:read']],
      [earlyAssign.keyId, ['pickup_points:assign']],
      [lateWriter.keyId, ['labels:write']],
    ];
    for (const [id, scopes] of stored)
      await em.execute('update api_keys set scopes = ?::text[] where id = ?', [`{${scopes.join(',')}}`, id]);
    expectError(
      await markPrinted(earlyWriter.label.id, earlyWriter.auth, 'before-migration-1'),
      403,
      'insufficient_scope',
    );

    const migration = new Migration20261130000000LabelsPrintForEarlierKeys(app.orm.em.getDriver(), app.orm.config);
    await migration.up();
    // Twice: the step is idempotent. Its queries are plain SQL text.
    const queries = migration.getQueries().map((query) => query as string);
    for (const query of [...queries, ...queries]) await em.execute(query);

    const scopesOf = async (id: string) =>
      (await em.execute<Array<{ scopes: string[] }>>('select scopes from api_keys where id = ?', [id]))[0]!.scopes;
    expect(await scopesOf(earlyWriter.keyId)).toEqual(['labels:write', 'labels:print']);
    expect(await scopesOf(earlyDocs.keyId)).toEqual(['label_documents:read', 'labels:print']);
    expect(await scopesOf(earlyAssign.keyId)).toEqual(['pickup_points:assign']);
    expect(await scopesOf(lateWriter.keyId)).toEqual(['labels:write']);
    expect((await markPrinted(earlyWriter.label.id, earlyWriter.auth, 'after-migration-1')).status).toBe(200);
    expectError(
      await markPrinted(lateWriter.label.id, lateWriter.auth, 'after-migration-2'),
      403,
      'insufficient_scope',
    );
  });
});

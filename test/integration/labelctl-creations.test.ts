import { randomToken } from '../../src/ids';
import { KIND, LABEL_CREATION_ID, STORE_ID } from '../../workflows/search-attributes';
import { retentionWorkflowId } from '../../workflows/label-creation/contract';
import { aCarrierAAccount, anOrderOnPlatform, aRule } from '../helpers/creation';
import { labelctlJsonWith, labelctlReadLate, labelctlWith } from '../helpers/labelctl';
import { eventually, scriptFaults } from '../helpers/sandbox';
import { aStoreWithKey } from '../helpers/stores';
import { expectStatus } from '../helpers/status';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { receiverUrl, untilReceived } from '../helpers/webhooks';

/**
 * `labelctl creations list|show` over real creations (the API, the worker and the sandbox carrier), and the search
 * attributes of the webhook delivery and retention workflows read back through the Temporal client's describe().
 */

const UI = 'http://temporal-ui.example.test:8080';
// Each labelctl is a process of its own (a few seconds on a loaded machine), and these tests run a dozen.
jest.setTimeout(180_000);
let app: TestApp;
/** labelctl's environment: the API's URLs (as the app answers them) and a Web UI of its own. */
let cliEnv: Record<string, string>;
beforeAll(async () => {
  app = await startTestApp({ env: { RESOLVE_ALLOWED_AFTER: '1s' } });
  cliEnv = { PUBLIC_BASE_URL: app.baseUrl, TEMPORAL_UI_URL: `${UI}/` };
});
afterAll(async () => app.close());

const json = (...args: string[]) => labelctlJsonWith(cliEnv, ...args);

async function aShop() {
  const shop = await aStoreWithKey(app.orm);
  const account = await aCarrierAAccount(app.orm, shop.storeId);
  await aRule(app.orm, shop.storeId, { priority: 1, carrierAccountId: account.id, serviceCode: 'a_home' });
  return { shop, account };
}

type Shop = Awaited<ReturnType<typeof aShop>>['shop'];

async function create(shop: Shop, prefix: string) {
  const order = await anOrderOnPlatform(shop.domain);
  const key = `${prefix}-${order.orderId}`;
  const res = await app.request('POST', '/v1/labels', {
    headers: { ...shop.auth, 'Idempotency-Key': key, Prefer: 'wait=30' },
    body: { order_id: order.orderId },
  });
  return { order, key, res };
}

const AGE_UNITS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * An age column (`42s`, `17m`: whole units, rounded down) is right for a creation created at `createdAt` (the API's
 * whole seconds) when read by a labelctl that ran between `from` and `to`. The bounds come from the record and from
 * when the command ran, not from how fast the machine was: a loaded machine may print `1m`.
 */
function expectAgeSince(age: string, createdAt: string, from: number, to: number): void {
  const match = /^(\d+)([smhd])$/.exec(age);
  expect(match).not.toBeNull();
  const unit = AGE_UNITS[match![2]!]!;
  const [shownFrom, shownTo] = [Number(match![1]) * unit, (Number(match![1]) + 1) * unit];
  // The row's own instant has milliseconds the API's whole second drops: up to a second after `createdAt`.
  const [elapsedFrom, elapsedTo] = [from - Date.parse(createdAt) - 1_000, to - Date.parse(createdAt)];
  expect({ age, overlaps: shownFrom <= elapsedTo && elapsedFrom < shownTo }).toEqual({ age, overlaps: true });
}

/** The creation's workflow page in the Web UI (its latest run). */
const workflowPage = (workflowId: string) => `${UI}/namespaces/default/workflows/${encodeURIComponent(workflowId)}`;
/** The Web UI's list of the workflows of one creation, for a creation whose workflow ID a later one took. */
const creationRuns = (creationId: string) =>
  `${UI}/namespaces/default/workflows?query=${encodeURIComponent(`LabelCreationId="${creationId}"`)}`;

describe('labelctl creations', () => {
  it('lists and shows a created label: status, workflow ID, Web UI link, the creation object as the API serves it', async () => {
    const { shop } = await aShop();
    const { order, key, res } = await create(shop, 'cli-ok');
    expect(res.status).toBe(201);

    const before = Date.now();
    const listed = await json('creations', 'list', '--store', shop.domain);
    expectAgeSince(listed[0].age, res.body.created_at, before, Date.now());
    expect(listed).toEqual([
      {
        id: res.body.id,
        store_id: shop.storeId,
        status: 'succeeded',
        phase: null,
        order: order.name,
        error_code: null,
        idempotency_key: key,
        attention: null,
        created_at: res.body.created_at,
        age: listed[0].age,
        workflow_id: `label-creation/${shop.storeId}/${key}`,
        web_ui_url: workflowPage(`label-creation/${shop.storeId}/${key}`),
      },
    ]);
    // The workflow ID is the creation's workflow in Temporal.
    const described = await app.temporal.workflow.getHandle(listed[0].workflow_id).describe();
    expect(described.typedSearchAttributes.get(LABEL_CREATION_ID)).toBe(res.body.id);

    const shown = await json('creations', 'show', res.body.id);
    const served = await app.request('GET', `/v1/label-creations/${res.body.id}`, { headers: shop.auth });
    expect(shown).toMatchObject({
      id: res.body.id,
      workflow_id: listed[0].workflow_id,
      web_ui_url: workflowPage(listed[0].workflow_id),
    });
    expect(shown.label_creation).toEqual(served.body);

    const text = await labelctlWith(cliEnv, 'creations', 'show', res.body.id);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(`workflow:     ${listed[0].workflow_id}`);
    expect(text.stdout).toContain(`web ui:       ${workflowPage(listed[0].workflow_id)}`);
  });

  it('shows the attention of a creation the carrier left unclear, and finds it by status, order, key and age', async () => {
    const { shop, account } = await aShop();
    const done = await create(shop, 'cli-done');
    expect(done.res.status).toBe(201);
    await scriptFaults(account.id, [{ type: 'timeout_not_created', hold_ms: 5000 }]);
    const { order, key, res } = await create(shop, 'cli-unclear');
    expect(res.status).toBe(202);
    expect(res.body.status).toBe('needs_attention');

    const [found] = await json('creations', 'list', '--store', shop.storeId, '--status', 'needs_attention');
    expect(found).toMatchObject({
      id: res.body.id,
      status: 'needs_attention',
      attention: {
        reason: res.body.attention.reason,
        shipment_at_carrier: 'unknown',
        carrier: 'carrier_a',
        sent_at: res.body.attention.sent_at,
        resolve_allowed_at: res.body.attention.resolve_allowed_at,
      },
    });
    const ids = async (...filters: string[]) =>
      ((await json('creations', 'list', '--store', shop.domain, ...filters)) as Array<{ id: string }>).map((c) => c.id);
    expect(await ids()).toEqual([res.body.id, done.res.body.id]);
    expect(await ids('--order', order.orderId)).toEqual([res.body.id]);
    expect(await ids('--order', order.name)).toEqual([res.body.id]);
    expect(await ids('--key', key)).toEqual([res.body.id]);
    expect(await ids('--status', 'succeeded')).toEqual([done.res.body.id]);
    expect(await ids('--newer-than', '1h')).toEqual([res.body.id, done.res.body.id]);
    expect(await ids('--older-than', '1h')).toEqual([]);
    expect(await ids('--limit', '1')).toEqual([res.body.id]);
    // Every store's, newest first: this store's newest is first among what was just created.
    const everyStore = (await json('creations', 'list', '--limit', '1000')) as Array<{ id: string }>;
    expect(everyStore.map((c) => c.id)).toEqual(expect.arrayContaining([res.body.id, done.res.body.id]));

    const tableFrom = Date.now();
    const table = await labelctlWith(
      cliEnv,
      'creations',
      'list',
      '--store',
      shop.domain,
      '--status',
      'needs_attention',
    );
    const tableTo = Date.now();
    // The default table: the attention's reason, no links; every line within 100 characters.
    const lines = table.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^id\s+status\s+order\s+error_code\s+attention\s+age$/);
    expect(lines[1]).toMatch(
      new RegExp(`^${res.body.id}\\s+needs_attention\\s+${order.name}\\s+${res.body.attention.reason}\\s+\\d+[smhd]$`),
    );
    expectAgeSince(lines[1]!.split(/\s+/).pop()!, res.body.created_at, tableFrom, tableTo);
    expect(Math.max(...lines.map((line) => line.length))).toBeLessThanOrEqual(100);
    expect(table.stdout).not.toContain(UI);
    const wide = await labelctlWith(
      cliEnv,
      'creations',
      'list',
      '--store',
      shop.domain,
      '--status',
      'needs_attention',
      '--wide',
    );
    expect(wide.stdout).toContain(`${res.body.attention.reason} (shipment unknown)`);
    expect(wide.stdout).toContain(shop.storeId);
    expect(wide.stdout).toContain(workflowPage(found.workflow_id));
  });

  it('names the error code of a failed creation, and links a creation whose key a later one took to its own run', async () => {
    const { shop, account } = await aShop();
    const order = await anOrderOnPlatform(shop.domain);
    const key = `cli-again-${order.orderId}`;
    const send = () =>
      app.request('POST', '/v1/labels', {
        headers: { ...shop.auth, 'Idempotency-Key': key, Prefer: 'wait=30' },
        body: { order_id: order.orderId },
      });
    await scriptFaults(account.id, [{ type: 'reject', reason: 'postcode_invalid' }]);
    const refused = await send();
    expect(expectStatus(refused, 422).error.code).toBe('carrier_rejected');
    const failedId = refused.body.error.details.label_creation_id as string;
    // The same key again after a failed attempt: a new creation under the same workflow ID.
    const again = await send();
    expect(again.status).toBe(201);

    const listed = (await json('creations', 'list', '--store', shop.domain)) as Array<Record<string, unknown>>;
    const workflowId = `label-creation/${shop.storeId}/${key}`;
    expect(listed).toMatchObject([
      { id: again.body.id, status: 'succeeded', error_code: null, web_ui_url: workflowPage(workflowId) },
      { id: failedId, status: 'failed', error_code: 'carrier_rejected', web_ui_url: creationRuns(failedId) },
    ]);
    const table = await labelctlWith(cliEnv, 'creations', 'list', '--store', shop.domain);
    expect(table.stdout).toMatch(
      new RegExp(`${failedId}\\s+failed\\s+${order.name}\\s+carrier_rejected\\s+\\d+[smhd]\\b`),
    );
    const shown = await labelctlWith(cliEnv, 'creations', 'show', failedId);
    expect(shown.stdout).toContain('error:        carrier_rejected');
  });

  it('refuses what it cannot find or read with exit code 2 and one line', async () => {
    const missing = await labelctlWith(cliEnv, 'creations', 'show', 'lcr_doesnotexist');
    expect(missing).toMatchObject({ code: 2, stderr: 'labelctl: no label creation lcr_doesnotexist\n' });
    const badAge = await labelctlWith(cliEnv, 'creations', 'list', '--older-than', 'soon');
    expect(badAge.code).toBe(2);
    expect(badAge.stderr).toContain('not a duration');
    const badStatus = await labelctlWith(cliEnv, 'creations', 'list', '--status', 'stuck');
    expect(badStatus.code).toBe(2);
    const noUi = await labelctlJsonWith(
      {
        PUBLIC_BASE_URL: app.baseUrl,
        NODE_ENV: 'production',
        // Production talks to Shopify and Packeta themselves: not the run's fakes (their http:// URLs are refused there).
        SHOPIFY_ADMIN_URL: undefined,
        PACKETA_API_URL: undefined,
        LOCAL_OUTBOUND_ORIGINS: '',
        CURSOR_SECRET: randomToken(32),
        SETTINGS_ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64'),
      },
      'creations',
      'list',
      '--limit',
      '1',
    );
    expect(noUi[0].web_ui_url).toBeNull();
  });

  it('prints a listing far longer than a pipe holds whole (`labelctl --json creations list | jq`)', async () => {
    const { storeId } = await aStoreWithKey(app.orm);
    await app.orm.em.fork().execute(
      `insert into label_creations (id, store_id, status, idempotency_key, request_hash, order_gid, order_legacy_id,
         order_name, created_at, updated_at)
       select 'lcr_pipe' || ? || lpad(g::text, 4, '0'), ?, 'succeeded', 'key-pipe-' || g, 'h',
         'gid://shopify/Order/' || (9000 + g), (9000 + g)::text, '#' || (9000 + g), date_trunc('second', now()) - g * interval '1 second',
         date_trunc('second', now()) - g * interval '1 second'
         from generate_series(1, 1000) g`,
      [storeId.slice(-8), storeId],
    );
    // Read only once labelctl exits (or after 5 s, as it waits for its output to be taken).
    const listed = await labelctlReadLate(
      cliEnv,
      5_000,
      '--json',
      'creations',
      'list',
      '--store',
      storeId,
      '--limit',
      '1000',
    );
    expect(listed).toMatchObject({ code: 0, stderr: '' });
    // About 400 bytes a creation: several times the 64 KiB a pipe holds.
    expect(listed.stdout.length).toBeGreaterThan(5 * 65_536);
    const creations = JSON.parse(listed.stdout) as Array<{ id: string }>;
    expect(creations).toHaveLength(1000);
    expect(creations.at(-1)!.id).toBe(`lcr_pipe${storeId.slice(-8)}1000`);
  });
});

describe('search attributes of the webhook delivery and retention workflows', () => {
  it('a delivery carries its store and kind', async () => {
    const { shop } = await aShop();
    const receiver = `r-${randomToken(10)}`;
    await json('webhooks', 'add', shop.storeId, receiverUrl(receiver));
    expect((await create(shop, 'sa-webhook')).res.status).toBe(201);
    const [delivery] = await untilReceived(receiver, 1);
    const eventId = delivery!.headers['shipping-label-event-id']!;
    await json('webhooks', 'redeliver', eventId);
    const rows = await eventually(
      async () => {
        const found = await app.orm.em
          .fork()
          .execute<Array<{ workflow_id: string; kind: string }>>(
            'select workflow_id, kind from webhook_deliveries where store_id = ? order by created_at',
            [shop.storeId],
          );
        return found.length === 2 ? found : null;
      },
      100,
      100,
    );
    const kinds = await Promise.all(
      rows.map(async (row) => {
        const attributes = (await app.temporal.workflow.getHandle(row.workflow_id).describe()).typedSearchAttributes;
        return { kind: row.kind, store: attributes.get(STORE_ID), workflowKind: attributes.get(KIND) };
      }),
    );
    expect(kinds).toEqual([
      { kind: 'automatic', store: shop.storeId, workflowKind: 'webhook_delivery' },
      { kind: 'redelivery', store: shop.storeId, workflowKind: 'webhook_redelivery' },
    ]);
    // Found by the query an operator types.
    const query = `StoreId = '${shop.storeId}' AND Kind = 'webhook_redelivery'`;
    const listed = await eventually(
      async () => {
        const ids: string[] = [];
        for await (const execution of app.temporal.workflow.list({ query })) ids.push(execution.workflowId);
        return ids.length > 0 ? ids : null;
      },
      100,
      100,
    );
    expect(listed).toEqual([rows[1]!.workflow_id]);
  });

  it('the retention timer of an abandoned creation carries its store, creation and kind', async () => {
    const { shop, account } = await aShop();
    await scriptFaults(account.id, [{ type: 'timeout_not_created', hold_ms: 5000 }]);
    const { res } = await create(shop, 'sa-retention');
    expect(expectStatus(res, 202).status).toBe('needs_attention');
    // `shipment_exists` is accepted at once (only `not_created` waits for resolve_allowed_at): nothing to wait for.
    const resolved = await app.request('POST', `/v1/label-creations/${res.body.id}/resolve`, {
      headers: shop.auth,
      body: { outcome: 'shipment_exists' },
    });
    expect(expectStatus(resolved, 200).status).toBe('abandoned');
    const described = await eventually(
      async () => {
        try {
          return await app.temporal.workflow.getHandle(retentionWorkflowId(res.body.id)).describe();
        } catch {
          return null;
        }
      },
      100,
      100,
    );
    expect(described.typedSearchAttributes.get(STORE_ID)).toBe(shop.storeId);
    expect(described.typedSearchAttributes.get(LABEL_CREATION_ID)).toBe(res.body.id);
    expect(described.typedSearchAttributes.get(KIND)).toBe('abandoned_creation_retention');
    // `labelctl creations show` links the creation's own workflow page (its timer is label-creation-retention/<lcr_>).
    const shown = await json('creations', 'show', res.body.id);
    expect(shown).toMatchObject({ status: 'abandoned', web_ui_url: workflowPage(shown.workflow_id) });
  });
});

import { createApiKey } from '../../src/access/api-keys';
import { randomToken } from '../../src/ids';
import { aCarrierAAccount } from '../helpers/creation';
import { aLabel, aPlatformId, aStoredDocument } from '../helpers/labels';
import { control, eventually } from '../helpers/sandbox';
import { deployAppOnFake, install, shopifySends, type DeployedApp } from '../helpers/shopify-app';
import { startTestApp, type TestApp } from '../helpers/test-app';

/**
 * Every column docs/decisions/0708-personal-data.md names, filled with personal data, then Shopify's privacy webhooks
 * from the fake: `customers/redact` clears the customer's orders only (waiting for a creation still in flight),
 * `customers/data_request` exports them to the outbox, `shop/redact` clears the store.
 */
let app: TestApp;
let shopify: DeployedApp;

beforeAll(async () => {
  shopify = await deployAppOnFake();
  app = await startTestApp({ env: { ...shopify.env, SHOPIFY_REDACT_RETRY: '300ms' }, port: shopify.port });
});

afterAll(async () => {
  await app?.close();
});

const JANA = {
  recipient: { name: 'Jana Nováková', company: null },
  address: { street: 'Dlouhá 12', city: 'Praha', postcode: '110 00', country: 'CZ' },
  phone: '+420600111222',
  email: 'jana@example.com',
  pickupPoint: { id: 'PP-123', country: 'CZ' },
};

const sql = <T>(text: string, values: unknown[] = []) => app.orm.em.fork().execute<T[]>(text, values);

/** A finished (or running) creation whose every column that can hold personal data holds some. */
async function aCreationWithPersonalData(storeId: string, orderLegacyId: string, status = 'succeeded') {
  const id = `lcr_${randomToken(20)}`;
  const carrierCall = { carrierAccountId: 'ca_x', serviceCode: 'a_home', orderName: '#1', ...JANA, weightGrams: 500 };
  await sql(
    `insert into label_creations (id, store_id, status, idempotency_key, request_hash, order_gid, order_legacy_id,
         order_name, client_reference, requested, resolved, error, resolution, send_plan, sent_at)
     values (?, ?, ?, ?, 'hash', ?, ?, '#1', 'for Jana Nováková', ?::jsonb, ?::jsonb, ?::jsonb, ?::jsonb, ?::jsonb, now())`,
    [
      id,
      storeId,
      status,
      `key-${id}`,
      `gid://shopify/Order/${orderLegacyId}`,
      orderLegacyId,
      JSON.stringify({ order_id: `gid://shopify/Order/${orderLegacyId}`, client_reference: 'for Jana Nováková' }),
      JSON.stringify({ carrier_account_id: 'ca_x', service_code: 'a_home' }),
      JSON.stringify({
        code: 'label_validation_failed',
        details: { issues: [{ code: 'email_invalid', field: 'email', raw: 'jana@@example' }] },
      }),
      JSON.stringify({ outcome: 'shipment_exists', note: 'Jana Nováková called us', resolvedBy: 'ak_x' }),
      JSON.stringify({ decision: { kind: 'create', carrierCall }, sendInput: { creationId: id, carrierCall } }),
    ],
  );
  return id;
}

async function creationColumns(id: string) {
  const [row] = await sql<Record<string, any>>(
    'select client_reference, requested, resolved, error, resolution, send_plan from label_creations where id = ?',
    [id],
  );
  return row!;
}

function expectRedacted(row: Record<string, any>) {
  expect(row.client_reference).toBeNull();
  expect(row.requested.client_reference).toBeNull();
  expect(row.requested.order_id).toMatch(/^gid:/);
  expect(row.resolved).toEqual({ carrier_account_id: 'ca_x', service_code: 'a_home' });
  expect(row.error.details.issues[0]).toEqual({ code: 'email_invalid', field: 'email', raw: null });
  expect(row.resolution).toMatchObject({ outcome: 'shipment_exists', note: null });
  for (const call of [row.send_plan.decision.carrierCall, row.send_plan.sendInput.carrierCall]) {
    expect(call).toMatchObject({ recipient: null, address: null, phone: null, email: null, pickupPoint: null });
    expect(call).toMatchObject({ serviceCode: 'a_home', weightGrams: 500 });
  }
  expect(JSON.stringify(row)).not.toMatch(/Jana|Dlouhá|600111222|jana@/);
}

async function aWebhookEventFor(storeId: string, creationId: string) {
  const endpoint = `we_${randomToken(12)}`;
  const event = `evt_${randomToken(12)}`;
  const delivery = `whd_${randomToken(12)}`;
  await sql(`insert into webhook_endpoints (id, store_id, url, topics) values (?, ?, 'https://x.test', '{x}')`, [
    endpoint,
    storeId,
  ]);
  await sql(
    `insert into webhook_events (id, store_id, topic, resource_id, transition_key, payload, created_at)
     values (?, ?, 'label_creation.updated', ?, 'succeeded', ?, now())`,
    [event, storeId, creationId, JSON.stringify({ data: { object: { client_reference: 'for Jana Nováková' } } })],
  );
  await sql(
    `insert into webhook_deliveries (id, store_id, event_id, endpoint_id, workflow_id, kind, status, created_at)
     values (?, ?, ?, ?, ?, 'automatic', 'delivered', now())`,
    [delivery, storeId, event, endpoint, `wf-${delivery}`],
  );
  await sql(
    `insert into webhook_delivery_attempts (delivery_id, attempt, started_at, status_code, duration_ms, response_excerpt)
     values (?, 1, now(), 200, 5, 'got for Jana Nováková')`,
    [delivery],
  );
  return { event, delivery };
}

const processed = (webhookId: string) =>
  eventually(async () => {
    const [row] = await sql<{ processed_at: Date | null; payload: unknown }>(
      'select processed_at, payload from shopify_webhooks where webhook_id = ?',
      [webhookId],
    );
    return row?.processed_at ? row : null;
  }, 200);

describe('Shopify privacy webhooks, column by column', () => {
  it('exports, then redacts a customer’s orders (after their creations in flight end), then the whole store', async () => {
    const shop = `shop-${randomToken(8).toLowerCase()}.myshopify.com`;
    expect((await install(shopify, shop)).status).toBe(200);
    const [{ id: storeId }] = (await sql<{ id: string }>('select id from stores where domain = ?', [shop])) as [
      { id: string },
    ];
    const customerOrder = aPlatformId();
    const otherOrder = aPlatformId();
    const finished = await aCreationWithPersonalData(storeId, customerOrder);
    const running = await aCreationWithPersonalData(storeId, customerOrder, 'processing');
    const other = await aCreationWithPersonalData(storeId, otherOrder);
    const label = await aLabel(app.orm, storeId, { orderId: customerOrder, orderName: '#1' });
    await aStoredDocument(app.orm, label.id);
    const otherLabel = await aLabel(app.orm, storeId, { orderId: otherOrder, orderName: '#2' });
    await aStoredDocument(app.orm, otherLabel.id);
    const events = await aWebhookEventFor(storeId, finished);
    const otherEvents = await aWebhookEventFor(storeId, other);
    const account = await aCarrierAAccount(app.orm, storeId, {
      sender: { name: 'Petr Novák', street: 'Krátká 1', city: 'Brno', phone: '+420700000000', countryCode: 'CZ' },
    });
    await sql(
      `insert into request_log (request_id, store_id, method, endpoint, status, ip) values ('req_x', ?, 'GET', '/v1/shop', 200, '203.0.113.7')`,
      [storeId],
    );
    const customer = { id: 7100, email: JANA.email, phone: JANA.phone };

    // customers/data_request: the customer's records, while not redacted, in the outbox for the operator.
    const request = await shopifySends(shop, 'customers/data_request', {
      customer,
      orders_requested: [Number(customerOrder)],
      data_request: { id: 4242 },
    });
    expect(request.status).toBe(200);
    expect((await processed(request.webhook_id)).payload).toBeNull();
    const [exported] = await sql<{ to_address: string; body: string; customer_ref: string }>(
      `select to_address, body, customer_ref from notifications where store_id = ? and kind = 'privacy.customer_data_export'`,
      [storeId],
    );
    expect(exported).toMatchObject({ to_address: app.config.privacy.exportEmail, customer_ref: '7100' });
    expect(exported!.body).toContain('Dlouhá 12');
    expect(exported!.body).toContain(finished);
    expect(exported!.body).toContain(label.id);
    expect(exported!.body).not.toContain(other);

    // customers/redact: the finished creation at once, the running one once it has ended; the other order untouched.
    const redact = await shopifySends(shop, 'customers/redact', {
      customer,
      orders_to_redact: [Number(customerOrder)],
    });
    expect(redact.status).toBe(200);
    await eventually(async () => ((await creationColumns(finished)).client_reference === null ? true : null), 200);
    expectRedacted(await creationColumns(finished));
    expect((await creationColumns(running)).client_reference).toBe('for Jana Nováková');
    await sql(`update label_creations set status = 'failed' where id = ?`, [running]);
    await processed(redact.webhook_id);
    expectRedacted(await creationColumns(running));
    expect((await creationColumns(other)).client_reference).toBe('for Jana Nováková');

    const documents = await sql<{ id: string; document_redacted: boolean; stored: boolean }>(
      `select l.id, l.document_redacted, exists (select 1 from label_documents d where d.label_id = l.id) as stored
         from labels l where l.id in (?, ?) order by l.id = ? desc`,
      [label.id, otherLabel.id, label.id],
    );
    expect(documents).toEqual([
      { id: label.id, document_redacted: true, stored: false },
      { id: otherLabel.id, document_redacted: false, stored: true },
    ]);
    const payloads = await sql<{ id: string; payload: string }>(
      'select id, payload from webhook_events where id in (?, ?)',
      [events.event, otherEvents.event],
    );
    expect(payloads.find((p) => p.id === events.event)!.payload).not.toContain('Jana');
    expect(payloads.find((p) => p.id === otherEvents.event)!.payload).toContain('Jana');
    const excerpts = await sql<{ delivery_id: string; response_excerpt: string | null }>(
      'select delivery_id, response_excerpt from webhook_delivery_attempts where delivery_id in (?, ?)',
      [events.delivery, otherEvents.delivery],
    );
    expect(excerpts.find((e) => e.delivery_id === events.delivery)!.response_excerpt).toBeNull();
    expect(excerpts.find((e) => e.delivery_id === otherEvents.delivery)!.response_excerpt).toContain('Jana');
    expect(
      await sql(`select 1 from notifications where store_id = ? and kind = 'privacy.customer_data_export'`, [storeId]),
    ).toEqual([]);

    // A key e-mail to the owner waits in the outbox (their address, the key's name).
    await createApiKey(app.orm.em.fork(), { storeId, name: 'warehouse', scopes: ['labels:print'], now: new Date() });
    expect(await sql('select to_address from notifications where store_id = ?', [storeId])).toEqual([
      { to_address: `owner@${shop}` },
    ]);

    // Uninstalled, then shop/redact: everything of the store, and the store's own personal data.
    const uninstalled = await control('POST', `/_control/shopify/${shop}/uninstall`);
    await processed(uninstalled.body.webhook_id as string);
    const shopRedact = await shopifySends(shop, 'shop/redact');
    expect(shopRedact.status).toBe(200);
    await processed(shopRedact.webhook_id);
    expectRedacted(await creationColumns(other));
    const [labels] = await sql<{ redacted: number; stored: number }>(
      `select count(*) filter (where document_redacted)::int as redacted,
              count(*) filter (where document_stored)::int as stored from labels where store_id = ?`,
      [storeId],
    );
    expect(labels).toEqual({ redacted: 2, stored: 0 });
    const [allEvents] = await sql<{ payloads: string }>(
      `select string_agg(payload, ' ') as payloads from webhook_events where store_id = ?`,
      [storeId],
    );
    expect(allEvents!.payloads).not.toContain('Jana');
    const [attempts] = await sql<{ n: number }>(
      `select count(response_excerpt)::int as n from webhook_delivery_attempts a
         join webhook_deliveries d on d.id = a.delivery_id where d.store_id = ?`,
      [storeId],
    );
    expect(attempts!.n).toBe(0);
    expect(await sql('select ip from request_log where store_id = ?', [storeId])).toEqual([{ ip: null }]);
    expect(await sql('select 1 from notifications where store_id = ?', [storeId])).toEqual([]);
    expect(await sql('select email from stores where id = ?', [storeId])).toEqual([{ email: 'redacted@invalid' }]);
    expect(await sql('select sender from carrier_accounts where id = ?', [account.id])).toEqual([{ sender: {} }]);
    const [webhooks] = await sql<{ n: number; with_payload: number }>(
      'select count(*)::int as n, count(payload)::int as with_payload from shopify_webhooks where store_id = ?',
      [storeId],
    );
    expect(webhooks).toEqual({ n: 4, with_payload: 0 });
  });
});

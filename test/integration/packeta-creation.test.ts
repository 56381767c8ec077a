import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PDFDocument } from 'pdf-lib';
import { composeAdapters } from '../../src/adapters';
import { accountSettings } from '../../src/carriers/account-settings';
import { apiPasswordOwner } from '../../src/carriers/packeta/adapter';
import { FAKE_POINTS } from '../../src/carriers/packeta/fake/network';
import { FAULTS, FIELD_REASONS } from '../../src/carriers/packeta/faults';
import type { ClaimCapableCarrierPort } from '../../src/carriers/port';
import { sealValue } from '../../src/crypto/sealed-values';
import { insertCarrierAccount } from '../../src/db/carrier-accounts-repository';
import { CarrierAccount } from '../../src/db/entities/carrier-account';
import { PAGE_SIZES } from '../../src/domain/carrier-catalog';
import { newId } from '../../src/ids';
import { anOrderOnPlatform, aRule } from '../helpers/creation';
import { labelctlJsonWith, labelctlWith } from '../helpers/labelctl';
import { aPacketaPassword, fakePacketaAccount, packetaLedger, scriptPacketaFaults } from '../helpers/packeta';
import { control } from '../helpers/sandbox';
import { aStoreWithKey } from '../helpers/stores';
import { startTestApp, type TestApp } from '../helpers/test-app';

/**
 * Carrier A accounts on the `packeta` endpoint, end to end over the service's HTTP API, the workflow, the real worker
 * and the fake Packeta (issue 58 items 5 and 6): an account created and checked by labelctl, a creation through the
 * whole workflow, a pickup-point creation, an unclear create, a refusal for each mapped fault, a claim.
 */
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => app.close());

type Shop = Awaited<ReturnType<typeof aStoreWithKey>>;

const HOME = { code: 'a_home', name: 'Home delivery', codSupported: true, pickupPointRequired: false };
const PICKUP = { code: 'a_pickup', name: 'Pickup point', codSupported: true, pickupPointRequired: true };

/** A store with a Packeta account made directly (sealed with the service's key) and a rule to `service`. */
async function aPacketaShop(service: 'a_home' | 'a_pickup' = 'a_home') {
  const shop = await aStoreWithKey(app.orm);
  const password = aPacketaPassword();
  await fakePacketaAccount(password, { senders: ['shop'] });
  const id = newId('carrierAccount');
  const account = await insertCarrierAccount(app.orm.em.fork(), {
    id,
    storeId: shop.storeId,
    carrierCode: 'carrier_a',
    currency: 'CZK',
    services: [HOME, PICKUP],
    sender: { name: 'Shop s.r.o.', countryCode: 'CZ' },
    packeta: {
      settings: { eshop: 'shop', homeDeliveryCarriers: { CZ: '106' } },
      apiPasswordSealed: sealValue(app.config.settingsEncryptionKey, apiPasswordOwner(id), password),
    },
    now: new Date(),
  });
  await aRule(app.orm, shop.storeId, { priority: 1, carrierAccountId: account.id, serviceCode: service });
  return { shop, password, account };
}

const create = (shop: Shop, key: string, body: Record<string, unknown>) =>
  app.request('POST', '/v1/labels', {
    headers: { ...shop.auth, 'Idempotency-Key': key, Prefer: 'wait=30' },
    body,
  });

async function pageSizeOf(bytes: Buffer): Promise<{ width: number; height: number; pages: number }> {
  const doc = await PDFDocument.load(bytes);
  return { ...doc.getPage(0).getSize(), pages: doc.getPageCount() };
}

describe('a Packeta account created and checked by labelctl', () => {
  it('proves the password before keeping the account, never shows it, and checks it again', async () => {
    const shop = await aStoreWithKey(app.orm);
    const password = aPacketaPassword();
    await fakePacketaAccount(password, { senders: ['demo-shop'] });
    const args = ['carrier-accounts', 'create-packeta', shop.domain, '--eshop', 'demo-shop', '--currency', 'CZK'];

    const wrong = await labelctlWith({ PACKETA_API_PASSWORD: aPacketaPassword() }, ...args, '--home-carrier', 'CZ=106');
    expect([wrong.code, wrong.stderr]).toEqual([
      2,
      'labelctl: check failed: Packeta refused the API password (credentials_invalid)\n',
    ]);
    const unknownSender = await labelctlWith(
      { PACKETA_API_PASSWORD: password },
      ...args.slice(0, 3),
      '--eshop',
      'other',
      '--currency',
      'CZK',
    );
    expect(unknownSender.code).toBe(2);
    expect(await app.orm.em.fork().count(CarrierAccount, { storeId: shop.storeId })).toBe(0);

    const created = await labelctlJsonWith({ PACKETA_API_PASSWORD: password }, ...args, '--home-carrier', 'CZ=106');
    expect(created).toMatchObject({
      carrier: 'carrier_a',
      endpoint: 'packeta',
      eshop: 'demo-shop',
      home_delivery_carriers: { CZ: '106' },
      api_password: 'set',
      return_routing: [expect.any(String), expect.any(String)],
    });
    const stored = await app.orm.em.fork().findOneOrFail(CarrierAccount, { id: created.id });
    expect(stored.apiPasswordSealed).not.toContain(password);

    const listed = await labelctlWith({}, '--json', 'carrier-accounts', 'list', shop.domain);
    expect(listed.code).toBe(0);
    expect(listed.stdout).not.toContain(password);
    expect(await labelctlJsonWith({}, 'carrier-accounts', 'check', created.id)).toMatchObject({ check: 'ok' });
    // Under another SETTINGS_ENCRYPTION_KEY the stored password does not open: labelctl says so, not "Packeta refused".
    const otherKey = await labelctlWith(
      { SETTINGS_ENCRYPTION_KEY: randomBytes(32).toString('base64') },
      'carrier-accounts',
      'check',
      created.id,
    );
    expect([otherKey.code, otherKey.stderr]).toEqual([
      2,
      'labelctl: check failed: the stored API password does not open with this SETTINGS_ENCRYPTION_KEY (the account ' +
        'was created under another key); set the key it was created with, or create the account again\n',
    ]);

    // The carrier account endpoint of the API shows no endpoint secrets either.
    const api = await app.request('GET', `/v1/carrier-accounts/${created.id}`, { headers: shop.auth });
    expect(api.status).toBe(200);
    expect(JSON.stringify(api.body)).not.toContain(password);
  });
});

describe('POST /v1/labels for a Packeta account', () => {
  it('goes through the whole workflow: packet created, label stored and served (label, A4, merged), printed, fulfilled', async () => {
    const { shop, password, account } = await aPacketaShop();
    const order = await anOrderOnPlatform(shop.domain);
    const res = await create(shop, `packeta-home-${order.orderId}`, {
      order_id: order.orderId,
      cod: { amount: '120.00', currency: 'CZK' },
      fulfillment: 'fulfill',
    });
    expect([res.status, res.body.error ?? null]).toEqual([201, null]);
    expect(res.body).toMatchObject({
      status: 'succeeded',
      created: true,
      resolved: { carrier_account_id: account.id, service_code: 'a_home' },
      side_effects: { fulfillment: { mode: 'fulfill', status: 'succeeded' } },
    });
    const label = res.body.labels[0];
    const [packet] = await packetaLedger(password);
    expect(label).toMatchObject({
      status: 'ready',
      tracking_number: `Z${packet.id}`,
      cod: { amount: '120.00', currency: 'CZK' },
      document: { availability: 'available' },
    });
    expect(packet.attributes).toMatchObject({
      number: order.name.slice(1),
      addressId: '106',
      cod: '120.00',
      eshop: 'shop',
    });

    const single = await app.request('GET', `/v1/labels/${label.id}/document`, { headers: shop.auth });
    expect(single.status).toBe(200);
    expect(single.headers.get('service-label-source')).toBe('stored');
    const a6 = await pageSizeOf(single.bytes);
    expect([a6.width, a6.height, a6.pages]).toEqual([
      expect.closeTo(PAGE_SIZES.A6.width, 0),
      expect.closeTo(PAGE_SIZES.A6.height, 0),
      1,
    ]);
    const a4 = await app.request('GET', `/v1/labels/${label.id}/document?format=a4`, { headers: shop.auth });
    expect(a4.status).toBe(200);
    expect((await pageSizeOf(a4.bytes)).width).toBeCloseTo(PAGE_SIZES.A4.width, 0);

    // A second packet of the same account, to a pickup point, and both labels merged.
    const pickup = await anOrderOnPlatform(shop.domain, {
      delivery_method: {
        type: 'pickup',
        pickup_point: { id: FAKE_POINTS.prahaPoint, carrier_code: 'carrier_a', country: 'CZ' },
      },
    });
    const second = await create(shop, `packeta-point-${pickup.orderId}`, {
      order_id: pickup.orderId,
      carrier_account_id: account.id,
      service_code: 'a_pickup',
    });
    expect([second.status, second.body.error ?? null]).toEqual([201, null]);
    expect((await packetaLedger(password))[1].attributes.addressId).toBe(FAKE_POINTS.prahaPoint);
    const merged = await app.request('GET', `/v1/label-documents?label_ids=${label.id},${second.body.labels[0].id}`, {
      headers: shop.auth,
    });
    expect(merged.status).toBe(200);
    expect((await pageSizeOf(merged.bytes)).pages).toBe(2);

    // The same two labels as Packeta lays them on an A4 sheet whose first three places are used: one on each page.
    const sheet = join(tmpdir(), `sheet-${label.id}.pdf`);
    const trackingNumbers = [label.tracking_number, second.body.labels[0].tracking_number];
    const laidOut = await labelctlJsonWith(
      {},
      'carrier-accounts',
      'label-sheet',
      account.id,
      ...trackingNumbers,
      '--offset',
      '3',
      '--out',
      sheet,
    );
    expect(laidOut).toMatchObject({ pages: 2 });
    expect((await pageSizeOf(readFileSync(sheet))).width).toBeCloseTo(PAGE_SIZES.A4.width, 0);
    const outside = await labelctlWith(
      {},
      'carrier-accounts',
      'label-sheet',
      account.id,
      ...trackingNumbers,
      '--offset',
      '4',
      '--out',
      sheet,
    );
    expect([outside.code, outside.stderr]).toEqual([2, 'labelctl: offset 4 is outside A6 on A4 (0 to 3)\n']);

    const printed = await app.request('POST', `/v1/labels/${label.id}/printed`, {
      headers: { ...shop.auth, 'Idempotency-Key': `print-${label.id}` },
    });
    expect(printed.status).toBe(200);
    const { fulfillments } = (await control('GET', `/_control/stores/${shop.domain}/fulfillments`)).body;
    expect(fulfillments).toEqual([expect.objectContaining({ tracking_number: label.tracking_number })]);
  });

  it('a create that times out after Packeta made the packet needs attention, with nothing to look it up by', async () => {
    const { shop, password } = await aPacketaShop();
    await scriptPacketaFaults(password, [{ type: 'timeout_created', hold_ms: 6000 }]);
    const order = await anOrderOnPlatform(shop.domain);
    const res = await create(shop, `packeta-timeout-${order.orderId}`, { order_id: order.orderId });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({
      status: 'needs_attention',
      next_action: 'manual_check',
      created: null,
      attention: { reason: 'carrier_timeout', shipment_at_carrier: 'unknown', carrier_reference: null },
    });
    // Packeta made exactly one packet; the service never created again.
    expect(await packetaLedger(password)).toHaveLength(1);
  });

  const refusals: Array<[string, string, Record<string, unknown>]> = [
    ...FAULTS.filter((f) => f.outcome.kind === 'rejected' && /createPacket\b|every call/.test(f.raisedBy)).map(
      (f): [string, string, Record<string, unknown>] => [
        f.fault,
        (f.outcome as { reason: string }).reason,
        { type: 'fault', fault: f.fault, text: `secret words of ${f.fault}` },
      ],
    ),
    // Every field of the table (`addressId` of a home-delivery packet names the home carrier), and one it lacks.
    ...[...Object.entries(FIELD_REASONS), ['number', 'other']].map(
      ([field, reason]): [string, string, Record<string, unknown>] => [
        `PacketAttributesFault on ${field}`,
        reason === 'address_id' ? 'service_not_available' : reason!,
        {
          type: 'fault',
          fault: 'PacketAttributesFault',
          fields: [{ name: field, fault: `secret words about ${field}` }],
        },
      ],
    ),
  ];

  it.each(refusals)(
    '%s fails the creation carrier_rejected (%s), Packeta’s words kept out',
    async (_, reason, fault) => {
      const { shop, password } = await aPacketaShop();
      await scriptPacketaFaults(password, [fault]);
      const order = await anOrderOnPlatform(shop.domain);
      const res = await create(shop, `packeta-refused-${order.orderId}`, { order_id: order.orderId });
      expect(res.status).toBe(422);
      expect(res.body.error).toMatchObject({ code: 'carrier_rejected', details: { reason } });
      expect(res.text).not.toContain('secret words');
      const creation = await app.request('GET', `/v1/label-creations/${res.body.error.details.label_creation_id}`, {
        headers: shop.auth,
      });
      expect(creation.status).toBe(200);
      expect(creation.body).toMatchObject({ status: 'failed' });
      expect(creation.text).not.toContain('secret words');
      expect(await packetaLedger(password)).toEqual([]);
    },
  );

  it('a pickup point Packeta does not know fails the creation pickup_point_invalid; nothing is created', async () => {
    const { shop, password } = await aPacketaShop('a_pickup');
    const order = await anOrderOnPlatform(shop.domain, {
      delivery_method: {
        type: 'pickup',
        pickup_point: { id: FAKE_POINTS.prahaEnded, carrier_code: 'carrier_a', country: 'CZ' },
      },
    });
    const res = await create(shop, `packeta-ended-${order.orderId}`, { order_id: order.orderId });
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'carrier_rejected', details: { reason: 'pickup_point_invalid' } });
    expect(await packetaLedger(password)).toEqual([]);
  });
});

describe('a customer return on a Packeta account', () => {
  /** A customer return through the service's own composition: carrier A's calls routed by the account's endpoint. */
  async function aReturn(account: CarrierAccount) {
    const port = composeAdapters(app.config, app.orm).carrierFor('carrier_a') as ClaimCapableCarrierPort;
    const stored = await app.orm.em.fork().findOneOrFail(CarrierAccount, { id: account.id });
    return port.createClaim(accountSettings(stored), {
      reference: 'return-1',
      orderName: '#1001',
      originalShipmentId: '1234567890',
      email: 'jana@example.com',
      phone: '+420600111222',
      value: { amount: '499.00', currency: 'CZK' },
      consignCountry: 'CZ',
    });
  }

  it('goes to Packeta through the service’s carrier adapter, with the claim password as consign_password', async () => {
    const { password, account } = await aPacketaShop();
    const claim = await aReturn(account);
    expect(claim.extras.consign_password).toEqual(expect.any(String));
    expect(await packetaLedger(password)).toEqual([
      expect.objectContaining({ kind: 'claim', password: claim.extras.consign_password }),
    ]);
  });

  const claimRefusals: Array<[string, string, Record<string, unknown>]> = [
    ...FAULTS.filter(
      (f) => f.outcome.kind === 'rejected' && /createPacketClaimWithPassword|every call/.test(f.raisedBy),
    ).map((f): [string, string, Record<string, unknown>] => [
      f.fault,
      (f.outcome as { reason: string }).reason,
      { type: 'fault', call: 'claim', fault: f.fault, text: `secret words of ${f.fault}` },
    ]),
    [
      'PacketAttributesFault on consignCountry',
      'address_invalid',
      {
        type: 'fault',
        call: 'claim',
        fault: 'PacketAttributesFault',
        fields: [{ name: 'consignCountry', fault: 'x' }],
      },
    ],
  ];

  it.each(claimRefusals)('%s refuses the return as %s; nothing is made', async (_, reason, fault) => {
    const { password, account } = await aPacketaShop();
    await scriptPacketaFaults(password, [fault]);
    await expect(aReturn(account)).rejects.toMatchObject({ name: 'CarrierRejectedError', reason });
    expect(await packetaLedger(password)).toEqual([]);
  });
});

describe('labelctl carrier-accounts check on a Packeta account', () => {
  const checkRefusals = FAULTS.filter(
    (f) => f.outcome.kind === 'rejected' && /senderGetReturnRouting|every call/.test(f.raisedBy),
  ).map((f): [string, string] => [f.fault, (f.outcome as { reason: string }).reason]);

  it.each(checkRefusals)('%s fails the check (%s), Packeta’s words kept out', async (fault, reason) => {
    const { password, account } = await aPacketaShop();
    await scriptPacketaFaults(password, [{ type: 'fault', call: 'check', fault, text: `secret words of ${fault}` }]);
    const checked = await labelctlWith({}, 'carrier-accounts', 'check', account.id);
    expect(checked.code).toBe(2);
    expect(checked.stderr).toContain(`(${reason})`);
    expect(checked.stderr + checked.stdout).not.toContain('secret words');
    expect(checked.stderr + checked.stdout).not.toContain(password);
  });
});

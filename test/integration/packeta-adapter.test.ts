import { PDFDocument } from 'pdf-lib';
import { FAKE_POINTS } from '../../src/carriers/packeta/fake/network';
import type { CarrierAccountSettings, ShipmentRequest } from '../../src/carriers/port';
import { MM } from '../../src/domain/carrier-catalog';
import { aShipmentRequest as aSandboxShipment } from '../helpers/sandbox';
import {
  aPacketaAccount,
  aPacketaPassword,
  fakePacketaAccount,
  packetaAdapter,
  packetaLedger,
  scriptPacketaFaults,
} from '../helpers/packeta';

/**
 * The Packeta adapter against the fake Packeta over HTTP: every documented rule the fake enforces has a case here that
 * fails if the adapter ignores it (sends what the rule forbids, or reads the answer wrong), and each refusal maps to
 * the reason of docs/carriers/packeta.md with nothing created.
 */

/**
 * A shipment as the service sends carrier A: always with a declared value (the goods' value by default), since Packeta
 * wants a packet's value above 0.
 */
const aShipmentRequest = (overrides: Partial<ShipmentRequest> = {}): ShipmentRequest =>
  aSandboxShipment({ declaredValue: { amount: '499.00', currency: 'CZK' }, ...overrides });

async function anAccount(
  body: Parameters<typeof fakePacketaAccount>[1] = {},
  overrides: Parameters<typeof aPacketaAccount>[1] = {},
): Promise<{ password: string; account: CarrierAccountSettings }> {
  const password = aPacketaPassword();
  await fakePacketaAccount(password, body);
  return { password, account: aPacketaAccount(password, overrides) };
}

const toPoint = (id: string, country = 'CZ'): Partial<ShipmentRequest> => ({
  serviceCode: 'a_pickup',
  pickupPoint: { id, country },
});

async function refusal(account: CarrierAccountSettings, request: ShipmentRequest) {
  return packetaAdapter()
    .createShipment(account, request)
    .then(
      () => {
        throw new Error('Packeta accepted the packet');
      },
      (error: { name: string; reason: string; carrierText: string }) => error,
    );
}

describe('Packeta adapter on the fake Packeta: creating packets', () => {
  it('creates a home-delivery packet with COD, value, currency, weight, order number and sender', async () => {
    const { password, account } = await anAccount({ senders: ['shop-a', 'shop-b'] }, { eshop: 'shop-b' });
    const result = await packetaAdapter().createShipment(
      account,
      aShipmentRequest({
        orderName: '#1001',
        recipient: { name: 'Jana Marie Nováková', company: 'Nováková s.r.o.' },
        address: { street: 'Dlouhá 12/3a', city: 'Praha', postcode: '110 00', country: 'CZ' },
        phone: '+420 600 111 222',
        weightGrams: 1250,
        cod: { amount: '100.00', currency: 'CZK' },
        declaredValue: { amount: '1500.00', currency: 'CZK' },
      }),
    );
    expect(result).toMatchObject({
      status: 'ready',
      trackingNumber: `Z${result.shipmentId}`,
      carrierReference: result.shipmentId,
      trackingUrl: `https://tracking.packeta.com/en/?id=${result.shipmentId}`,
      cod: { amount: '100.00', currency: 'CZK' },
      declaredValue: { amount: '1500.00', currency: 'CZK' },
    });
    expect(result.shipmentId).toMatch(/^\d{10}$/);
    const [packet] = await packetaLedger(password);
    expect(packet.attributes).toEqual({
      number: '1001',
      name: 'Jana Marie',
      surname: 'Nováková',
      company: 'Nováková s.r.o.',
      email: 'jana@example.com',
      phone: '+420600111222',
      addressId: '106',
      currency: 'CZK',
      cod: '100.00',
      value: '1500.00',
      weight: '1.250',
      eshop: 'shop-b',
      street: 'Dlouhá',
      houseNumber: '12/3a',
      city: 'Praha',
      zip: '110 00',
    });
    expect(packet.currency).toBe('CZK');
  });

  it('creates a pickup-point packet to the point by its ID, without the home address', async () => {
    const { password, account } = await anAccount();
    await packetaAdapter().createShipment(account, aShipmentRequest(toPoint(FAKE_POINTS.prahaPoint)));
    const [packet] = await packetaLedger(password);
    expect(packet.attributes.addressId).toBe(FAKE_POINTS.prahaPoint);
    expect(packet.attributes).not.toHaveProperty('street');
    expect(packet.attributes).not.toHaveProperty('zip');
  });

  it('always names the currency, so amounts are never read in the destination’s (a HUF point, CZK amounts)', async () => {
    const toBudapest = aShipmentRequest({ ...toPoint(FAKE_POINTS.budapestPoint, 'HU'), phone: '+36301234567' });
    // Packeta takes CZK for a point that accepts HUF only from a client who set a conversion from CZK (docs
    // "Handling Currency Conversions"); without the currency named it would read 499 as HUF and never refuse.
    const unconverted = await anAccount();
    expect(await refusal(unconverted.account, toBudapest)).toMatchObject({ reason: 'cod_limit' });
    expect(await packetaLedger(unconverted.password)).toEqual([]);

    const { password, account } = await anAccount({ currency_conversions: ['CZK'] });
    await packetaAdapter().createShipment(account, toBudapest);
    const [packet] = await packetaLedger(password);
    expect(packet).toMatchObject({ currency: 'CZK', attributes: { currency: 'CZK', value: '499.00' } });
  });

  it.each([
    ['a point that does not exist', toPoint('99999'), 'pickup_point_invalid'],
    ['a point that ended its cooperation', toPoint(FAKE_POINTS.prahaEnded), 'pickup_point_invalid'],
    [
      'COD at a Z-BOX that takes none',
      { ...toPoint(FAKE_POINTS.prahaBoxWithoutCod), cod: { amount: '100.00', currency: 'CZK' } },
      'cod_limit',
    ],
    ['COD in CZK that is not whole', { cod: { amount: '99.50', currency: 'CZK' } }, 'cod_limit'],
    [
      'a parcel over the Z-BOX limit (10 kg)',
      { ...toPoint(FAKE_POINTS.prahaBoxWithCod), weightGrams: 12_000 },
      'weight_out_of_range',
    ],
    ['a parcel over the home carrier’s limit (30 kg)', { weightGrams: 31_000 }, 'weight_out_of_range'],
    [
      'a postcode outside the destination’s format',
      { address: { street: 'Dlouhá 12', city: 'Praha', postcode: '1100', country: 'CZ' } },
      'postcode_invalid',
    ],
    [
      'a street without a house number',
      { address: { street: 'Dlouhá', city: 'Praha', postcode: '110 00', country: 'CZ' } },
      'address_invalid',
    ],
    [
      'a street longer than 32 characters',
      { address: { street: `${'Nábřeží '.repeat(5)}12`, city: 'Praha', postcode: '110 00', country: 'CZ' } },
      'address_invalid',
    ],
    ['a name with characters Packeta refuses', { recipient: { name: 'Jana N@váková' } }, 'address_invalid'],
    ['a phone that is no phone', { phone: '+420 12', email: null }, 'address_invalid'],
    ['a phone of another country than the destination’s', { phone: '+36 30 123 4567' }, 'address_invalid'],
    [
      'a declared value of 0 (Packeta wants a value above 0)',
      { declaredValue: { amount: '0.00', currency: 'CZK' } },
      'other',
    ],
    ['neither e-mail nor phone', { phone: null, email: null }, 'address_invalid'],
  ] as Array<[string, Partial<ShipmentRequest>, string]>)(
    'refuses %s as %s and creates nothing',
    async (_, overrides, reason) => {
      const { password, account } = await anAccount();
      const error = await refusal(account, aShipmentRequest(overrides));
      expect(error).toMatchObject({ name: 'CarrierRejectedError', reason });
      expect(await packetaLedger(password)).toEqual([]);
    },
  );

  it('sends the order number as letters and digits, at most 24 (the stricter of docs and WSDL)', async () => {
    const { password, account } = await anAccount();
    await packetaAdapter().createShipment(
      account,
      aShipmentRequest({ orderName: '#EU-2026/0001-ABCDEFGHIJKLMNOPQRSTU' }),
    );
    const [packet] = await packetaLedger(password);
    expect(packet.number).toBe('EU20260001ABCDEFGHIJKLMN');
  });

  it('refuses home delivery to a country without a configured carrier before calling Packeta', async () => {
    const { password, account } = await anAccount({}, { homeDeliveryCarriers: { CZ: '106' } });
    const error = await refusal(
      account,
      aShipmentRequest({ address: { street: 'Hlavná 1', city: 'Bratislava', postcode: '811 01', country: 'SK' } }),
    );
    expect(error).toMatchObject({ name: 'CarrierRejectedError', reason: 'service_not_available' });
    expect(await packetaLedger(password)).toEqual([]);
  });

  it('refuses COD where the home carrier collects none as cod_limit', async () => {
    const { account } = await anAccount();
    const error = await refusal(
      account,
      aShipmentRequest({
        address: { street: 'Hauptstraße 5', city: 'Berlin', postcode: '10115', country: 'DE' },
        phone: '+4930123456',
        cod: { amount: '10.00', currency: 'EUR' },
        declaredValue: { amount: '20.00', currency: 'EUR' },
      }),
    );
    expect(error).toMatchObject({ reason: 'cod_limit' });
  });

  it('maps a wrong API password to credentials_invalid and an unapproved account to account_not_permitted', async () => {
    const unknown = aPacketaAccount(aPacketaPassword());
    expect(await refusal(unknown, aShipmentRequest())).toMatchObject({ reason: 'credentials_invalid' });
    const { account } = await anAccount({ approved: false });
    const error = await refusal(account, aShipmentRequest());
    expect(error).toMatchObject({ reason: 'account_not_permitted' });
    // Packeta's own words stay with the error for the logs.
    expect(error.carrierText).toContain('user_id');
  });

  it('needs the sender when the account has several and none is configured', async () => {
    const { account } = await anAccount({ senders: ['a', 'b'] }, { eshop: '' });
    expect(await refusal(account, aShipmentRequest())).toMatchObject({ reason: 'account_not_permitted' });
  });
});

describe('Packeta adapter on the fake Packeta: what is not a refusal', () => {
  it('a create that times out after Packeta made the packet is a timeout, and no lookup can find it', async () => {
    const { password, account } = await anAccount();
    await scriptPacketaFaults(password, [{ type: 'timeout_created', hold_ms: 5000 }]);
    const adapter = packetaAdapter(500);
    await expect(adapter.createShipment(account, aShipmentRequest())).rejects.toMatchObject({
      name: 'CarrierTimeoutError',
    });
    expect(await packetaLedger(password)).toHaveLength(1);
    await expect(adapter.findShipmentByReference()).rejects.toMatchObject({
      name: 'ReferenceLookupUnsupportedError',
    });
  });

  it('an HTTP 500 is carrier_unavailable, and an unknown fault too (its outcome is unknown)', async () => {
    const { password, account } = await anAccount();
    await scriptPacketaFaults(password, [
      { type: 'server_error' },
      { type: 'fault', fault: 'SomethingNewFault', text: 'new' },
    ]);
    for (let i = 0; i < 2; i += 1)
      await expect(packetaAdapter().createShipment(account, aShipmentRequest())).rejects.toMatchObject({
        name: 'CarrierUnavailableError',
        reason: 'carrier_error',
      });
  });
});

describe('Packeta adapter on the fake Packeta: labels, status, claims, the account check', () => {
  it('fetches the single A6 label and reads the packet’s status', async () => {
    const { password, account } = await anAccount();
    const adapter = packetaAdapter();
    const packet = await adapter.createShipment(account, aShipmentRequest());
    const label = await adapter.fetchLabel(account, packet.shipmentId);
    expect(label).toMatchObject({ pageSize: 'A6', pages: 1 });
    expect((await packetaLedger(password))[0].label_calls).toBe(1);
    expect(await adapter.getShipment(account, packet.shipmentId)).toMatchObject({
      status: 'ready',
      trackingNumber: `Z${packet.shipmentId}`,
    });
  });

  it('renders several labels on A4 with an offset, as Packeta lays them out', async () => {
    const { account } = await anAccount();
    const adapter = packetaAdapter();
    const ids: string[] = [];
    for (let i = 0; i < 3; i += 1) ids.push((await adapter.createShipment(account, aShipmentRequest())).shipmentId);
    // Three labels from position 2 of four: two on the first page, one on the second.
    const sheet = await adapter.fetchLabelSheet(account, ids, 'A6 on A4', 2);
    const doc = await PDFDocument.load(sheet.pdf);
    expect(doc.getPageCount()).toBe(2);
    expect(doc.getPage(0).getWidth()).toBeCloseTo(210 * MM, 0);
    await expect(adapter.fetchLabelSheet(account, ids, 'A6 on A4', 4)).rejects.toThrow(RangeError);
    await expect(adapter.fetchLabelSheet(account, ids, 'A5 on A4', 0)).rejects.toThrow(RangeError);
  });

  it('a label of a packet Packeta does not know is a render error', async () => {
    const { account } = await anAccount();
    await expect(packetaAdapter().fetchLabel(account, '1234567890')).rejects.toMatchObject({
      name: 'CarrierUnavailableError',
      reason: 'render_error',
    });
  });

  it('creates a customer return whose password is the consign_password', async () => {
    const { password, account } = await anAccount();
    const claim = await packetaAdapter().createClaim(account, {
      reference: 'claim-1',
      orderName: '#1001',
      originalShipmentId: '1234567890',
      email: 'jana@example.com',
      phone: '+420600111222',
      value: { amount: '100.00', currency: 'CZK' },
      consignCountry: 'CZ',
    });
    expect(claim.extras.consign_password).toMatch(/^P\w+$/);
    const [made] = await packetaLedger(password);
    expect(made).toMatchObject({ kind: 'claim', number: '1001', password: claim.extras.consign_password });
    expect(made.attributes).toMatchObject({ eshop: 'eshop', consignCountry: 'CZ', sendEmailToCustomer: 'true' });
  });

  it('refuses a claim without a phone (the WSDL wants e-mail and phone) and creates nothing', async () => {
    const { password, account } = await anAccount();
    await expect(
      packetaAdapter().createClaim(account, {
        reference: 'claim-2',
        orderName: '#1002',
        originalShipmentId: '1234567890',
        email: 'jana@example.com',
        phone: null,
        value: { amount: '100.00', currency: 'CZK' },
        consignCountry: 'CZ',
      }),
    ).rejects.toMatchObject({ name: 'CarrierRejectedError', reason: 'address_invalid' });
    expect(await packetaLedger(password)).toEqual([]);
  });

  it('checks an account by its sender: ok, a wrong password, an unknown sender', async () => {
    const { account } = await anAccount({ senders: ['my-shop'] }, { eshop: 'my-shop' });
    expect((await packetaAdapter().checkAccount(account)).returnRouting).toHaveLength(2);
    await expect(packetaAdapter().checkAccount(aPacketaAccount(aPacketaPassword()))).rejects.toMatchObject({
      reason: 'credentials_invalid',
    });
    const { account: other } = await anAccount({ senders: ['my-shop'] }, { eshop: 'not-mine' });
    await expect(packetaAdapter().checkAccount(other)).rejects.toMatchObject({ reason: 'account_not_permitted' });
  });
});

import { PDFDocument } from 'pdf-lib';
import { CarrierAAdapter } from '../../src/carriers/sandbox-adapter';
import { PAGE_SIZES } from '../../src/domain/carrier-catalog';
import {
  CarrierRejectedError,
  DocumentNotSupportedError,
  ImportRejectedError,
  LabelNotReissuableError,
} from '../../src/carriers/port';
import {
  adapterFor,
  anAccount,
  aShipmentRequest,
  control,
  eventually,
  ledger,
  sandboxUrl,
  scriptFaults,
} from '../helpers/sandbox';

async function expectPdf(bytes: Uint8Array, size: keyof typeof PAGE_SIZES, pages: number, text?: string) {
  const doc = await PDFDocument.load(bytes);
  expect(doc.getPageCount()).toBe(pages);
  for (const page of doc.getPages()) {
    expect(page.getWidth()).toBeCloseTo(PAGE_SIZES[size].width, 1);
    expect(page.getHeight()).toBeCloseTo(PAGE_SIZES[size].height, 1);
  }
  if (text) expect(doc.getTitle()).toContain(text);
}

describe('sandbox carrier A', () => {
  it('creates a packet with barcode, rounded COD, consign password and a stored A6 label, recorded once in the ledger', async () => {
    const account = anAccount('carrier_a');
    const adapter = adapterFor(account);
    const request = aShipmentRequest({
      cod: { amount: '99.50', currency: 'CZK' },
      declaredValue: { amount: '1500.00', currency: 'CZK' },
      options: { consign_password: true },
    });
    const result = await adapter.createShipment(account, request);
    expect(result).toMatchObject({
      status: 'ready',
      cod: { amount: '100.00', currency: 'CZK' },
      declaredValue: { amount: '1500.00', currency: 'CZK' },
      document: null,
    });
    expect(result.shipmentId).toMatch(/^Z\d{10}$/);
    expect(result.barcode).toBe(`*${result.shipmentId}*`);
    expect(result.extras.consign_password).toMatch(/^\d{4}$/);
    const label = await adapter.fetchLabel(account, result.shipmentId);
    expect(label).toMatchObject({ pageSize: 'A6', pages: 1 });
    await expectPdf(label.pdf, 'A6', 1, result.trackingNumber!);
    const entries = await ledger(account.accountId);
    expect(entries).toEqual([
      expect.objectContaining({
        kind: 'shipment',
        reference: request.reference,
        shipment_id: result.shipmentId,
        status: 'ready',
        label_calls: 1,
      }),
    ]);
    expect(await adapter.findShipmentByReference(account, request.reference)).toMatchObject({
      shipmentId: result.shipmentId,
    });
  });

  it('rounds HUF COD up to a multiple of 20', async () => {
    const account = anAccount('carrier_a', { currency: 'HUF', country: 'HU' });
    const result = await adapterFor(account).createShipment(
      account,
      aShipmentRequest({
        address: { street: 'Fő utca 1', city: 'Budapest', postcode: '1011', country: 'HU' },
        cod: { amount: '12345.00', currency: 'HUF' },
      }),
    );
    expect(result.cod).toEqual({ amount: '12360.00', currency: 'HUF' });
  });

  it('records a customer-return claim without a document', async () => {
    const account = anAccount('carrier_a');
    const adapter = new CarrierAAdapter({ baseUrl: sandboxUrl(), timeoutMs: 2000 });
    const packet = await adapter.createShipment(account, aShipmentRequest());
    const claim = await adapter.createClaim(account, {
      reference: 'claim-1',
      orderName: '#1001',
      originalShipmentId: packet.shipmentId,
      email: 'jana@example.com',
      phone: '+420600111222',
      value: { amount: '100.00', currency: 'CZK' },
      consignCountry: 'CZ',
    });
    expect(claim.claimId).not.toBe(packet.shipmentId);
    const entries = await ledger(account.accountId);
    expect(entries.map((e) => [e.kind, e.has_stored_pdf])).toEqual([
      ['shipment', true],
      ['claim', false],
    ]);
  });

  it('refuses a heavy parcel with weight_out_of_range and creates nothing', async () => {
    const account = anAccount('carrier_a');
    await expect(
      adapterFor(account).createShipment(account, aShipmentRequest({ weightGrams: 20_000 })),
    ).rejects.toMatchObject({ name: 'CarrierRejectedError', reason: 'weight_out_of_range' });
    expect(await ledger(account.accountId)).toEqual([]);
  });

  it('refuses a missing API key as credentials_invalid', async () => {
    const account = anAccount('carrier_a', { credentials: { apiKey: '' } });
    const error = await adapterFor(account)
      .createShipment(account, aShipmentRequest())
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CarrierRejectedError);
    expect(error).toMatchObject({ reason: 'credentials_invalid' });
  });
});

describe('sandbox carrier B', () => {
  const cod = { amount: '250.00', currency: 'CZK' };

  it('accepts a batch as pending and assigns the shipment number when the batch completes, in the printer size', async () => {
    const account = anAccount('carrier_b', { iban: 'CZ6508000000192000145399', printerType: 'thermal' });
    await control('PUT', `/_control/carrier-accounts/${account.accountId}/settings`, { batch_completion: 'manual' });
    const adapter = adapterFor(account);
    const created = await adapter.createShipment(
      account,
      aShipmentRequest({ serviceCode: 'b_standard', orderName: '#CZ-2024-0077', cod }),
    );
    expect(created).toMatchObject({ status: 'pending', trackingNumber: null, carrierReference: created.shipmentId });
    expect(await adapter.getShipment(account, created.shipmentId)).toMatchObject({ status: 'pending' });
    expect((await ledger(account.accountId))[0]).toMatchObject({
      status: 'pending',
      batch_id: created.shipmentId,
      extras: { variable_symbol: '20240077' },
    });

    const completed = await control(
      'POST',
      `/_control/carrier-accounts/${account.accountId}/batches/${created.shipmentId}/complete`,
    );
    expect(completed.status).toBe(200);
    const ready = await adapter.getShipment(account, created.shipmentId);
    expect(ready.status).toBe('ready');
    expect(ready.trackingNumber).toMatch(/^\d{12}$/);
    await expectPdf((await adapter.fetchLabel(account, created.shipmentId)).pdf, '10x15', 1);
  });

  it('completes by itself after the account delay, with an A6 label by default', async () => {
    const account = anAccount('carrier_b', { iban: 'CZ6508000000192000145399' });
    await control('PUT', `/_control/carrier-accounts/${account.accountId}/settings`, {
      batch_completion: 'auto',
      batch_delay_ms: 20,
    });
    const adapter = adapterFor(account);
    const created = await adapter.createShipment(account, aShipmentRequest({ serviceCode: 'b_standard' }));
    const ready = await eventually(async () => {
      const s = await adapter.getShipment(account, created.shipmentId);
      return s.status === 'ready' ? s : null;
    });
    await expectPdf((await adapter.fetchLabel(account, ready.shipmentId)).pdf, 'A6', 1);
  });

  it('refuses COD without a bank account', async () => {
    const account = anAccount('carrier_b');
    await expect(
      adapterFor(account).createShipment(account, aShipmentRequest({ serviceCode: 'b_standard', cod })),
    ).rejects.toMatchObject({ reason: 'other' });
    expect(await ledger(account.accountId)).toEqual([]);
  });

  it('rejects at import after accepting the batch (scripted)', async () => {
    const account = anAccount('carrier_b', { iban: 'CZ6508000000192000145399' });
    await control('PUT', `/_control/carrier-accounts/${account.accountId}/settings`, { batch_completion: 'manual' });
    await scriptFaults(account.accountId, [{ type: 'import_rejected' }]);
    const adapter = adapterFor(account);
    const created = await adapter.createShipment(account, aShipmentRequest({ serviceCode: 'b_standard' }));
    expect(created.status).toBe('pending');
    await control('POST', `/_control/carrier-accounts/${account.accountId}/batches/${created.shipmentId}/complete`);
    await expect(adapter.getShipment(account, created.shipmentId)).rejects.toBeInstanceOf(ImportRejectedError);
    expect((await ledger(account.accountId))[0]).toMatchObject({ status: 'import_rejected', tracking_number: null });
  });
});

describe('sandbox carrier C', () => {
  it('returns the 10.2x19.2 cm PDF with the shipment', async () => {
    const account = anAccount('carrier_c');
    const result = await adapterFor(account).createShipment(account, aShipmentRequest({ serviceCode: 'c_home' }));
    expect(result.document).toMatchObject({ pageSize: '10.2x19.2', pages: 1 });
    await expectPdf(result.document!.pdf, '10.2x19.2', 1, result.trackingNumber!);
  });

  it('prints two pages for c_home_plus', async () => {
    const account = anAccount('carrier_c');
    const result = await adapterFor(account).createShipment(account, aShipmentRequest({ serviceCode: 'c_home_plus' }));
    await expectPdf(result.document!.pdf, '10.2x19.2', 2);
  });

  it('delivers c_pickup to a pickup point in 10x15 cm, needing the phone', async () => {
    const account = anAccount('carrier_c');
    const adapter = adapterFor(account);
    const pickupPoint = { id: 'CZ10001', country: 'CZ' };
    await expect(adapter.createShipment(account, aShipmentRequest({ serviceCode: 'c_pickup' }))).rejects.toMatchObject({
      reason: 'pickup_point_invalid',
    });
    await expect(
      adapter.createShipment(account, aShipmentRequest({ serviceCode: 'c_pickup', pickupPoint, phone: null })),
    ).rejects.toMatchObject({ reason: 'address_invalid' });
    const result = await adapter.createShipment(account, aShipmentRequest({ serviceCode: 'c_pickup', pickupPoint }));
    await expectPdf(result.document!.pdf, '10x15', 1);
    expect(await ledger(account.accountId)).toHaveLength(1);
  });
});

describe('sandbox carrier D', () => {
  it('creates and prints a parcel on a 101x160 mm roll', async () => {
    const account = anAccount('carrier_d');
    const result = await adapterFor(account).createShipment(account, aShipmentRequest({ serviceCode: 'd_home' }));
    expect(result.status).toBe('ready');
    await expectPdf(result.document!.pdf, 'roll_101x160', 1);
    expect((await ledger(account.accountId))[0]).toMatchObject({ status: 'ready', shipment_id: result.shipmentId });
  });

  it('validates the e-mail and refuses COD to a foreign pickup point', async () => {
    const account = anAccount('carrier_d');
    const adapter = adapterFor(account);
    await expect(
      adapter.createShipment(account, aShipmentRequest({ serviceCode: 'd_home', email: 'not-an-email' })),
    ).rejects.toMatchObject({ reason: 'address_invalid' });
    await expect(
      adapter.createShipment(
        account,
        aShipmentRequest({
          serviceCode: 'd_pickup',
          pickupPoint: { id: 'KM10000075', country: 'SK' },
          cod: { amount: '10.00', currency: 'EUR' },
        }),
      ),
    ).rejects.toMatchObject({ reason: 'pickup_point_invalid' });
    expect(await ledger(account.accountId)).toEqual([]);
  });
});

describe('sandbox carriers E to H and excluded', () => {
  it('carrier E renders on demand in the portal size without side effects', async () => {
    const account = anAccount('carrier_e', { portalLabelSize: '10x15' });
    const adapter = adapterFor(account);
    const result = await adapter.createShipment(account, aShipmentRequest({ serviceCode: 'standard' }));
    expect(result.document).toBeNull();
    const first = await adapter.fetchLabel(account, result.shipmentId);
    const second = await adapter.fetchLabel(account, result.shipmentId);
    await expectPdf(first.pdf, '10x15', 1);
    await expectPdf(second.pdf, '10x15', 1);
    expect(await ledger(account.accountId)).toEqual([
      expect.objectContaining({ status: 'ready', label_calls: 2, has_stored_pdf: false }),
    ]);
  });

  it.each([
    ['carrier_f', 'A6'],
    ['carrier_g', 'A6'],
    ['carrier_h', '10x15'],
  ] as const)('%s hands the label out once and cannot reissue it', async (code, size) => {
    const account = anAccount(code);
    const adapter = adapterFor(account);
    const result = await adapter.createShipment(account, aShipmentRequest({ serviceCode: 'standard' }));
    await expectPdf(result.document!.pdf, size, 1);
    await expect(adapter.fetchLabel(account, result.shipmentId)).rejects.toBeInstanceOf(LabelNotReissuableError);
  });

  it.each([
    'excluded_manifest',
    'excluded_image',
    'excluded_regional_1',
    'excluded_regional_2',
    'excluded_regional_3',
    'excluded_regional_4',
  ])('%s creates shipments but never serves documents', async (code) => {
    const account = anAccount(code);
    const adapter = adapterFor(account);
    const result = await adapter.createShipment(account, aShipmentRequest({ serviceCode: 'standard' }));
    expect(result.document).toBeNull();
    await expect(adapter.fetchLabel(account, result.shipmentId)).rejects.toBeInstanceOf(DocumentNotSupportedError);
    expect(await ledger(account.accountId)).toHaveLength(1);
  });

  it('serves an older batch file holding several labels (not isolated)', async () => {
    const account = anAccount('carrier_a');
    const created = await control('POST', '/_control/legacy-batch-files', {
      carrier_code: 'carrier_a',
      carrier_account_id: account.accountId,
      tracking_numbers: ['Z1', 'Z2', 'Z3'],
    });
    expect(created.status).toBe(201);
    const response = await fetch(`${sandboxUrl()}${created.body.url}`);
    expect(response.status).toBe(200);
    await expectPdf(Buffer.from(await response.arrayBuffer()), 'A6', 3);
  });
});

import {
  CARRIER_REJECTION_REASONS,
  CarrierRejectedError,
  CarrierTimeoutError,
  CarrierUnavailableError,
} from '../../src/carriers/port';
import {
  adapterFor,
  anAccount,
  aShipmentRequest,
  control,
  eventually,
  FAULT_HOLD_MS,
  FAULT_TIMEOUT_MS,
  ledger,
  scriptFaults,
} from '../helpers/sandbox';

// Scripted timeouts hold the connection for 1 s by default; adapters here give up after 300 ms, so the outcome of
// the create is unknown to the caller and only the ledger tells whether the shipment exists.
describe('scripted carrier faults', () => {
  it('timeout with the shipment created: the caller sees a timeout, the ledger one shipment, a lookup finds it', async () => {
    const account = anAccount('carrier_a');
    await scriptFaults(account.accountId, [{ type: 'timeout_created', hold_ms: FAULT_HOLD_MS }]);
    const adapter = adapterFor(account);
    const request = aShipmentRequest();
    await expect(adapterFor(account, FAULT_TIMEOUT_MS).createShipment(account, request)).rejects.toBeInstanceOf(
      CarrierTimeoutError,
    );
    expect(await ledger(account.accountId)).toEqual([
      expect.objectContaining({ reference: request.reference, status: 'ready' }),
    ]);
    expect(await adapter.findShipmentByReference(account, request.reference)).toMatchObject({ status: 'ready' });
  });

  it('timeout without the shipment: nothing in the ledger, and the next call goes through', async () => {
    const account = anAccount('carrier_c');
    await scriptFaults(account.accountId, [{ type: 'timeout_not_created', hold_ms: FAULT_HOLD_MS }]);
    const adapter = adapterFor(account);
    const request = aShipmentRequest({ serviceCode: 'c_home' });
    await expect(adapterFor(account, FAULT_TIMEOUT_MS).createShipment(account, request)).rejects.toBeInstanceOf(
      CarrierTimeoutError,
    );
    expect(await ledger(account.accountId)).toEqual([]);
    expect(await adapter.findShipmentByReference(account, request.reference)).toBeNull();
    await adapter.createShipment(account, request);
    expect(await ledger(account.accountId)).toHaveLength(1);
  });

  it('late acceptance: the shipment appears after the timed-out call', async () => {
    const account = anAccount('carrier_a');
    await scriptFaults(account.accountId, [{ type: 'late_acceptance', hold_ms: FAULT_HOLD_MS, accept_after_ms: 50 }]);
    const adapter = adapterFor(account);
    const request = aShipmentRequest();
    await expect(adapterFor(account, FAULT_TIMEOUT_MS).createShipment(account, request)).rejects.toBeInstanceOf(
      CarrierTimeoutError,
    );
    const found = await eventually(() => adapter.findShipmentByReference(account, request.reference));
    expect(found.status).toBe('ready');
    expect(await ledger(account.accountId)).toHaveLength(1);
  });

  it('5xx for the next N calls, then normal answers', async () => {
    const account = anAccount('carrier_a');
    await scriptFaults(account.accountId, [{ type: 'server_error', times: 2 }]);
    const adapter = adapterFor(account);
    for (let i = 0; i < 2; i += 1) {
      await expect(adapter.createShipment(account, aShipmentRequest())).rejects.toMatchObject({
        name: 'CarrierUnavailableError',
        reason: 'carrier_error',
        status: 500,
      });
    }
    await adapter.createShipment(account, aShipmentRequest());
    expect(await ledger(account.accountId)).toHaveLength(1);
  });

  it.each(['carrier_a', 'carrier_b', 'carrier_c', 'carrier_d', 'carrier_e'])(
    '%s: a scripted refusal with each reason maps back to that reason',
    async (code) => {
      const account = anAccount(code, { iban: 'CZ6508000000192000145399' });
      await scriptFaults(
        account.accountId,
        CARRIER_REJECTION_REASONS.map((reason) => ({ type: 'reject', reason, message: `carrier text for ${reason}` })),
      );
      const service = {
        carrier_a: 'a_home',
        carrier_b: 'b_standard',
        carrier_c: 'c_home',
        carrier_d: 'd_home',
        carrier_e: 'standard',
      }[code]!;
      const adapter = adapterFor(account);
      for (const reason of CARRIER_REJECTION_REASONS) {
        const error = await adapter
          .createShipment(account, aShipmentRequest({ serviceCode: service }))
          .catch((e: unknown) => e);
        expect(error).toBeInstanceOf(CarrierRejectedError);
        expect(error).toMatchObject({ reason, carrierText: `carrier text for ${reason}` });
      }
      expect(await ledger(account.accountId)).toEqual([]);
    },
  );

  it('a slow answer still succeeds when the caller waits long enough', async () => {
    const account = anAccount('carrier_a');
    await scriptFaults(account.accountId, [{ type: 'slow', delay_ms: 100 }]);
    const result = await adapterFor(account, 5_000).createShipment(account, aShipmentRequest());
    expect(result.status).toBe('ready');
  });

  it('a slow answer past the caller timeout is a timeout, and the shipment exists', async () => {
    const account = anAccount('carrier_a');
    await scriptFaults(account.accountId, [{ type: 'slow', delay_ms: 600 }]);
    await expect(adapterFor(account, 100).createShipment(account, aShipmentRequest())).rejects.toBeInstanceOf(
      CarrierTimeoutError,
    );
    await eventually(async () => ((await ledger(account.accountId)).length === 1 ? true : null));
  });

  it('carrier D: an unclear create leaves an unprinted draft behind', async () => {
    const account = anAccount('carrier_d');
    await scriptFaults(account.accountId, [{ type: 'draft_left', hold_ms: FAULT_HOLD_MS }]);
    const adapter = adapterFor(account);
    const request = aShipmentRequest({ serviceCode: 'd_home' });
    await expect(adapterFor(account, FAULT_TIMEOUT_MS).createShipment(account, request)).rejects.toBeInstanceOf(
      CarrierTimeoutError,
    );
    expect(await ledger(account.accountId)).toEqual([
      expect.objectContaining({ status: 'draft', has_stored_pdf: false }),
    ]);
    const draft = await adapter.findShipmentByReference(account, request.reference);
    expect(draft).toMatchObject({ status: 'draft', trackingNumber: null });
    // Printing the draft turns it into the shipment.
    const label = await adapter.fetchLabel(account, draft!.shipmentId);
    expect(label.pageSize).toBe('roll_101x160');
    expect((await ledger(account.accountId))[0]).toMatchObject({ status: 'ready' });
  });

  it('render errors on the label call of carrier A and carrier E', async () => {
    for (const [code, service] of [
      ['carrier_a', 'a_home'],
      ['carrier_e', 'standard'],
    ] as const) {
      const account = anAccount(code);
      const adapter = adapterFor(account);
      const created = await adapter.createShipment(account, aShipmentRequest({ serviceCode: service }));
      await scriptFaults(account.accountId, [{ type: 'render_error' }]);
      const error = await adapter.fetchLabel(account, created.shipmentId).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(CarrierUnavailableError);
      expect(error).toMatchObject({ reason: 'render_error' });
      expect((await adapter.fetchLabel(account, created.shipmentId)).pages).toBe(1);
    }
  });

  it('refuses a fault for an account its carriers do not have, naming those they have', async () => {
    const used = anAccount('carrier_a');
    await adapterFor(used).createShipment(used, aShipmentRequest());
    const mistyped = `${used.accountId}_typo`;
    const refused = await control('POST', `/_control/carrier-accounts/${mistyped}/faults`, {
      faults: [{ type: 'timeout_not_created' }],
    });
    expect(refused.status).toBe(404);
    expect(refused.body).toMatchObject({ error: 'unknown_carrier_account' });
    expect(refused.body.message).toContain(mistyped);
    // The sandbox is shared by the run's tests: the known accounts named are the first ones, sorted.
    expect(refused.body.known_carrier_account_ids.length).toBeGreaterThan(0);
    expect((await control('GET', `/_control/carrier-accounts/${mistyped}/faults`)).body.faults).toEqual([]);
    expect(
      (await control('POST', `/_control/carrier-accounts/${mistyped}/faults`, { faults: [{ type: 'slow' }] })).status,
    ).toBe(404);
    // Registered, or used in a carrier call, an account takes faults; a reset forgets its data, not the account.
    expect((await control('PUT', `/_control/carrier-accounts/${mistyped}`, {})).status).toBe(201);
    expect((await control('PUT', `/_control/carrier-accounts/${mistyped}`, {})).status).toBe(200);
    for (const id of [mistyped, used.accountId]) {
      expect((await control('POST', `/_control/carrier-accounts/${id}/reset`)).status).toBe(200);
      const scripted = await control('POST', `/_control/carrier-accounts/${id}/faults`, { faults: [{ type: 'slow' }] });
      expect([id, scripted.status]).toEqual([id, 201]);
    }
  });

  it('lists, clears and refuses malformed faults; reset clears the ledger of that account only', async () => {
    const account = anAccount('carrier_a');
    const other = anAccount('carrier_a');
    await scriptFaults(account.accountId, [{ type: 'server_error', times: 3 }]);
    expect((await control('GET', `/_control/carrier-accounts/${account.accountId}/faults`)).body.faults).toEqual([
      expect.objectContaining({ type: 'server_error', remaining: 3, operation: 'create' }),
    ]);
    expect(
      (
        await control('POST', `/_control/carrier-accounts/${account.accountId}/faults`, {
          faults: [{ type: 'reject' }],
        })
      ).status,
    ).toBe(400);
    expect((await control('DELETE', `/_control/carrier-accounts/${account.accountId}/faults`)).body.faults).toEqual([]);
    await adapterFor(account).createShipment(account, aShipmentRequest());
    await adapterFor(other).createShipment(other, aShipmentRequest());
    expect((await control('POST', `/_control/carrier-accounts/${account.accountId}/reset`)).status).toBe(200);
    expect(await ledger(account.accountId)).toEqual([]);
    expect(await ledger(other.accountId)).toHaveLength(1);
  });
});

import { z } from 'zod';
import { BadRequest, json, type Router } from '../../sandbox/http';
import type { SimulatorContext } from './engine';
import { faultToWire, scriptFaultsBodySchema, withDefaultOperation } from './faults';
import { ledgerEntryToWire } from './state';

const settingsSchema = z
  .object({
    batch_completion: z.enum(['auto', 'manual']).optional(),
    batch_delay_ms: z.number().int().min(0).max(600_000).optional(),
  })
  .strict();

/** Control API of the simulated carriers: scripted faults, account settings, the ledger, and reset. */
export function registerCarrierControl(router: Router, ctx: SimulatorContext): void {
  const base = '/_control/carrier-accounts/:account';
  router.add('POST', `${base}/faults`, async (request) => {
    const parsed = scriptFaultsBodySchema.safeParse(request.body);
    if (!parsed.success) throw new BadRequest('faults body is invalid', parsed.error.issues);
    const queue = ctx.state.account(request.params.account!).faults;
    queue.push(...parsed.data.faults.map(withDefaultOperation));
    return json(201, { carrier_account_id: request.params.account, faults: queue.map(faultToWire) });
  });
  router.add('GET', `${base}/faults`, async (request) =>
    json(200, {
      carrier_account_id: request.params.account,
      faults: ctx.state.account(request.params.account!).faults.map(faultToWire),
    }),
  );
  router.add('DELETE', `${base}/faults`, async (request) => {
    ctx.state.account(request.params.account!).faults.length = 0;
    return json(200, { carrier_account_id: request.params.account, faults: [] });
  });
  router.add('PUT', `${base}/settings`, async (request) => {
    const parsed = settingsSchema.safeParse(request.body ?? {});
    if (!parsed.success) throw new BadRequest('settings body is invalid', parsed.error.issues);
    const account = ctx.state.account(request.params.account!);
    if (parsed.data.batch_completion) account.batchCompletion = parsed.data.batch_completion;
    if (parsed.data.batch_delay_ms !== undefined) account.batchDelayMs = parsed.data.batch_delay_ms;
    return json(200, {
      carrier_account_id: request.params.account,
      batch_completion: account.batchCompletion,
      batch_delay_ms: account.batchDelayMs,
    });
  });
  router.add('POST', `${base}/reset`, async (request) => {
    ctx.state.reset(request.params.account!);
    return json(200, { carrier_account_id: request.params.account, reset: true });
  });
  router.add('GET', '/_control/ledger', async (request) => {
    const accountId = request.query.get('carrier_account_id');
    const carrierCode = request.query.get('carrier_code');
    const reference = request.query.get('reference');
    const shipments = ctx.state
      .ledger({ accountId, carrierCode })
      .filter((s) => !reference || s.reference === reference);
    return json(200, { shipments: shipments.map(ledgerEntryToWire) });
  });
}

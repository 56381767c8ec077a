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

/** At most this many known account IDs are named in the refusal of a fault for an unknown one. */
const KNOWN_ACCOUNTS_SHOWN = 20;

/**
 * A fault for an account the sandbox's carriers do not have would wait for a call that never comes (a mistyped
 * `ca_demo` for `ca_demo_a`): refused with the accounts it has (decision 0038).
 */
function unknownAccount(ctx: SimulatorContext, accountId: string) {
  const known = ctx.state.knownAccounts();
  const shown = known.slice(0, KNOWN_ACCOUNTS_SHOWN);
  const more = known.length > shown.length ? ` and ${known.length - shown.length} more` : '';
  return json(404, {
    error: 'unknown_carrier_account',
    message:
      `the sandbox has no carrier account ${accountId}; it has ${shown.join(', ') || 'none yet'}${more}. ` +
      'Accounts are known once loaded from a fixture, used in a carrier call, or registered with PUT ' +
      '/_control/carrier-accounts/{carrier_account_id}.',
    known_carrier_account_ids: shown,
  });
}

/** Control API of the simulated carriers: accounts, scripted faults, account settings, the ledger, and reset. */
export function registerCarrierControl(router: Router, ctx: SimulatorContext): void {
  const base = '/_control/carrier-accounts/:account';
  router.add('PUT', base, async (request) => {
    const existed = ctx.state.knows(request.params.account!);
    ctx.state.account(request.params.account!);
    return json(existed ? 200 : 201, { carrier_account_id: request.params.account });
  });
  router.add('POST', `${base}/faults`, async (request) => {
    const parsed = scriptFaultsBodySchema.safeParse(request.body);
    if (!parsed.success) throw new BadRequest('faults body is invalid', parsed.error.issues);
    if (!ctx.state.knows(request.params.account!)) return unknownAccount(ctx, request.params.account!);
    const queue = ctx.state.account(request.params.account!).faults;
    queue.push(...parsed.data.faults.map(withDefaultOperation));
    return json(201, { carrier_account_id: request.params.account, faults: queue.map(faultToWire) });
  });
  router.add('GET', `${base}/faults`, async (request) =>
    json(200, {
      carrier_account_id: request.params.account,
      faults: ctx.state.queuedFaults(request.params.account!).map(faultToWire),
    }),
  );
  router.add('DELETE', `${base}/faults`, async (request) => {
    ctx.state.queuedFaults(request.params.account!).length = 0;
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

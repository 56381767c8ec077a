import type { Command } from 'commander';
import { createCarrierProtection } from '../creation/carrier-protection';
import { isoSecondsOrNull } from '../domain/wire-format';
import type { CliKitWithOrm } from './kit';

/** `labelctl carrier-protection ...`: the circuits and refusal counts of a store's carrier accounts, and forgetting them. */
export function registerCarrierProtectionCommands(program: Command, kit: CliKitWithOrm): void {
  const protection = program
    .command('carrier-protection')
    .description('carrier protection of a store’s carrier accounts: open circuits and recent refusals');
  const protectionOf = async () =>
    createCarrierProtection({
      orm: await kit.orm(),
      now: () => new Date(),
      settings: kit.config().carrierProtection,
    });
  protection
    .command('show <store>')
    .description('each carrier account with recent carrier outcomes: unclear results in a row, circuit, refusals')
    .action(async (ref: string) => {
      const storeId = await kit.withOrm(async (em) => (await kit.findStore(em, ref)).id);
      const rows = (await (await protectionOf()).status(storeId)).map((a) => ({
        carrier_account_id: a.carrierAccountId,
        circuit: a.circuitOpenUntil ? 'open' : 'closed',
        open_until: isoSecondsOrNull(a.circuitOpenUntil),
        unclear_in_a_row: a.unclearInARow,
        last_unclear_at: isoSecondsOrNull(a.lastUnclearAt),
        recent_refusals: a.recentRefusals,
        last_accepted_at: isoSecondsOrNull(a.lastAcceptedAt),
      }));
      kit.print(rows, () =>
        kit.table(rows, [
          'carrier_account_id',
          'circuit',
          'open_until',
          'unclear_in_a_row',
          'last_unclear_at',
          'recent_refusals',
          'last_accepted_at',
        ]),
      );
    });
  protection
    .command('reset <store>')
    .description(
      'forget the recorded carrier outcomes (circuits close, refusal counts restart) of the store, or of one account',
    )
    .option('--account <carrier_account_id>', 'only this carrier account')
    .action(async (ref: string, opts: { account?: string }) => {
      const storeId = await kit.withOrm(async (em) => (await kit.findStore(em, ref)).id);
      const forgotten = await (await protectionOf()).reset(storeId, opts.account);
      const row = { store_id: storeId, carrier_account_id: opts.account ?? null, forgotten_outcomes: forgotten };
      kit.print(
        row,
        () => `${storeId}: forgot ${forgotten} carrier outcomes${opts.account ? ` of ${opts.account}` : ''}`,
      );
    });
}

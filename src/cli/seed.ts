import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { CliError, type CliKitWithOrm, type Row } from './kit';

/** The fixture file as JSON, or a one-line refusal naming it. */
function readJson(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new CliError(`cannot read ${file} as JSON: ${(error as Error).message}`);
  }
}

/** `labelctl seed <file>`: a fixture (docs/sandbox.md) loaded idempotently, never into production by accident. */
export function registerSeedCommand(program: Command, kit: CliKitWithOrm): void {
  program
    .command('seed <file>')
    .description(
      'load a fixture (docs/sandbox.md) idempotently: store, keys, carrier accounts, rules, sandbox orders, labels',
    )
    .option('--force', 'load it even with NODE_ENV=production')
    .action(async (file: string, opts: { force?: boolean }) => {
      const { env, sandboxUrl } = kit.config();
      // A fixture brings demo keys and sandbox carrier accounts: never into production by accident.
      if (env === 'production' && !opts.force)
        throw new CliError('refusing to seed with NODE_ENV=production (demo keys and sandbox accounts); add --force');
      const input = readJson(file);
      // Loaded by the commands that use them (PDF rendering, the carrier adapters): every other one starts faster.
      const [{ loadFixture }, { composeAdapters }] = await Promise.all([
        import('../fixtures/load-fixture.js'),
        import('../adapters.js'),
      ]);
      const orm = await kit.orm();
      const result = await loadFixture(
        { orm, now: new Date(), sandboxUrl, carrierFor: composeAdapters(kit.config(), orm).carrierFor },
        input,
      );
      kit.print(result as unknown as Row, () =>
        [
          `loaded ${file} into ${result.domain} (${result.store_id})`,
          `created: ${result.created.labels} labels, ${result.created.carrier_accounts} carrier accounts, ${result.created.api_keys} keys`,
          `already there: ${result.unchanged.labels} labels, ${result.unchanged.carrier_accounts} carrier accounts, ${result.unchanged.api_keys} keys`,
        ].join('\n'),
      );
    });
}

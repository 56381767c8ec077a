import { Option, type Command } from 'commander';
import type { StoreGates } from '../access/stores';
import { createStore, setStoreGates } from '../access/stores';
import { Store } from '../db/entities/store';
import { bool, CliError, type CliKitWithOrm, type Row } from './kit';
import { registerStorePlatformCommands, registerTokenMigrationCommand } from './store-platform';
import { registerStorePrivacyCommands } from './store-privacy';

const storeRow = (s: Store): Row => ({
  id: s.id,
  name: s.name,
  domain: s.domain,
  email: s.email,
  app_installed: s.appInstalled,
  api_enabled: s.apiEnabled,
  paused_by_support: s.pausedBySupport,
  subscription_active: s.subscriptionActive,
  free_access: s.freeAccess,
  write_access: s.writeAccess,
});

const GATE_OPTIONS: Array<[keyof StoreGates, string, string]> = [
  ['appInstalled', '--app-installed <bool>', 'the app is installed'],
  ['apiEnabled', '--api-enabled <bool>', 'the merchant enabled the API'],
  ['pausedBySupport', '--paused <bool>', 'support paused API access'],
  ['subscriptionActive', '--subscription <bool>', 'an active subscription'],
  ['freeAccess', '--free-access <bool>', 'free access instead of a subscription'],
  ['writeAccess', '--write-access <bool>', 'write endpoints allowed'],
];

const addGateOptions = (command: Command): void => {
  for (const [, flag, help] of GATE_OPTIONS) command.addOption(new Option(flag, help).argParser(bool));
};

/** Gate changes named on the command line, keyed by the store's gate names. */
function gateChanges(opts: Record<string, unknown>): Partial<StoreGates> {
  const changes: Partial<StoreGates> = {};
  for (const [gate, flag] of GATE_OPTIONS) {
    const value = opts[new Option(flag).attributeName()];
    if (typeof value === 'boolean') changes[gate] = value;
  }
  return changes;
}

/** `labelctl store ...`: stores, their gates, and their connection to a store platform. */
export function registerStoreCommands(program: Command, kit: CliKitWithOrm): void {
  const store = program.command('store').description('stores and their gates');
  const create = store
    .command('create')
    .description('create a store (installed; other gates closed unless given)')
    .requiredOption('--name <name>')
    .requiredOption('--domain <domain>', 'store platform domain, e.g. my-shop.myshopify.com')
    .requiredOption('--email <email>', 'where key notifications go');
  addGateOptions(create);
  create.action(async (opts: Record<string, unknown>) => {
    const created = await kit.withOrm(async (em) => {
      if (await em.findOne(Store, { domain: opts.domain as string }))
        throw new CliError(`a store with domain ${String(opts.domain)} exists`);
      return createStore(
        em,
        { name: opts.name as string, domain: opts.domain as string, email: opts.email as string, ...gateChanges(opts) },
        new Date(),
      );
    });
    kit.print(storeRow(created), () => `created store ${created.id} (${created.domain})`);
  });

  store
    .command('list')
    .description('list stores')
    .action(async () => {
      const rows = await kit.withOrm(async (em) =>
        (await em.find(Store, {}, { orderBy: { createdAt: 'asc', seq: 'asc' } })).map(storeRow),
      );
      kit.print(rows, () =>
        kit.table(rows, [
          'id',
          'domain',
          'api_enabled',
          'paused_by_support',
          'subscription_active',
          'free_access',
          'write_access',
        ]),
      );
    });

  store
    .command('show <store>')
    .description('show a store and its gates (ID or domain)')
    .action(async (ref: string) => {
      const row = await kit.withOrm(async (em) => storeRow(await kit.findStore(em, ref)));
      kit.print(row, () =>
        Object.entries(row)
          .map(([k, v]) => `${k}: ${String(v)}`)
          .join('\n'),
      );
    });

  const gates = store.command('gates <store>').description('set gates of a store (ID or domain)');
  addGateOptions(gates);
  gates.action(async (ref: string, opts: Record<string, unknown>) => {
    const changes = gateChanges(opts);
    if (Object.keys(changes).length === 0) throw new CliError('name at least one gate, e.g. --api-enabled true');
    const row = await kit.withOrm(async (em) =>
      storeRow(await setStoreGates(em, (await kit.findStore(em, ref)).id, changes, new Date())),
    );
    kit.print(
      row,
      () =>
        `updated ${String(row.id)}: ${Object.entries(changes)
          .map(([k, v]) => `${k}=${String(v)}`)
          .join(', ')}`,
    );
  });

  registerStorePlatformCommands(store, kit);
  registerTokenMigrationCommand(store, kit);
  registerStorePrivacyCommands(store, kit);
}

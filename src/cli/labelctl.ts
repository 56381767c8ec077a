import { Command, CommanderError } from 'commander';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiKeyError } from '../access/api-keys';
import { ScopeError } from '../access/scopes';
import { loadConfig, type Config } from '../config';
import { openOrm, type Orm } from '../db/orm';
import { FixtureError } from '../fixtures/schema';
import { SealedHeadersError } from '../pickup-points/header-vault';
import { ProviderConfigError } from '../pickup-points/provider-config';
import { WebhookConfigError } from '../webhooks/endpoints';
import { LimitOverrideError } from '../limits/overrides';
import { LOCAL_SERVICE_FILE, labelctlEnvironment, packageRoot } from './local-service';
import { CliError, findStore, table, type CliKitWithOrm, type Row } from './kit';
import { registerStoreCommands } from './stores';
import { StorePlatformError } from './store-platform';
import { registerApiKeyCommands } from './api-keys';
import { registerCarrierAccountCommands } from './carrier-accounts';
import { registerLimitCommands } from './limits';
import { registerCarrierProtectionCommands } from './carrier-protection';
import { registerOutboxCommand } from './outbox';
import { registerSeedCommand } from './seed';
import { registerRequestLogCommand } from './request-log';
import { registerPickupPointCommands } from './pickup-points';
import { registerWebhookCommands } from './webhooks';
import { DemoError, registerDemoCommands } from './demo';
import { CreationNotFound, registerCreationCommands } from './creations';

/**
 * The operator CLI: the program and its options here, each group of commands in a module of its own that registers
 * them on the program with the kit it is lent (the database, output, store lookup). The groups come in the order of
 * `labelctl --help`.
 */
export function buildProgram(
  withOrm: <T>(fn: (em: EntityManager) => Promise<T>) => Promise<T>,
  ormHandle: () => Promise<Orm>,
  config: () => Config,
): Command {
  const program = new Command('labelctl')
    .description(
      'Operator CLI of the Shipping Label API: stores, gates, API keys, carrier accounts, rate limits, carrier protection, outbox, request log, pickup point providers, webhooks and label creations',
    )
    .option('--json', 'machine-readable output (one JSON document per line)')
    .exitOverride()
    .showHelpAfterError();
  const json = () => Boolean(program.opts<{ json?: boolean }>().json);
  const kit: CliKitWithOrm = {
    withOrm,
    orm: ormHandle,
    config,
    print: (value: Row | Row[], text: () => string) =>
      process.stdout.write(json() ? `${JSON.stringify(value)}\n` : `${text()}\n`),
    table,
    findStore,
  };

  registerStoreCommands(program, kit);
  registerApiKeyCommands(program, kit);
  registerCarrierAccountCommands(program, kit);
  registerLimitCommands(program, kit);
  registerCarrierProtectionCommands(program, kit);
  registerOutboxCommand(program, kit);
  registerSeedCommand(program, kit);
  registerRequestLogCommand(program, kit);
  registerPickupPointCommands(program, kit);
  registerWebhookCommands(program, kit);
  registerDemoCommands(program, kit);
  registerCreationCommands(program, kit);
  return program;
}

async function main(argv: string[]): Promise<number> {
  // Each variable as set, else what a running `npm run dev` or `npm run cluster` wrote (.data/local-service.env).
  const environment = labelctlEnvironment(process.env, packageRoot(__dirname));
  let loaded: Config | undefined;
  const config = (): Config => (loaded ??= loadConfig(environment));
  let orm: Orm | undefined;
  const ormHandle = async (): Promise<Orm> => (orm ??= await openOrm(config().databaseUrl));
  const withOrm = async <T>(fn: (em: EntityManager) => Promise<T>): Promise<T> => fn((await ormHandle()).em.fork());
  try {
    await buildProgram(withOrm, ormHandle, config).parseAsync(argv);
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2;
    if (error instanceof FixtureError) {
      // The summary line, then each problem with its path: the whole file can be fixed in one go.
      process.stderr.write(`labelctl: ${error.message}\n`);
      return 2;
    }
    const known =
      error instanceof CliError ||
      error instanceof ApiKeyError ||
      error instanceof ScopeError ||
      error instanceof ProviderConfigError ||
      error instanceof SealedHeadersError ||
      error instanceof LimitOverrideError ||
      error instanceof WebhookConfigError ||
      error instanceof StorePlatformError ||
      error instanceof CreationNotFound ||
      error instanceof DemoError;
    const message = known ? error.message : `unexpected error: ${(error as Error).message}`;
    // A dev run killed without its Ctrl-C leaves the file naming a server that is gone.
    const hint =
      environment.DATABASE_URL !== process.env.DATABASE_URL && /ECONNREFUSED/.test(message)
        ? ` (the database named in ${LOCAL_SERVICE_FILE}: is npm run dev or npm run cluster running?)`
        : '';
    process.stderr.write(`labelctl: ${message.split('\n')[0]}${hint}\n`);
    return 2;
  } finally {
    await orm?.close();
  }
}

/**
 * Exits once stdout and stderr have taken everything written: on a pipe (`labelctl --json creations list | jq`) Node
 * writes asynchronously, and `process.exit` at once cut a listing longer than the pipe's buffer.
 */
function exitWhenWritten(code: number): void {
  let open = 2;
  const written = () => {
    open -= 1;
    if (open === 0) process.exit(code);
  };
  process.stdout.write('', written);
  process.stderr.write('', written);
}

void main(process.argv).then(exitWhenWritten);

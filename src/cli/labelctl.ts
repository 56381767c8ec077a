import { readFileSync } from 'node:fs';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  ApiKeyError,
  createApiKey,
  isActive,
  revokeApiKey,
  rotateApiKey,
  ROTATION_OVERLAPS,
  type RotationOverlap,
} from '../access/api-keys';
import type { StoreGates } from '../access/stores';
import { ScopeError } from '../access/scopes';
import { createStore, setStoreGates } from '../access/stores';
import { loadConfig, type Config } from '../config';
import { ApiKey } from '../db/entities/api-key';
import { Notification } from '../db/entities/notification';
import { RequestLogEntry } from '../db/entities/request-log-entry';
import { Store } from '../db/entities/store';
import { openOrm, type Orm } from '../db/orm';
import { FixtureError } from '../fixtures/schema';
import { isoSeconds, isoSecondsOrNull } from '../domain/wire-format';
import { SealedHeadersError } from '../pickup-points/header-vault';
import { ProviderConfigError } from '../pickup-points/provider-config';
import { LOCAL_SERVICE_FILE, labelctlEnvironment, packageRoot } from './local-service';
import { DemoError, registerDemoCommands } from './demo';
import { registerPickupPointCommands } from './pickup-points';
import { createCarrierProtection } from '../creation/carrier-protection';
import { registerWebhookCommands } from './webhooks';
import { registerStorePlatformCommands, StorePlatformError } from './store-platform';
import { CreationNotFound, registerCreationCommands } from './creations';
import { WebhookConfigError } from '../webhooks/endpoints';
import { LimitOverrideError, resetLimitOverride, setLimitOverride, storeLimits } from '../limits/overrides';

/** A refusal the operator can act on: printed as one line, exit code 2. */
class CliError extends Error {}

type Output = { json: boolean };
type Row = Record<string, unknown>;

function print(out: Output, value: Row | Row[], text: () => string): void {
  process.stdout.write(out.json ? `${JSON.stringify(value)}\n` : `${text()}\n`);
}

const cell = (value: unknown): string =>
  value === null || value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value);

function table(rows: Row[], columns: string[]): string {
  if (rows.length === 0) return '(none)';
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => cell(r[c]).length)));
  const line = (cells: string[]) =>
    cells
      .map((text, i) => text.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [line(columns), ...rows.map((r) => line(columns.map((c) => cell(r[c]))))].join('\n');
}

const bool = (value: string): boolean => {
  if (['true', 'on', 'yes', '1'].includes(value)) return true;
  if (['false', 'off', 'no', '0'].includes(value)) return false;
  throw new InvalidArgumentError('expected true or false');
};
const positive = (value: string): number => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('expected a positive whole number');
  return n;
};

async function findStore(em: EntityManager, ref: string): Promise<Store> {
  const store = await em.findOne(Store, ref.startsWith('st_') ? { id: ref } : { domain: ref });
  if (!store) throw new CliError(`no store ${ref}`);
  return store;
}

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
const keyRow = (k: ApiKey, now: Date): Row => ({
  id: k.id,
  name: k.name,
  scopes: k.scopes.join(','),
  pinned_version: k.pinnedVersion,
  active: isActive(k, now),
  ending_in: k.secretLast4,
  created_at: isoSeconds(k.createdAt),
  expires_at: isoSecondsOrNull(k.expiresAt),
  revoked_at: isoSecondsOrNull(k.revokedAt),
  last_used_at: isoSecondsOrNull(k.lastUsedAt),
});

/** `sent`, `pending`, or for a mail whose sends failed: waiting for its next attempt after backoff. */
const outboxState = (r: Row): string => {
  if (r.sent_at) return 'sent';
  if (Number(r.attempts) === 0) return 'pending';
  return `waiting (${String(r.attempts)} failed, next ${String(r.next_attempt_at)}: ${String(r.last_error)})`;
};

const GATE_OPTIONS: Array<[keyof StoreGates, string, string]> = [
  ['appInstalled', '--app-installed <bool>', 'the app is installed'],
  ['apiEnabled', '--api-enabled <bool>', 'the merchant enabled the API'],
  ['pausedBySupport', '--paused <bool>', 'support paused API access'],
  ['subscriptionActive', '--subscription <bool>', 'an active subscription'],
  ['freeAccess', '--free-access <bool>', 'free access instead of a subscription'],
  ['writeAccess', '--write-access <bool>', 'write endpoints allowed'],
];

/** Gate changes named on the command line, keyed by the store's gate names. */
function gateChanges(opts: Record<string, unknown>): Partial<StoreGates> {
  const changes: Partial<StoreGates> = {};
  for (const [gate, flag] of GATE_OPTIONS) {
    const value = opts[new Option(flag).attributeName()];
    if (typeof value === 'boolean') changes[gate] = value;
  }
  return changes;
}

export function buildProgram(
  withOrm: <T>(fn: (em: EntityManager) => Promise<T>) => Promise<T>,
  ormHandle: () => Promise<Orm>,
  config: () => Config,
): Command {
  const program = new Command('labelctl')
    .description(
      'Operator CLI of the Shipping Label API: stores, gates, API keys, rate limits, carrier protection, outbox, request log, pickup point providers, webhooks and label creations',
    )
    .option('--json', 'machine-readable output (one JSON document per line)')
    .exitOverride()
    .showHelpAfterError();
  const out = (): Output => ({ json: Boolean(program.opts<{ json?: boolean }>().json) });

  const store = program.command('store').description('stores and their gates');
  const create = store
    .command('create')
    .description('create a store (installed; other gates closed unless given)')
    .requiredOption('--name <name>')
    .requiredOption('--domain <domain>', 'store platform domain, e.g. my-shop.myshopify.com')
    .requiredOption('--email <email>', 'where key notifications go');
  for (const [, flag, help] of GATE_OPTIONS) create.addOption(new Option(flag, help).argParser(bool));
  create.action(async (opts: Record<string, unknown>) => {
    const created = await withOrm(async (em) => {
      if (await em.findOne(Store, { domain: opts.domain as string }))
        throw new CliError(`a store with domain ${String(opts.domain)} exists`);
      return createStore(
        em,
        { name: opts.name as string, domain: opts.domain as string, email: opts.email as string, ...gateChanges(opts) },
        new Date(),
      );
    });
    print(out(), storeRow(created), () => `created store ${created.id} (${created.domain})`);
  });

  store
    .command('list')
    .description('list stores')
    .action(async () => {
      const rows = await withOrm(async (em) =>
        (await em.find(Store, {}, { orderBy: { createdAt: 'asc', seq: 'asc' } })).map(storeRow),
      );
      print(out(), rows, () =>
        table(rows, [
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
      const row = await withOrm(async (em) => storeRow(await findStore(em, ref)));
      print(out(), row, () =>
        Object.entries(row)
          .map(([k, v]) => `${k}: ${String(v)}`)
          .join('\n'),
      );
    });

  const gates = store.command('gates <store>').description('set gates of a store (ID or domain)');
  for (const [, flag, help] of GATE_OPTIONS) gates.addOption(new Option(flag, help).argParser(bool));
  gates.action(async (ref: string, opts: Record<string, unknown>) => {
    const changes = gateChanges(opts);
    if (Object.keys(changes).length === 0) throw new CliError('name at least one gate, e.g. --api-enabled true');
    const row = await withOrm(async (em) =>
      storeRow(await setStoreGates(em, (await findStore(em, ref)).id, changes, new Date())),
    );
    print(
      out(),
      row,
      () =>
        `updated ${String(row.id)}: ${Object.entries(changes)
          .map(([k, v]) => `${k}=${String(v)}`)
          .join(', ')}`,
    );
  });

  registerStorePlatformCommands(store, {
    withOrm,
    config,
    print: (value, text) => print(out(), value, text),
    table,
    findStore,
  });

  const key = program.command('key').description('API keys');
  key
    .command('create <store>')
    .description('create a key; the secret is printed once and never stored')
    .requiredOption('--name <name>')
    .option('--scope <scope...>', 'scopes besides the read scopes every key has', [])
    .action(async (ref: string, opts: { name: string; scope: string[] }) => {
      const { key: created, secret } = await withOrm(async (em) =>
        createApiKey(em, {
          storeId: (await findStore(em, ref)).id,
          name: opts.name,
          scopes: opts.scope,
          now: new Date(),
        }),
      );
      const row = { ...keyRow(created, new Date()), secret };
      print(out(), row, () => `created ${created.id} (${created.scopes.join(', ')})\nsecret (shown once): ${secret}`);
    });

  key
    .command('list <store>')
    .description('list the keys of a store')
    .action(async (ref: string) => {
      const now = new Date();
      const rows = await withOrm(async (em) =>
        (
          await em.find(
            ApiKey,
            { storeId: (await findStore(em, ref)).id },
            { orderBy: { createdAt: 'asc', seq: 'asc' } },
          )
        ).map((k) => keyRow(k, now)),
      );
      print(out(), rows, () =>
        table(rows, ['id', 'name', 'active', 'ending_in', 'scopes', 'expires_at', 'revoked_at', 'last_used_at']),
      );
    });

  key
    .command('rotate <store> <key>')
    .description('create a new key with the same name and scopes; the old one works for the overlap')
    .addOption(
      new Option('--overlap <overlap>', 'how long the old key keeps working')
        .choices(Object.keys(ROTATION_OVERLAPS))
        .default('24h'),
    )
    .action(async (ref: string, keyId: string, opts: { overlap: RotationOverlap }) => {
      const rotated = await withOrm(async (em) =>
        rotateApiKey(em, { storeId: (await findStore(em, ref)).id, keyId, overlap: opts.overlap, now: new Date() }),
      );
      const row = {
        ...keyRow(rotated.key, new Date()),
        secret: rotated.secret,
        previous: keyRow(rotated.previous, new Date()),
      };
      print(out(), row, () =>
        [
          `rotated ${rotated.previous.id} -> ${rotated.key.id}`,
          `old key works until ${isoSecondsOrNull(rotated.previous.expiresAt) ?? 'now'}`,
          `secret (shown once): ${rotated.secret}`,
        ].join('\n'),
      );
    });

  key
    .command('revoke <store> <key>')
    .description('stop a key at once')
    .action(async (ref: string, keyId: string) => {
      const revoked = await withOrm(async (em) =>
        revokeApiKey(em, { storeId: (await findStore(em, ref)).id, keyId, now: new Date() }),
      );
      print(out(), keyRow(revoked, new Date()), () => `revoked ${revoked.id}`);
    });

  const limits = program
    .command('limits')
    .description("a store's rate limits: the spec's, support's overrides, and the limits in force");
  limits
    .command('show <store>')
    .description('every bucket of the store (ID or domain)')
    .action(async (ref: string) => {
      const rows = await withOrm(async (em) =>
        (await storeLimits(em, (await findStore(em, ref)).id)).map((l) => ({
          bucket: l.bucket,
          scope: l.scope,
          window_seconds: l.windowSeconds,
          default: l.defaultLimit,
          override: l.override,
          limit: l.limit,
        })),
      );
      print(out(), rows, () => table(rows, ['bucket', 'scope', 'window_seconds', 'default', 'override', 'limit']));
    });
  limits
    .command('set <store> <bucket> <limit>')
    .description('set the store’s limit of a bucket (a key bucket: for every key); applies at once in every process')
    .action(async (ref: string, bucket: string, limit: string) => {
      const row = await withOrm(async (em) => {
        const storeId = (await findStore(em, ref)).id;
        await setLimitOverride(em, { storeId, bucket, limit: Number(limit), now: new Date() });
        return { store_id: storeId, bucket, limit: Number(limit) };
      });
      print(out(), row, () => `${row.store_id}: ${bucket} limit ${row.limit}`);
    });
  limits
    .command('reset <store> <bucket>')
    .description('back to the spec’s limit of the bucket')
    .action(async (ref: string, bucket: string) => {
      const row = await withOrm(async (em) => {
        const storeId = (await findStore(em, ref)).id;
        return { store_id: storeId, bucket, had_override: await resetLimitOverride(em, { storeId, bucket }) };
      });
      print(out(), row, () =>
        row.had_override
          ? `${row.store_id}: ${bucket} back to the spec's limit`
          : `${row.store_id}: ${bucket} had no override`,
      );
    });

  const protection = program
    .command('carrier-protection')
    .description('carrier protection of a store’s carrier accounts: open circuits and recent refusals');
  const protectionOf = async () =>
    createCarrierProtection({
      orm: await ormHandle(),
      now: () => new Date(),
      settings: config().carrierProtection,
    });
  protection
    .command('show <store>')
    .description('each carrier account with recent carrier outcomes: unclear results in a row, circuit, refusals')
    .action(async (ref: string) => {
      const storeId = await withOrm(async (em) => (await findStore(em, ref)).id);
      const rows = (await (await protectionOf()).status(storeId)).map((a) => ({
        carrier_account_id: a.carrierAccountId,
        circuit: a.circuitOpenUntil ? 'open' : 'closed',
        open_until: isoSecondsOrNull(a.circuitOpenUntil),
        unclear_in_a_row: a.unclearInARow,
        last_unclear_at: isoSecondsOrNull(a.lastUnclearAt),
        recent_refusals: a.recentRefusals,
        last_accepted_at: isoSecondsOrNull(a.lastAcceptedAt),
      }));
      print(out(), rows, () =>
        table(rows, [
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
      const storeId = await withOrm(async (em) => (await findStore(em, ref)).id);
      const forgotten = await (await protectionOf()).reset(storeId, opts.account);
      const row = { store_id: storeId, carrier_account_id: opts.account ?? null, forgotten_outcomes: forgotten };
      print(
        out(),
        row,
        () => `${storeId}: forgot ${forgotten} carrier outcomes${opts.account ? ` of ${opts.account}` : ''}`,
      );
    });

  program
    .command('outbox')
    .description('notification e-mails, newest first (in development nothing is sent without SMTP_URL)')
    .option('--store <store>', 'only this store (ID or domain)')
    .option('--limit <n>', 'how many', positive, 20)
    .action(async (opts: { store?: string; limit: number }) => {
      const rows = await withOrm(async (em) => {
        const where = opts.store ? { storeId: (await findStore(em, opts.store)).id } : {};
        const mails = await em.find(Notification, where, {
          orderBy: { createdAt: 'desc', id: 'desc' },
          limit: opts.limit,
        });
        return mails.map((n) => ({
          id: String(n.id),
          store_id: n.storeId,
          kind: n.kind,
          to: n.toAddress,
          subject: n.subject,
          body: n.body,
          created_at: isoSeconds(n.createdAt),
          sent_at: isoSecondsOrNull(n.sentAt),
          attempts: n.attempts,
          last_error: n.lastError,
          next_attempt_at: n.sentAt ? null : isoSeconds(n.nextAttemptAt),
        }));
      });
      print(
        out(),
        rows,
        () =>
          rows
            .map(
              (r) =>
                `#${String(r.id)} ${String(r.created_at)} ${outboxState(r)} to ${String(r.to)}\n  ${String(r.subject)}\n  ${String(r.body).replace(/\n/g, '\n  ')}`,
            )
            .join('\n\n') || '(empty)',
      );
    });

  program
    .command('seed <file>')
    .description(
      'load a fixture (docs/sandbox.md) idempotently: store, keys, carrier accounts, rules, sandbox orders, labels',
    )
    .option('--force', 'load it even with NODE_ENV=production')
    .action(async (file: string, opts: { force?: boolean }) => {
      const { env, sandboxUrl } = config();
      // A fixture brings demo keys and sandbox carrier accounts: never into production by accident.
      if (env === 'production' && !opts.force)
        throw new CliError('refusing to seed with NODE_ENV=production (demo keys and sandbox accounts); add --force');
      let input: unknown;
      try {
        input = JSON.parse(readFileSync(file, 'utf8'));
      } catch (error) {
        throw new CliError(`cannot read ${file} as JSON: ${(error as Error).message}`);
      }
      // Loaded by the commands that use them (PDF rendering, the carrier adapters): every other one starts faster.
      const [{ loadFixture }, { composeAdapters }] = await Promise.all([
        import('../fixtures/load-fixture.js'),
        import('../adapters.js'),
      ]);
      const orm = await ormHandle();
      const result = await loadFixture(
        { orm, now: new Date(), sandboxUrl, carrierFor: composeAdapters(config(), orm).carrierFor },
        input,
      );
      print(out(), result as unknown as Row, () =>
        [
          `loaded ${file} into ${result.domain} (${result.store_id})`,
          `created: ${result.created.labels} labels, ${result.created.carrier_accounts} carrier accounts, ${result.created.api_keys} keys`,
          `already there: ${result.unchanged.labels} labels, ${result.unchanged.carrier_accounts} carrier accounts, ${result.unchanged.api_keys} keys`,
        ].join('\n'),
      );
    });

  program
    .command('log <store>')
    .description("tail a store's API request log (newest last)")
    .option('--limit <n>', 'how many', positive, 20)
    .action(async (ref: string, opts: { limit: number }) => {
      const rows = await withOrm(async (em) => {
        const entries = await em.find(
          RequestLogEntry,
          { storeId: (await findStore(em, ref)).id },
          { orderBy: { id: 'desc' }, limit: opts.limit },
        );
        return entries.reverse().map((e) => ({
          at: isoSeconds(e.createdAt),
          request_id: e.requestId,
          method: e.method,
          endpoint: e.endpoint,
          status: e.status,
          error_code: e.errorCode,
          api_key_id: e.apiKeyId,
          ip: e.ip,
          label_count: e.labelCount,
          byte_size: e.byteSize,
        }));
      });
      print(out(), rows, () =>
        table(rows, ['at', 'method', 'endpoint', 'status', 'error_code', 'api_key_id', 'ip', 'request_id']),
      );
    });

  registerPickupPointCommands(program, {
    withOrm,
    config,
    print: (value, text) => print(out(), value, text),
    table,
    findStore,
  });

  registerWebhookCommands(program, {
    withOrm,
    orm: ormHandle,
    config,
    print: (value, text) => print(out(), value, text),
    table,
    findStore,
  });

  registerDemoCommands(program, { config, print: (value, text) => print(out(), value, text), table });

  registerCreationCommands(program, {
    withOrm,
    orm: ormHandle,
    config,
    print: (value, text) => print(out(), value, text),
    table,
    findStore,
  });

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

void main(process.argv).then((code) => process.exit(code));

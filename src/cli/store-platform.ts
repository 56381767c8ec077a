import { readFileSync } from 'node:fs';
import { Option, type Command } from 'commander';
import {
  connectSandbox,
  connectShopify,
  disconnectShopify,
  platformConnection,
  recordGrantedScopes,
  sessionInfo,
  type PlatformSessionInfo,
} from '../db/platform-sessions-repository';
import { isoSecondsOrNull } from '../domain/wire-format';
import { PlatformAccessLostError, PlatformUnavailableError } from '../platform/port';
import { ShopifyGraphqlClient } from '../platform/shopify/graphql-client';
import { missingScopes, REQUIRED_SHOPIFY_SCOPES } from '../platform/shopify/scopes';
import { ShopifyPlatform, type OnUnauthorized } from '../platform/shopify/shopify-platform';
import { ShopifyTokens } from '../shopify-app/session-tokens';
import type { Config } from '../config';
import { migrateNonExpiringTokens } from '../shopify-app/token-migration';
import { positive, type CliKitWithOrm, type Row } from './kit';

/** An operator's mistake in `labelctl store connect`: one line, exit 2. */
export class StorePlatformError extends Error {}

const sessionRow = (s: PlatformSessionInfo) => ({
  store_id: s.storeId,
  platform: s.platform,
  session: s.platform === 'sandbox' ? null : s.tokenEnding ? `…${s.tokenEnding}` : 'none (shopify_unavailable)',
  connected_at: isoSecondsOrNull(s.connectedAt),
  ...(s.platform === 'shopify'
    ? {
        granted_scopes: s.grantedScopes,
        // What the installation lacks of what the service needs (docs/shopify.md): null while never checked.
        missing_scopes: s.grantedScopes ? missingScopes(s.grantedScopes) : null,
        scopes_checked_at: isoSecondsOrNull(s.scopesCheckedAt),
      }
    : {}),
});

function sessionText(row: ReturnType<typeof sessionRow>): string {
  const base = `${row.store_id}: platform ${row.platform}${row.session ? `, access token ${row.session}` : ''}`;
  if (row.platform !== 'shopify') return base;
  if (!row.missing_scopes) return `${base}; scopes not checked (labelctl store platform <store> --check)`;
  return row.missing_scopes.length === 0
    ? `${base}; scopes complete (${row.scopes_checked_at})`
    : `${base}; MISSING SCOPES ${row.missing_scopes.join(', ')} (checked ${row.scopes_checked_at})`;
}

/**
 * The scopes Shopify says the token's installation holds; an operator's error when Shopify does not answer. With a
 * stored session's tokens, an expiring token is refreshed as every process refreshes it (decision 0710).
 */
async function readGrantedScopes(
  config: Config,
  domain: string,
  token: string | (() => Promise<string | null>),
  onUnauthorized?: OnUnauthorized,
): Promise<string[]> {
  const tokenFor = typeof token === 'string' ? () => Promise.resolve(token) : token;
  const shopify = new ShopifyPlatform(new ShopifyGraphqlClient(config.shopify), tokenFor, onUnauthorized);
  try {
    return await shopify.grantedScopes(domain);
  } catch (error) {
    if (error instanceof PlatformAccessLostError)
      throw new StorePlatformError(`Shopify no longer accepts the app's access to ${domain}: ${error.reason}`);
    if (!(error instanceof PlatformUnavailableError)) throw error;
    throw new StorePlatformError(
      `Shopify did not answer for ${domain} (${error.message}): the token's scopes were not checked, nothing was changed`,
    );
  }
}

/**
 * The shared pickup-point metafield's definition on the custom app's shop (decision 0719): `created`, `exists`, or why
 * not (the connection stands without it; connecting again tries again).
 */
async function definePickupPoint(config: Config, domain: string, token: string): Promise<string | undefined> {
  const shopify = new ShopifyPlatform(new ShopifyGraphqlClient(config.shopify), () => Promise.resolve(token));
  try {
    return await shopify.ensurePickupPointDefinition(domain);
  } catch (error) {
    return `not defined: ${(error as Error).message}`;
  }
}

const pickupPointText = (outcome: string | undefined) =>
  outcome
    ? `; pickup point metafield ${outcome === 'created' || outcome === 'exists' ? `definition ${outcome}` : outcome}`
    : '';

/** An offline Admin API access token from a file (never the command line: shell history and process lists keep it). */
function readToken(file: string): string {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new StorePlatformError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`);
  }
  const token = text.trim();
  if (!/^[\x21-\x7e]{16,512}$/.test(token))
    throw new StorePlatformError(`${file} does not hold one access token (16 to 512 printable characters, no spaces)`);
  return token;
}

/**
 * `labelctl store connect|disconnect|platform`: which store platform a store is on and its session there (docs/shopify.md,
 * "Connecting a store with a custom app's token"). Connecting to Shopify again rotates the token; the token is stored
 * sealed and shown only by its last four characters.
 */
export function registerStorePlatformCommands(store: Command, kit: CliKitWithOrm): void {
  const key = () => kit.config().settingsEncryptionKey;

  store
    .command('connect <store>')
    .description('put a store on a store platform: Shopify with an offline Admin API access token, or the sandbox')
    .addOption(
      new Option('--platform <platform>', 'shopify or sandbox').choices(['shopify', 'sandbox']).makeOptionMandatory(),
    )
    .option('--token-file <file>', 'file holding the offline Admin API access token (shopify)')
    .action(async (ref: string, opts: { platform: 'shopify' | 'sandbox'; tokenFile?: string }) => {
      if (opts.platform === 'shopify' && !opts.tokenFile)
        throw new StorePlatformError('--platform shopify needs --token-file');
      if (opts.platform === 'sandbox' && opts.tokenFile)
        throw new StorePlatformError('--token-file is for --platform shopify only');
      const token = opts.tokenFile ? readToken(opts.tokenFile) : null;
      const row = await kit.withOrm(async (em) => {
        const found = await kit.findStore(em, ref);
        if (!token) return sessionRow(await connectSandbox(em, found.id));
        // A token lacking a scope the service needs would fail creations in production: refused, naming them.
        const grantedScopes = await readGrantedScopes(kit.config(), found.domain, token);
        const missing = missingScopes(grantedScopes);
        if (missing.length > 0)
          throw new StorePlatformError(
            `the token's installation lacks ${missing.join(', ')}; the app needs ${REQUIRED_SHOPIFY_SCOPES.join(', ')} (docs/shopify.md). Nothing was changed`,
          );
        const connected = sessionRow(
          await connectShopify(em, key(), { storeId: found.id, accessToken: token, grantedScopes, now: new Date() }),
        );
        return { ...connected, pickup_point_definition: await definePickupPoint(kit.config(), found.domain, token) };
      });
      kit.print(
        row,
        () =>
          `connected ${sessionText(row)}${pickupPointText('pickup_point_definition' in row ? row.pickup_point_definition : undefined)}`,
      );
    });

  store
    .command('disconnect <store>')
    .description(
      'remove a Shopify store’s access token (app uninstalled, token revoked): calls answer shopify_unavailable',
    )
    .action(async (ref: string) => {
      const row = await kit.withOrm(async (em) => {
        const found = await kit.findStore(em, ref);
        const current = await sessionInfo(em, found.id);
        if (current.platform !== 'shopify') throw new StorePlatformError(`${found.domain} is not on Shopify`);
        return sessionRow(await disconnectShopify(em, found.id, new Date()));
      });
      kit.print(row, () => `disconnected ${sessionText(row)}`);
    });

  store
    .command('platform <store>')
    .description('show the store platform a store is on, its session and (Shopify) the scopes its installation holds')
    .option('--check', 'read the installation’s scopes from Shopify now and keep them')
    .action(async (ref: string, opts: { check?: boolean }) => {
      const row = await kit.withOrm(async (em) => {
        const found = await kit.findStore(em, ref);
        const info = await sessionInfo(em, found.id);
        if (!opts.check || info.platform !== 'shopify') return sessionRow(info);
        const connection = await platformConnection(em, key(), found.domain);
        if (connection.platform !== 'shopify' || !connection.accessToken)
          throw new StorePlatformError(`${found.domain} has no usable access token: connect it again`);
        const tokens = await sessionTokens(kit);
        const grantedScopes = await readGrantedScopes(
          kit.config(),
          found.domain,
          () => tokens.tokenFor(connection, found.domain, 'installation'),
          (shop, what, used, afterRefresh) => tokens.afterUnauthorized(connection, shop, what, used, afterRefresh),
        );
        return sessionRow(await recordGrantedScopes(em, { storeId: found.id, grantedScopes, now: new Date() }));
      });
      kit.print(row, () => sessionText(row));
    });
}

/** The stores' Shopify tokens as the API and workers refresh them, with the public app's credentials when set. */
async function sessionTokens(kit: CliKitWithOrm): Promise<ShopifyTokens> {
  const config = kit.config();
  const [{ composeAdapters }, orm] = await Promise.all([import('../adapters.js'), kit.orm()]);
  return new ShopifyTokens({
    orm,
    settingsKey: config.settingsEncryptionKey,
    endpoint: composeAdapters(config, orm).shopifyApp,
    now: () => new Date(),
  });
}

/**
 * `labelctl store migrate-tokens`: the public app's non-expiring tokens exchanged for expiring ones now (decision
 * 0711); the hourly housekeeping does the same. Needs the app's credentials (SHOPIFY_API_KEY, SHOPIFY_API_SECRET).
 */
export function registerTokenMigrationCommand(store: Command, kit: CliKitWithOrm): void {
  store
    .command('migrate-tokens')
    .description(
      'exchange the Shopify app’s non-expiring offline tokens for expiring ones (Shopify refuses them from 2027-01-01)',
    )
    .option('--limit <n>', 'at most this many stores', positive, 500)
    .action(async (opts: { limit: number }) => {
      const config = kit.config();
      if (!config.shopifyApp)
        throw new StorePlatformError(
          'SHOPIFY_API_KEY and SHOPIFY_API_SECRET are not set: there is no app to migrate to',
        );
      const [{ composeAdapters }, orm] = await Promise.all([import('../adapters.js'), kit.orm()]);
      const endpoint = composeAdapters(config, orm).shopifyApp!;
      const summary = await migrateNonExpiringTokens(
        { orm, settingsKey: config.settingsEncryptionKey, endpoint, now: () => new Date() },
        opts.limit,
      );
      kit.print(summary as unknown as Row, () =>
        [
          ...summary.stores.map((s) => `${s.store_id} ${s.shop}: ${s.outcome}${s.reason ? ` (${s.reason})` : ''}`),
          `${summary.stores.filter((s) => s.outcome === 'migrated').length} migrated; ${summary.left} left to migrate`,
        ].join('\n'),
      );
    });
}

import { readFileSync } from 'node:fs';
import { Option, type Command } from 'commander';
import {
  connectSandbox,
  connectShopify,
  disconnectShopify,
  sessionInfo,
  type PlatformSessionInfo,
} from '../db/platform-sessions-repository';
import { isoSecondsOrNull } from '../domain/wire-format';
import type { CliKit } from './pickup-points';

/** An operator's mistake in `labelctl store connect`: one line, exit 2. */
export class StorePlatformError extends Error {}

const sessionRow = (s: PlatformSessionInfo) => ({
  store_id: s.storeId,
  platform: s.platform,
  session: s.platform === 'sandbox' ? null : s.tokenEnding ? `…${s.tokenEnding}` : 'none (shopify_unavailable)',
  connected_at: isoSecondsOrNull(s.connectedAt),
});

const sessionText = (row: ReturnType<typeof sessionRow>) =>
  `${row.store_id}: platform ${row.platform}${row.session ? `, access token ${row.session}` : ''}`;

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
 * "Connecting a store"). Connecting to Shopify again rotates the token; the token is stored sealed and shown only by its
 * last four characters.
 */
export function registerStorePlatformCommands(store: Command, kit: CliKit): void {
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
        return sessionRow(
          token
            ? await connectShopify(em, key(), { storeId: found.id, accessToken: token, now: new Date() })
            : await connectSandbox(em, found.id),
        );
      });
      kit.print(row, () => `connected ${sessionText(row)}`);
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
    .description('show the store platform a store is on and its session')
    .action(async (ref: string) => {
      const row = await kit.withOrm(async (em) => sessionRow(await sessionInfo(em, (await kit.findStore(em, ref)).id)));
      kit.print(row, () => sessionText(row));
    });
}

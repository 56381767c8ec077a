import { writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { accountSettings } from '../carriers/account-settings';
import { apiPasswordOwner, PacketaAdapter, SealedPasswordError } from '../carriers/packeta/adapter';
import { LABEL_FORMATS } from '../carriers/packeta/label-formats';
import { packetaNetworkWithoutFeed } from '../carriers/packeta/pickup-points';
import {
  CarrierRejectedError,
  CarrierTimeoutError,
  CarrierUnavailableError,
  type CarrierAccountSettings,
} from '../carriers/port';
import { sealValue } from '../crypto/sealed-values';
import { insertCarrierAccount } from '../db/carrier-accounts-repository';
import { CarrierAccount, type CarrierAccountService } from '../db/entities/carrier-account';
import { isIsoCountryCode } from '../domain/countries';
import { newId } from '../ids';
import { CliError, type CliKit, type Row } from './kit';

/** Packeta's API password, as its client section shows it and its own plugins check it. */
const API_PASSWORD = /^[a-z0-9]{32}$/;

/** Carrier A's services: home delivery through the account's carrier per country, and Packeta's pickup points. */
const CARRIER_A_SERVICES: CarrierAccountService[] = [
  { code: 'a_home', name: 'Home delivery', codSupported: true, pickupPointRequired: false },
  { code: 'a_pickup', name: 'Pickup point', codSupported: true, pickupPointRequired: true },
];

const accountRow = (a: CarrierAccount): Row => ({
  id: a.id,
  carrier: a.carrierCode,
  endpoint: a.endpoint,
  name: a.name,
  currency: a.currency,
  eshop: a.endpointSettings?.eshop ?? null,
  home_delivery_carriers: a.endpointSettings?.homeDeliveryCarriers ?? null,
  // Whether a password is set, never the password.
  api_password: a.apiPasswordSealed ? 'set' : null,
});

/** `CZ=106` (repeatable) into `{CZ: '106'}`. */
function homeCarrier(value: string, previous: Record<string, string>): Record<string, string> {
  const match = /^([A-Za-z]{2})=(\d{1,10})$/.exec(value);
  if (!match || !isIsoCountryCode(match[1]!.toUpperCase()))
    throw new CliError(`--home-carrier wants COUNTRY=CARRIER_ID (e.g. CZ=106), got ${value}`);
  return { ...previous, [match[1]!.toUpperCase()]: match[2]! };
}

/** What a check's failure tells the operator; Packeta's own text is kept out of it, as from API answers. */
function checkFailure(error: unknown): CliError {
  if (error instanceof SealedPasswordError)
    return new CliError(
      'check failed: the stored API password does not open with this SETTINGS_ENCRYPTION_KEY (the account was ' +
        'created under another key); set the key it was created with, or create the account again',
    );
  if (error instanceof CarrierRejectedError) {
    const why =
      error.reason === 'credentials_invalid'
        ? 'Packeta refused the API password'
        : 'Packeta does not know the sender indication (--eshop) for this account';
    return new CliError(`check failed: ${why} (${error.reason})`);
  }
  if (error instanceof CarrierTimeoutError || error instanceof CarrierUnavailableError)
    return new CliError(`check failed: Packeta did not answer (${error.message}); try again`);
  return new CliError(`check failed: ${(error as Error).message}`);
}

/**
 * `labelctl carrier-accounts ...`: a store's carrier accounts, and carrier A accounts on Packeta's API: created with
 * their API password sealed (read from `PACKETA_API_PASSWORD`, never from the command line) after a call that proves
 * it, and checked again on demand (docs/carriers/packeta.md).
 */
export function registerCarrierAccountCommands(program: Command, kit: CliKit): void {
  const group = program.command('carrier-accounts').description('carrier accounts of a store; Packeta accounts');
  const packeta = () =>
    new PacketaAdapter({
      endpoint: { url: kit.config().packetaApiUrl, timeoutMs: kit.config().carrierTimeoutMs },
      settingsKey: kit.config().settingsEncryptionKey,
      pickupPoints: packetaNetworkWithoutFeed,
    });
  const check = async (account: CarrierAccountSettings) => {
    try {
      return await packeta().checkAccount(account);
    } catch (error) {
      throw checkFailure(error);
    }
  };

  const packetaAccount = async (id: string) => {
    const account = await kit.withOrm((em) => em.findOne(CarrierAccount, { id }));
    if (!account) throw new CliError(`no carrier account ${id}`);
    if (account.endpoint !== 'packeta') throw new CliError(`${id} is a sandbox account, not one on Packeta`);
    return account;
  };

  group
    .command('list <store>')
    .description('list the store’s carrier accounts (API passwords are never shown)')
    .action(async (ref: string) => {
      const rows = await kit.withOrm(async (em) => {
        const store = await kit.findStore(em, ref);
        const accounts = await em.find(CarrierAccount, { storeId: store.id }, { orderBy: { createdAt: 'asc' } });
        return accounts.map(accountRow);
      });
      kit.print(rows, () => kit.table(rows, ['id', 'carrier', 'endpoint', 'name', 'currency', 'eshop']));
    });

  group
    .command('create-packeta <store>')
    .description('create a carrier A account on Packeta’s API; PACKETA_API_PASSWORD holds the API password')
    .requiredOption('--eshop <sender>', 'sender indication (Packeta client section: Senders)')
    .requiredOption('--currency <code>', 'the account currency: COD and declared value are in it')
    .option(
      '--home-carrier <COUNTRY=ID>',
      'Packeta carrier ID for home delivery to a country (repeat)',
      homeCarrier,
      {},
    )
    .option('--name <name>', 'the account’s name', 'Packeta')
    .option('--sender-country <code>', 'the country the account ships from', 'CZ')
    .action(async (ref: string, opts: Record<string, unknown>) => {
      const password = process.env.PACKETA_API_PASSWORD ?? '';
      if (!API_PASSWORD.test(password))
        throw new CliError('PACKETA_API_PASSWORD must hold the API password: 32 lower-case letters and digits');
      const currency = String(opts.currency).toUpperCase();
      const created = await kit.withOrm(async (em) => {
        const store = await kit.findStore(em, ref);
        const id = newId('carrierAccount');
        const settings = {
          eshop: String(opts.eshop),
          homeDeliveryCarriers: opts.homeCarrier as Record<string, string>,
        };
        const sealed = sealValue(kit.config().settingsEncryptionKey, apiPasswordOwner(id), password);
        const senderCountry = String(opts.senderCountry).toUpperCase();
        // Proven before it is kept: a wrong password or sender never becomes an account.
        const routing = await check({
          carrierCode: 'carrier_a',
          accountId: id,
          currency,
          country: senderCountry,
          credentials: { apiKey: id },
          endpoint: 'packeta',
          packeta: { ...settings, sealedApiPassword: sealed },
        });
        const account = await insertCarrierAccount(em, {
          id,
          storeId: store.id,
          carrierCode: 'carrier_a',
          name: String(opts.name),
          currency,
          services: CARRIER_A_SERVICES,
          sender: { name: String(opts.name), countryCode: senderCountry },
          packeta: { settings, apiPasswordSealed: sealed },
          now: new Date(),
        });
        return { row: accountRow(account), routing };
      });
      kit.print({ ...created.row, return_routing: created.routing.returnRouting }, () =>
        [`created ${String(created.row.id)} on Packeta (sender ${String(created.row.eshop)})`, 'check: ok'].join('\n'),
      );
    });

  group
    .command('label-sheet <carrier_account_id> <packet_ids...>')
    .description(
      'labels of a Packeta account’s packets as Packeta lays them out (e.g. four A6 on an A4 sheet), to a file',
    )
    .requiredOption('--out <file>', 'where the PDF goes')
    .option('--format <format>', `one of: ${LABEL_FORMATS.map((f) => f.format).join(', ')}`, 'A6 on A4')
    .option('--offset <n>', 'positions left empty on the first page (a sheet partly used already)', '0')
    .action(async (id: string, packetIds: string[], opts: { out: string; format: string; offset: string }) => {
      const account = await packetaAccount(id);
      const ids = packetIds.map((p) => p.replace(/^Z/, ''));
      let sheet;
      try {
        sheet = await packeta().fetchLabelSheet(accountSettings(account), ids, opts.format, Number(opts.offset));
      } catch (error) {
        if (error instanceof RangeError) throw new CliError(error.message);
        throw new CliError(`Packeta did not render the labels (${(error as Error).message})`);
      }
      writeFileSync(opts.out, sheet.pdf);
      kit.print({ id, file: opts.out, pages: sheet.pages }, () => `wrote ${sheet.pages} page(s) to ${opts.out}`);
    });

  group
    .command('check <carrier_account_id>')
    .description('prove a Packeta account’s API password and sender with one call that changes nothing')
    .action(async (id: string) => {
      const account = await packetaAccount(id);
      const routing = await check(accountSettings(account));
      kit.print({ id, check: 'ok', return_routing: routing.returnRouting }, () => `${id}: check ok`);
    });
}

import { Option, type Command } from 'commander';
import { serializePickupPoint } from '../api/orders/serializer';
import type { PickupPointProvider } from '../db/entities/pickup-point-provider';
import {
  addProvider,
  changedHeaders,
  findProvider,
  listProviders,
  providerHeaders,
  removeProvider,
  toProviderRecord,
  updateProvider,
} from '../pickup-points/providers-repository';
import { isIsoCountryCode } from '../domain/countries';
import { customNetworkCode, PICKUP_POINT_TYPES, WEEKDAYS } from '../domain/pickup-points';
import { maskHeaderValue, SealedHeadersError } from '../pickup-points/header-vault';
import type { ProviderHeader } from '../pickup-points/provider-client';
import {
  checkHeaders,
  checkProviderCode,
  checkProviderUrl,
  parseHeaderArgument,
  ProviderConfigError,
} from '../pickup-points/provider-config';
import { targetPolicy } from '../net/target-guard';
import { InvalidProviderAnswerError, validateProviderAnswer } from '../pickup-points/provider-contract';
import type { CliKit, Row } from './kit';
import { registerPacketaFeedCommand } from './packeta-feed';

const bool = (value: string): boolean => {
  if (['true', 'on', 'yes', '1'].includes(value)) return true;
  if (['false', 'off', 'no', '0'].includes(value)) return false;
  throw new ProviderConfigError('expected true or false');
};

const coordinate = (max: number) => (value: string) => {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || Math.abs(n) > max)
    throw new ProviderConfigError(`expected a number between -${max} and ${max}`);
  return n;
};

const collect = (value: string, previous: string[]) => [...previous, value];

/** The provider's headers, or null when they no longer open (the settings key changed). */
function readableHeaders(key: Buffer, provider: PickupPointProvider): ProviderHeader[] | null {
  try {
    return providerHeaders(key, provider);
  } catch (error) {
    if (error instanceof SealedHeadersError) return null;
    throw error;
  }
}

function providerRow(key: Buffer, provider: PickupPointProvider): Row {
  const headers = readableHeaders(key, provider);
  return {
    code: provider.code,
    network: customNetworkCode(provider.code),
    name: provider.name,
    url: provider.url,
    enabled: provider.enabled,
    headers: headers?.map((h) => ({ name: h.name, value: maskHeaderValue(h.value) })) ?? null,
    updated_at: provider.updatedAt.toISOString(),
  };
}

const headerSummary = (row: Row) =>
  row.headers === null
    ? '(unreadable with this SETTINGS_ENCRYPTION_KEY: set them again with update --header)'
    : (row.headers as ProviderHeader[]).map((h) => `${h.name}: ${h.value}`).join('; ') || '(none)';

function hours(point: ReturnType<typeof serializePickupPoint>): string {
  const open = WEEKDAYS.filter((d) => point.opening_hours[d]!.length > 0).map(
    (d) => `${d.slice(0, 3)} ${point.opening_hours[d]!.map((r) => `${r.opens}-${r.closes}`).join(',')}`,
  );
  return open.length ? open.join(' ') : 'no opening hours (closed every day)';
}

const headersOf = (args: string[]) => checkHeaders(args.map(parseHeaderArgument));

/** `labelctl pickup-points ...`: a store's custom providers, and verifying one against the contract. */
export function registerPickupPointCommands(program: Command, kit: CliKit): void {
  const group = program
    .command('pickup-points')
    .description("custom pickup point providers of a store, and Packeta's pickup-point feed");
  registerProviderCommands(group, kit);
  registerVerifyCommand(group, kit);
  registerPacketaFeedCommand(group, kit);
}

/** `labelctl pickup-points provider ...`: add, list, update and remove a store's custom providers. */
function registerProviderCommands(group: Command, kit: CliKit): void {
  const provider = group.command('provider').description('add, list, update and remove custom providers');
  const key = () => kit.config().settingsEncryptionKey;
  const policy = () => targetPolicy(kit.config());

  provider
    .command('add <store>')
    .description('add a provider: its HTTPS endpoint and the headers sent to it (stored encrypted)')
    .requiredOption('--code <code>', 'short name; its points carry the carrier code custom:<code>')
    .requiredOption('--name <name>', 'shown with its points')
    .requiredOption('--url <url>', 'the endpoint the service POSTs searches to (HTTPS)')
    .option('--header <header>', '"Name: value", repeatable', collect, [])
    .addOption(new Option('--enabled <bool>', 'searched for merchants (verify works either way)').default('true'))
    .action(
      async (ref: string, opts: { code: string; name: string; url: string; header: string[]; enabled: string }) => {
        const row = await kit.withOrm(async (em) => {
          const store = await kit.findStore(em, ref);
          const created = await addProvider(
            em,
            key(),
            {
              storeId: store.id,
              code: checkProviderCode(opts.code),
              name: opts.name.trim(),
              url: checkProviderUrl(opts.url, policy()),
              headers: headersOf(opts.header),
            },
            new Date(),
          );
          if (!bool(opts.enabled)) await updateProvider(em, key(), created, { enabled: false }, new Date());
          return providerRow(key(), created);
        });
        kit.print(
          row,
          () => `added provider ${String(row.code)} (${String(row.network)}), headers: ${headerSummary(row)}`,
        );
      },
    );

  provider
    .command('list <store>')
    .description('list providers; header values are never shown in full')
    .action(async (ref: string) => {
      const rows = await kit.withOrm(async (em) =>
        (await listProviders(em, (await kit.findStore(em, ref)).id)).map((p) => providerRow(key(), p)),
      );
      kit.print(rows, () =>
        kit.table(
          rows.map((r) => ({ ...r, headers: headerSummary(r) })),
          ['code', 'name', 'enabled', 'url', 'headers'],
        ),
      );
    });

  provider
    .command('update <store> <code>')
    .description('change a provider; --header adds or replaces one header, --remove-header drops one')
    .option('--name <name>')
    .option('--url <url>')
    .option('--header <header>', '"Name: value", repeatable', collect, [])
    .option('--remove-header <name>', 'repeatable', collect, [])
    .option('--enabled <bool>')
    .action(
      async (
        ref: string,
        code: string,
        opts: { name?: string; url?: string; header: string[]; removeHeader: string[]; enabled?: string },
      ) => {
        const row = await kit.withOrm(async (em) => {
          const found = await findProvider(em, (await kit.findStore(em, ref)).id, code);
          const headerChange = opts.header.length > 0 || opts.removeHeader.length > 0;
          // Headers that no longer open are replaced by the ones given now.
          const current = headerChange ? (readableHeaders(key(), found) ?? []) : [];
          const headers = headerChange
            ? checkHeaders(
                changedHeaders(current, {
                  setHeaders: opts.header.map(parseHeaderArgument),
                  removeHeaders: opts.removeHeader,
                }),
              )
            : undefined;
          const changes = {
            ...(opts.name !== undefined ? { name: opts.name.trim() } : {}),
            ...(opts.url !== undefined ? { url: checkProviderUrl(opts.url, policy()) } : {}),
            ...(opts.enabled !== undefined ? { enabled: bool(opts.enabled) } : {}),
            ...(headers ? { headers } : {}),
          };
          if (Object.keys(changes).length === 0)
            throw new ProviderConfigError('name a change: --name, --url, --header, --remove-header or --enabled');
          return providerRow(key(), await updateProvider(em, key(), found, changes, new Date()));
        });
        kit.print(row, () => `updated provider ${String(row.code)}, headers: ${headerSummary(row)}`);
      },
    );

  provider
    .command('remove <store> <code>')
    .description('remove a provider; orders keep pickup points already set')
    .action(async (ref: string, code: string) => {
      await kit.withOrm(async (em) =>
        removeProvider(em, await findProvider(em, (await kit.findStore(em, ref)).id, code)),
      );
      kit.print({ code, removed: true }, () => `removed provider ${code}`);
    });
}

/** `labelctl pickup-points verify <store>`: search a provider now, as the service would, and report what it shows. */
function registerVerifyCommand(group: Command, kit: CliKit): void {
  const key = () => kit.config().settingsEncryptionKey;
  group
    .command('verify <store>')
    .description('search a provider now, as the service would, and show every point it shows and every item it drops')
    .requiredOption('--lat <latitude>', 'latitude to search around', coordinate(90))
    .requiredOption('--lng <longitude>', 'longitude to search around', coordinate(180))
    .requiredOption('--country <code>', 'ISO 3166-1 alpha-2 country to search in')
    .option('--provider <code>', 'which provider (needed when the store has several)')
    .action(async (ref: string, opts: { lat: number; lng: number; country: string; provider?: string }) => {
      if (!isIsoCountryCode(opts.country))
        throw new ProviderConfigError(`--country ${opts.country.slice(0, 10)} is not an ISO 3166-1 alpha-2 code`);
      const { store, record } = await kit.withOrm(async (em) => {
        const found = await kit.findStore(em, ref);
        const all = await listProviders(em, found.id);
        const chosen = opts.provider ? await findProvider(em, found.id, opts.provider) : all[0];
        if (!chosen)
          throw new ProviderConfigError(`the store has no provider; add one with pickup-points provider add`);
        if (!opts.provider && all.length > 1)
          throw new ProviderConfigError(`the store has ${all.length} providers; name one with --provider`);
        return { store: found, record: toProviderRecord(key(), chosen) };
      });
      // Sent exactly as the service sends it: the location as given (the contract's "customer's location").
      const sent = { latitude: opts.lat, longitude: opts.lng };
      const request = { ...sent, countryCode: opts.country, shop: store.domain };
      const network = {
        code: customNetworkCode(record.code),
        name: record.name,
        kind: 'custom_provider' as const,
        accountId: null,
        providerId: record.id,
        pointTypes: [...PICKUP_POINT_TYPES],
      };
      // The outbound HTTP client is loaded by the one command that calls a provider.
      const [{ ProviderCallError }, { providerClientFor }] = await Promise.all([
        import('../pickup-points/provider-client.js'),
        import('../pickup-points/sources.js'),
      ]);
      let answer;
      let validated;
      try {
        answer = await providerClientFor(kit.config())({ url: record.url, headers: record.headers }, request);
        validated = validateProviderAnswer(answer.body, sent);
      } catch (error) {
        if (error instanceof ProviderCallError) {
          const message = error.details.providerMessage ? ` (provider says: ${error.details.providerMessage})` : '';
          throw new ProviderConfigError(
            `provider ${record.code} failed [${error.kind}] after ${error.details.attempts} attempt(s): ${error.message}${message}`,
          );
        }
        if (error instanceof InvalidProviderAnswerError)
          throw new ProviderConfigError(`provider ${record.code} answered something unusable: ${error.message}`);
        throw error;
      }
      const shown = validated.points.map((p) =>
        serializePickupPoint({ network, point: p.item, distanceMeters: p.distanceMeters }),
      );
      const report = {
        provider: { code: record.code, network: network.code, name: record.name, url: record.url },
        request,
        attempts: answer.attempts,
        received: validated.received,
        shown,
        dropped: validated.dropped,
        dropped_fields: validated.droppedFields,
        ignored_over_limit: validated.ignoredOverLimit,
        out_of_order: validated.outOfOrder.map((o) => ({
          index: o.index,
          distance_meters: o.distanceMeters,
          farther_point_before_meters: o.previousDistanceMeters,
        })),
      };
      kit.print(report, () =>
        [
          `provider ${record.code} (${record.name}) at ${record.url}`,
          `searched ${request.latitude}, ${request.longitude} in ${request.countryCode} for ${request.shop}: ` +
            `${validated.received} items received, ${shown.length} shown, ${validated.dropped.length} dropped, ` +
            `${validated.ignoredOverLimit} ignored past the first 50`,
          ...shown.map(
            (p, i) =>
              `  ${i + 1}. ${p.id}  ${p.name}, ${p.street}, ${p.zip} ${p.city}, ${p.country}  ` +
              `${(p.distance_meters / 1000).toFixed(1)} km  ${hours(p)}`,
          ),
          ...validated.dropped.map(
            (d) => `  dropped item ${d.index}${d.id ? ` (${d.id})` : ''}: ${d.problems.join('; ')}`,
          ),
          ...validated.droppedFields.map((d) => `  left out of item ${d.index} (${d.id}): ${d.problem}`),
          ...validated.outOfOrder.map(
            (o) =>
              `  not nearest first: shown item ${o.index + 1} is ${(o.distanceMeters / 1000).toFixed(1)} km away, ` +
              `after one ${(o.previousDistanceMeters / 1000).toFixed(1)} km away`,
          ),
        ].join('\n'),
      );
    });
}

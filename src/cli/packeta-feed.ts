import { InvalidArgumentError, type Command } from 'commander';
import { packetaDay, toPickupPoint } from '../carriers/packeta/feed/network';
import { packetaPointsStore, type PacketaFeedFileState } from '../db/packeta-pickup-points';
import { isIsoCountryCode } from '../domain/countries';
import { distanceMeters } from '../domain/pickup-points';
import { CliError, positive, type CliKit } from './kit';

const coordinate = (max: number) => (value: string) => {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || Math.abs(n) > max)
    throw new InvalidArgumentError(`expected a number between -${max} and ${max}`);
  return n;
};

const ago = (at: Date | null, now: Date) => {
  if (!at) return 'never';
  const minutes = Math.round((now.getTime() - new Date(at).getTime()) / 60_000);
  return minutes < 120 ? `${minutes} min ago` : `${Math.round(minutes / 60)} h ago`;
};

const fileRow = (f: PacketaFeedFileState) => ({
  file: f.feedFile,
  points: f.points,
  checked_at: f.checkedAt,
  changed_at: f.changedAt,
  failures_in_a_row: f.failuresInARow,
  last_error: f.lastError,
  last_failure_at: f.lastFailureAt,
});

/**
 * `labelctl pickup-points packeta-feed`: how Packeta's pickup-point feed stands (decision 1220): each file's last
 * successful import, its failures since, and the points held; with a location, the nearest points a Packeta account
 * would offer there (decision 1222).
 */
export function registerPacketaFeedCommand(group: Command, kit: CliKit): void {
  group
    .command('packeta-feed')
    .description(
      "Packeta's pickup-point feed: each file's last import and failures, the points held; with --lat, --lng and --country the nearest offered points",
    )
    .option('--lat <latitude>', 'search here (with --lng and --country)', coordinate(90))
    .option('--lng <longitude>', 'search here', coordinate(180))
    .option('--country <code>', 'ISO 3166-1 alpha-2 country to search in')
    .option('--limit <n>', 'points to show (at most 50)', positive, 10)
    .action(async (opts: { lat?: number; lng?: number; country?: string; limit: number }) => {
      const searching = opts.lat !== undefined || opts.lng !== undefined || opts.country !== undefined;
      if (searching && (opts.lat === undefined || opts.lng === undefined || !opts.country))
        throw new CliError('a search needs --lat, --lng and --country together');
      if (opts.country && !isIsoCountryCode(opts.country))
        throw new CliError(`--country ${opts.country}: not an ISO 3166-1 alpha-2 code in capitals`);
      const now = new Date();
      const day = packetaDay(now);
      const { files, counts, nearest } = await kit.withOrm(async (em) => {
        const store = packetaPointsStore(em);
        return {
          files: await store.fileStates(),
          counts: await store.counts(day),
          nearest: searching
            ? await store.nearest({
                latitude: opts.lat!,
                longitude: opts.lng!,
                country: opts.country!,
                limit: Math.min(opts.limit, 50),
                day,
              })
            : null,
        };
      });
      const origin = { latitude: opts.lat ?? 0, longitude: opts.lng ?? 0 };
      const points = nearest?.map((p) => ({ ...toPickupPoint(p, day), distance_meters: distanceMeters(origin, p) }));
      const configured = kit.config().packetaFeed !== null;
      kit.print(
        {
          configured,
          files: files.map(fileRow),
          points: { in_feed: counts.inFeed, offerable_today: counts.offerable, vanished: counts.vanished },
          ...(points ? { nearest: points } : {}),
        },
        () =>
          [
            configured ? '' : 'PACKETA_FEED_API_KEY is not set here: the worker imports nothing (docs/operators.md)',
            kit.table(
              files.map((f) => ({
                ...fileRow(f),
                checked: ago(f.checkedAt, now),
                changed: ago(f.changedAt, now),
                failures: f.failuresInARow,
                last_error: f.lastError ?? '',
              })),
              ['file', 'points', 'checked', 'changed', 'failures', 'last_error'],
            ),
            `points in the feed ${counts.inFeed}, offerable today ${counts.offerable}, vanished ${counts.vanished}`,
            ...(points ?? []).map(
              (p, i) =>
                `  ${i + 1}. ${p.id}  ${p.type}  ${p.name}, ${p.street}, ${p.zip} ${p.city}  ` +
                `${(p.distance_meters / 1000).toFixed(1)} km`,
            ),
          ]
            .filter((line) => line !== '')
            .join('\n'),
      );
    });
}

import { Option, type Command } from 'commander';
import { ROTATION_OVERLAPS, type RotationOverlap } from '../access/api-keys';
import { isoSeconds, isoSecondsOrNull } from '../domain/wire-format';
import { BlockedTargetError, checkPublicTarget, systemResolver, targetPolicy } from '../net/target-guard';
import {
  addEndpoint,
  listEndpoints,
  parseTopics,
  removeEndpoint,
  rotateSecret,
  secretInfo,
  WebhookConfigError,
  type WebhookEndpoint,
} from '../webhooks/endpoints';
import type { CliKitWithOrm, Row } from './kit';

const positive = (value: string): number => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 1000) throw new WebhookConfigError('expected a whole number from 1 to 1000');
  return n;
};

const endpointRow = (e: WebhookEndpoint, secrets: Array<{ endingIn: string; expiresAt: Date | null }>): Row => ({
  id: e.id,
  store_id: e.storeId,
  url: e.url,
  topics: e.topics,
  created_at: isoSeconds(e.createdAt),
  secrets: secrets.map((s) => ({ ending_in: s.endingIn, expires_at: isoSecondsOrNull(s.expiresAt) })),
});

const secretsSummary = (row: Row) =>
  (row.secrets as Array<{ ending_in: string; expires_at: string | null }>)
    .map((s) => `whsec_…${s.ending_in}${s.expires_at ? ` (until ${s.expires_at})` : ''}`)
    .join(', ');

/**
 * `labelctl webhooks ...`: a store's endpoints, their secrets, the delivery log and redelivery (docs/operators.md,
 * "Webhooks"). An endpoint is an HTTPS URL whose host resolves to public addresses only; outside production the
 * sandbox's receiver and the loopback origins of `LOCAL_OUTBOUND_ORIGINS` are the exceptions.
 */
export function registerWebhookCommands(program: Command, kit: CliKitWithOrm): void {
  const group = program.command('webhooks').description('webhook endpoints of a store, the delivery log, redelivery');
  const key = () => kit.config().settingsEncryptionKey;

  group
    .command('add <store> <url>')
    .description('add an endpoint; its signing secret is printed once')
    .option('--topics <topics>', 'comma-separated topics (default: every topic)')
    .action(async (ref: string, rawUrl: string, opts: { topics?: string }) => {
      const topics = parseTopics(opts.topics);
      let url: string;
      try {
        url = (await checkPublicTarget(rawUrl, targetPolicy(kit.config()), systemResolver)).toString();
      } catch (error) {
        if (error instanceof BlockedTargetError) throw new WebhookConfigError(`url refused: ${error.message}`);
        throw error;
      }
      const now = new Date();
      const { row, secret } = await kit.withOrm(async (em) => {
        const store = await kit.findStore(em, ref);
        const added = await addEndpoint(em, key(), { storeId: store.id, url, topics, now });
        return { row: endpointRow(added.endpoint, await secretInfo(em, added.endpoint.id, now)), secret: added.secret };
      });
      kit.print({ ...row, secret }, () =>
        [`added endpoint ${String(row.id)} for ${topics.join(', ')}`, `secret (shown once): ${secret}`].join('\n'),
      );
    });

  group
    .command('list <store>')
    .description('list endpoints; secrets are shown by their last four characters only')
    .action(async (ref: string) => {
      const now = new Date();
      const rows = await kit.withOrm(async (em) => {
        const endpoints = await listEndpoints(em, (await kit.findStore(em, ref)).id);
        return Promise.all(endpoints.map(async (e) => endpointRow(e, await secretInfo(em, e.id, now))));
      });
      kit.print(rows, () =>
        kit.table(
          rows.map((r) => ({ ...r, topics: (r.topics as string[]).join(','), secrets: secretsSummary(r) })),
          ['id', 'url', 'topics', 'secrets'],
        ),
      );
    });

  group
    .command('remove <endpoint>')
    .description(
      'remove an endpoint: nothing more is sent to it (attempts waiting for their backoff stop); its log stays',
    )
    .action(async (endpointId: string) => {
      const removed = await kit.withOrm((em) => removeEndpoint(em, endpointId, new Date()));
      kit.print({ id: removed.id, removed: true }, () => `removed endpoint ${removed.id}`);
    });

  group
    .command('rotate-secret <endpoint>')
    .description('a new signing secret; the old one keeps signing too for the overlap (one v1 per secret)')
    .addOption(
      new Option('--overlap <overlap>', 'how long the old secret keeps signing')
        .choices(Object.keys(ROTATION_OVERLAPS))
        .default('24h'),
    )
    .action(async (endpointId: string, opts: { overlap: RotationOverlap }) => {
      const now = new Date();
      const { row, secret, previousUntil } = await kit.withOrm(async (em) => {
        const rotated = await rotateSecret(em, key(), { endpointId, overlap: opts.overlap, now });
        return {
          row: endpointRow(rotated.endpoint, await secretInfo(em, endpointId, now)),
          secret: rotated.secret,
          previousUntil: isoSeconds(rotated.previousExpiresAt),
        };
      });
      kit.print({ ...row, secret, previous_secrets_until: previousUntil }, () =>
        [
          `rotated the secret of ${endpointId}`,
          opts.overlap === 'none' ? 'old secrets stop now' : `old secrets keep signing until ${previousUntil}`,
          `secret (shown once): ${secret}`,
        ].join('\n'),
      );
    });

  group
    .command('deliveries <store>')
    .description('the delivery log: every attempt, newest first')
    .option('--event <evt>', 'only this event')
    .option('--endpoint <we>', 'only this endpoint')
    .option('--limit <n>', 'how many attempts', positive, 50)
    .action(async (ref: string, opts: { event?: string; endpoint?: string; limit: number }) => {
      const rows = await kit.withOrm(async (em) => {
        const store = await kit.findStore(em, ref);
        const attempts = await em.execute<Row[]>(
          `select d.id as delivery_id, d.event_id, d.endpoint_id, d.kind, d.status as delivery_status, a.attempt,
                  a.started_at, a.status_code, a.duration_ms, a.error, a.response_excerpt, a.next_attempt_at
             from webhook_deliveries d join webhook_delivery_attempts a on a.delivery_id = d.id
            where d.store_id = ? and (?::text is null or d.event_id = ?) and (?::text is null or d.endpoint_id = ?)
            order by a.started_at desc, a.seq desc limit ?`,
          [store.id, opts.event ?? null, opts.event ?? null, opts.endpoint ?? null, opts.endpoint ?? null, opts.limit],
        );
        return attempts.map((a) => ({
          ...a,
          started_at: isoSeconds(new Date(a.started_at as string)),
          next_attempt_at: a.next_attempt_at ? isoSeconds(new Date(a.next_attempt_at as string)) : null,
        }));
      });
      kit.print(rows, () =>
        kit.table(rows, [
          'started_at',
          'delivery_id',
          'event_id',
          'endpoint_id',
          'attempt',
          'status_code',
          'duration_ms',
          'error',
          'next_attempt_at',
          'delivery_status',
        ]),
      );
    });

  group
    .command('redeliver <id>')
    .description('send an event again (evt_: to every endpoint subscribed now; whd_: to that delivery’s endpoint)')
    .action(async (ref: string) => {
      const config = kit.config();
      if (!/^(evt|whd)_[A-Za-z0-9]{1,64}$/.test(ref)) throw new WebhookConfigError('expected an evt_ or whd_ ID');
      // The Temporal client is loaded by the one command that starts workflows.
      const [{ connectTemporal }, { redeliver }] = await Promise.all([
        import('../temporal/connection.js'),
        import('../webhooks/publish.js'),
      ]);
      const temporal = await connectTemporal(config.temporal, 10_000);
      try {
        const deliveries = await redeliver(
          {
            orm: await kit.orm(),
            temporal,
            taskQueue: config.temporal.taskQueue,
            now: () => new Date(),
            retry: config.webhooks.retry,
          },
          ref,
        );
        kit.print({ redelivered: ref, deliveries }, () => `redelivering ${ref}: ${deliveries.join(', ')}`);
      } finally {
        await temporal.connection.close();
      }
    });
}

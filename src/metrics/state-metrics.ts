import { Gauge, type Registry } from 'prom-client';
import type { Orm } from '../db/orm';
import { countSessionsToMigrate } from '../db/shopify-tokens';
import { circuitOpenUntil, type CarrierProtectionSettings } from '../domain/carrier-protection';
import { missingScopes, REQUIRED_SHOPIFY_SCOPES } from '../platform/shopify/scopes';
import { OLDEST_REDACTION_SQL, OVERDUE_REDACTIONS_SQL, overdueCutoff } from '../privacy/pending-redactions';

/**
 * Gauges of what waits in PostgreSQL, read when Prometheus scrapes the API (docs/decisions/0900-port-and-state-metrics.md):
 * creations in `needs_attention`, pending webhook deliveries, the e-mail outbox, each carrier account's circuit and
 * the platform-wide creation queue.
 * Every API process reports the same values: aggregate with `max`, never `sum`.
 */
export interface OperationalState {
  needsAttention: { count: number; oldestSeconds: number };
  webhooksPending: { count: number; oldestSeconds: number };
  outbox: { count: number; oldestSeconds: number };
  circuits: Array<{ carrierAccountId: string; carrier: string; open: boolean; unclearInARow: number }>;
  /** Creations in flight across every store (write-queue places in use) and the cap (decision 0407). */
  creationQueue: { depth: number; limit: number };
  /** Per required Shopify scope, the installed stores whose granted scopes (as last checked) lack it. */
  shopifyMissingScopes: Record<string, number>;
  /** Shopify sessions still on a non-expiring token that may be the public app's (decision 0711). */
  shopifyTokensToMigrate: number;
  /** Each file of Packeta's pickup-point feed once imported or tried (decision 1220); none without the feed. */
  packetaFeed: Array<{ file: string; ageSeconds: number | null; failuresInARow: number; points: number | null }>;
  /** Redactions Shopify asked for not done yet: those asked 25 days ago or more, and the oldest's age (decision 0718). */
  shopifyRedactions: { overdue: number; oldestSeconds: number };
}

interface Totals {
  attention_count: number;
  attention_oldest: Date | null;
  webhooks_count: number;
  webhooks_oldest: Date | null;
  outbox_count: number;
  outbox_oldest: Date | null;
  queue_depth: number;
}

// The age of a creation in `needs_attention` runs from the unclear carrier call (its attention's `sentAt`).
const TOTALS = `select
  (select count(*)::int from label_creations where status = 'needs_attention') as attention_count,
  (select min((attention->>'sentAt')::timestamptz) from label_creations where status = 'needs_attention')
    as attention_oldest,
  (select count(*)::int from webhook_deliveries where status = 'pending') as webhooks_count,
  (select min(created_at) from webhook_deliveries where status = 'pending') as webhooks_oldest,
  (select count(*)::int from notifications where sent_at is null) as outbox_count,
  (select min(created_at) from notifications where sent_at is null) as outbox_oldest,
  (select count(*)::int from rate_limit_leases
    where kind = 'write_queue' and released_at is null and expires_at > now()) as queue_depth`;

/** Each account with recent outcomes: its unclear results since its last clear one (as carrier protection counts). */
const STREAKS = `select o.carrier_account_id as id, coalesce(a.carrier_code, 'unknown') as carrier,
    (count(*) filter (where o.outcome = 'unclear' and o.seq > c.clear_seq))::int as unclear,
    max(o.recorded_at) filter (where o.outcome = 'unclear' and o.seq > c.clear_seq) as last_at
  from carrier_outcomes o
  join (select carrier_account_id, coalesce(max(seq) filter (where outcome <> 'unclear'), 0) as clear_seq
          from carrier_outcomes group by carrier_account_id) c on c.carrier_account_id = o.carrier_account_id
  left join carrier_accounts a on a.id = o.carrier_account_id
  group by o.carrier_account_id, a.carrier_code`;

const ageSeconds = (oldest: Date | null, now: Date) =>
  oldest ? Math.max(0, (now.getTime() - new Date(oldest).getTime()) / 1000) : 0;

export async function readOperationalState(deps: {
  orm: Orm;
  now: () => Date;
  settings: CarrierProtectionSettings;
  /** CREATION_QUEUE_PLATFORM_MAX, reported beside the depth. */
  platformQueueMax: number;
}): Promise<OperationalState> {
  const em = deps.orm.em.fork();
  const [[totals], streaks, installations, feedFiles, [redactions], tokensToMigrate] = await Promise.all([
    em.execute<Totals[]>(TOTALS),
    em.execute<Array<{ id: string; carrier: string; unclear: number; last_at: Date | null }>>(STREAKS),
    em.execute<Array<{ granted_scopes: string[] }>>(
      `select granted_scopes from store_platform_sessions
        where platform = 'shopify' and access_token_sealed is not null and granted_scopes is not null`,
    ),
    em.execute<Array<{ feed_file: string; checked_at: Date | null; failures_in_a_row: number; points: number | null }>>(
      'select feed_file, checked_at, failures_in_a_row, points from packeta_feed_files order by feed_file',
    ),
    em.execute<Array<{ overdue: number; oldest: Date | null }>>(
      `select (${OVERDUE_REDACTIONS_SQL}) as overdue, (${OLDEST_REDACTION_SQL}) as oldest`,
      [overdueCutoff(deps.now())],
    ),
    countSessionsToMigrate(em),
  ]);
  const shopifyMissingScopes = Object.fromEntries(REQUIRED_SHOPIFY_SCOPES.map((scope) => [scope, 0]));
  for (const installation of installations)
    for (const scope of missingScopes(installation.granted_scopes)) shopifyMissingScopes[scope]! += 1;
  const now = deps.now();
  const t = totals!;
  return {
    needsAttention: { count: t.attention_count, oldestSeconds: ageSeconds(t.attention_oldest, now) },
    webhooksPending: { count: t.webhooks_count, oldestSeconds: ageSeconds(t.webhooks_oldest, now) },
    outbox: { count: t.outbox_count, oldestSeconds: ageSeconds(t.outbox_oldest, now) },
    creationQueue: { depth: t.queue_depth, limit: deps.platformQueueMax },
    shopifyMissingScopes,
    shopifyTokensToMigrate: tokensToMigrate,
    shopifyRedactions: { overdue: redactions!.overdue, oldestSeconds: ageSeconds(redactions!.oldest, now) },
    packetaFeed: feedFiles.map((f) => ({
      file: f.feed_file,
      ageSeconds: f.checked_at ? ageSeconds(f.checked_at, now) : null,
      failuresInARow: f.failures_in_a_row,
      points: f.points,
    })),
    circuits: streaks.map((s) => ({
      carrierAccountId: s.id,
      carrier: s.carrier,
      unclearInARow: s.unclear,
      open:
        circuitOpenUntil({ count: s.unclear, lastAt: s.last_at ? new Date(s.last_at) : null }, deps.settings, now) !==
        null,
    })),
  };
}

/** Registers the gauges; one read of the state serves every gauge of one scrape. */
export function registerStateMetrics(registry: Registry, read: () => Promise<OperationalState>): void {
  let pending: Promise<OperationalState | null> | null = null;
  // The gauges' collect() calls of one scrape start together: the first starts the read, the others share it. A
  // database that does not answer leaves these gauges NaN (or without series) instead of failing the whole scrape.
  const state = () => {
    pending ??= read()
      .catch(() => null)
      .finally(() => setImmediate(() => (pending = null)));
    return pending;
  };
  const gauge = (name: string, help: string, value: (s: OperationalState) => number) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      async collect() {
        const now = await state();
        this.set(now ? value(now) : NaN);
      },
    });
  gauge(
    'shipping_label_creations_needing_attention',
    'Creations in needs_attention now',
    (s) => s.needsAttention.count,
  );
  gauge(
    'shipping_label_creations_needing_attention_oldest_seconds',
    'Age of the oldest creation in needs_attention, from its unclear carrier call; 0 when none',
    (s) => s.needsAttention.oldestSeconds,
  );
  gauge(
    'shipping_label_webhook_deliveries_pending',
    'Webhook deliveries not yet delivered or given up',
    (s) => s.webhooksPending.count,
  );
  gauge(
    'shipping_label_webhook_delivery_oldest_pending_seconds',
    'Age of the oldest pending webhook delivery; 0 when none',
    (s) => s.webhooksPending.oldestSeconds,
  );
  gauge('shipping_label_notification_outbox_depth', 'E-mail notifications not yet sent', (s) => s.outbox.count);
  gauge(
    'shipping_label_notification_outbox_oldest_seconds',
    'Age of the oldest unsent e-mail notification; 0 when none',
    (s) => s.outbox.oldestSeconds,
  );
  gauge(
    'shipping_label_creation_queue',
    'Creations in flight across every store (the platform-wide creation queue): accepted, not yet out of processing',
    (s) => s.creationQueue.depth,
  );
  gauge(
    'shipping_label_creation_queue_limit',
    'The platform-wide creation queue cap (CREATION_QUEUE_PLATFORM_MAX); beyond it POST /labels answers 503',
    (s) => s.creationQueue.limit,
  );
  new Gauge({
    name: 'shipping_label_shopify_stores_missing_scope',
    help: 'Stores whose Shopify installation lacks this required access scope (as last checked: install, app/scopes_update, labelctl store platform --check)',
    labelNames: ['scope'],
    registers: [registry],
    async collect() {
      this.reset();
      for (const [scope, stores] of Object.entries((await state())?.shopifyMissingScopes ?? {}))
        this.set({ scope }, stores);
    },
  });
  gauge(
    'shipping_label_shopify_tokens_to_migrate',
    'Shopify sessions still holding a non-expiring token of the public app (or of unknown origin): the hourly housekeeping and labelctl store migrate-tokens exchange them for expiring ones; refused by Shopify from 2027-01-01',
    (s) => s.shopifyTokensToMigrate,
  );
  gauge(
    'shipping_label_shopify_redactions_overdue',
    'Redactions Shopify asked for (customers/redact, shop/redact) still not done 25 days after the request; Shopify expects them within 30 (labelctl store privacy names what blocks them)',
    (s) => s.shopifyRedactions.overdue,
  );
  gauge(
    'shipping_label_shopify_redaction_oldest_age_seconds',
    'Age of the oldest redaction Shopify asked for that is not done yet (0 when none waits)',
    (s) => s.shopifyRedactions.oldestSeconds,
  );
  registerPacketaFeedGauges(registry, state);
  const circuitLabels = ['carrier_account', 'carrier'] as const;
  new Gauge({
    name: 'shipping_label_carrier_circuit_open',
    help: '1 while the carrier account circuit is open (new creations fail circuit_open), else 0',
    labelNames: circuitLabels,
    registers: [registry],
    async collect() {
      this.reset();
      for (const c of (await state())?.circuits ?? [])
        this.set({ carrier_account: c.carrierAccountId, carrier: c.carrier }, c.open ? 1 : 0);
    },
  });
  new Gauge({
    name: 'shipping_label_carrier_unclear_in_a_row',
    help: 'Unclear carrier results in a row per carrier account (the circuit opens at CARRIER_CIRCUIT_THRESHOLD)',
    labelNames: circuitLabels,
    registers: [registry],
    async collect() {
      this.reset();
      for (const c of (await state())?.circuits ?? [])
        this.set({ carrier_account: c.carrierAccountId, carrier: c.carrier }, c.unclearInARow);
    },
  });
}

/** Packeta's pickup-point feed, by file: how long since it was last read whole (or answered 304), and its failures. */
function registerPacketaFeedGauges(registry: Registry, state: () => Promise<OperationalState | null>): void {
  const byFile = (name: string, help: string, value: (f: OperationalState['packetaFeed'][number]) => number | null) =>
    new Gauge({
      name,
      help,
      labelNames: ['file'],
      registers: [registry],
      async collect() {
        this.reset();
        for (const f of (await state())?.packetaFeed ?? []) {
          const v = value(f);
          if (v !== null) this.set({ file: f.file }, v);
        }
      },
    });
  byFile(
    'shipping_label_packeta_feed_age_seconds',
    "Seconds since Packeta's pickup-point feed file was last imported or confirmed unchanged; no series before the first",
    (f) => f.ageSeconds,
  );
  byFile(
    'shipping_label_packeta_feed_failures_in_a_row',
    "Failed imports of Packeta's pickup-point feed file since its last success",
    (f) => f.failuresInARow,
  );
  byFile(
    'shipping_label_packeta_feed_points',
    "Points Packeta's pickup-point feed file listed at its last reading",
    (f) => f.points,
  );
}

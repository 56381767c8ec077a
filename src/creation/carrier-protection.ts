import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Orm } from '../db/orm';
import {
  decideCarrierProtection,
  protectionHorizonMs,
  shipmentFingerprintText,
  type CarrierProtectionSettings,
  type ProtectionDecision,
  type ProtectionSnapshot,
  type RecordedRefusal,
} from '../domain/carrier-protection';
import type { CarrierCall } from '../domain/creation-decision';

/**
 * Carrier protection's state in PostgreSQL (`carrier_outcomes`), shared by every worker and API process: the live
 * creation checks it before it calls the carrier and records what the call came to; the dry run checks it too, so it
 * answers the error a live call would get. The decision itself is `decideCarrierProtection` (src/domain).
 * docs/decisions/0500-carrier-protection.md.
 */

export type CarrierOutcome = 'accepted' | 'rejected' | 'unclear';

/** The carrier account as protection sees it: its ID and when its settings last changed. */
export interface ProtectedAccount {
  id: string;
  updatedAt: Date;
}

export interface ProtectionTarget {
  storeId: string;
  /** What the carrier call sends (without the per-attempt reference), with the carrier account it goes to. */
  call: CarrierCall;
  fulfillmentOrderGids: string[];
  /** The account as the caller just read it (saves reading it again); read here when absent. */
  account?: ProtectedAccount;
}

export interface AccountProtectionStatus {
  carrierAccountId: string;
  /** Unclear results in a row and when the last came. */
  unclearInARow: number;
  lastUnclearAt: Date | null;
  /** Until when new creations fail `circuit_open`; null when the circuit is closed. */
  circuitOpenUntil: Date | null;
  /** Refusals within the account window, counted toward `account_rejecting`. */
  recentRefusals: number;
  lastAcceptedAt: Date | null;
}

export interface CarrierProtection {
  /** Whether the creation may call the carrier now. */
  check(target: ProtectionTarget): Promise<ProtectionDecision>;
  /** What the carrier call of creation `creationId` came to; one outcome per creation (a repeat is ignored). */
  record(
    target: ProtectionTarget & { creationId: string; outcome: CarrierOutcome; reason: string | null },
  ): Promise<void>;
  /** Each carrier account of the store that has recent outcomes (`labelctl carrier-protection show`). */
  status(storeId: string): Promise<AccountProtectionStatus[]>;
  /** Forgets the recorded outcomes of the store's accounts (all, or the one named): circuits close, counts restart. */
  reset(storeId: string, carrierAccountId?: string): Promise<number>;
}

export function shipmentFingerprint(call: CarrierCall, account: ProtectedAccount): string {
  return createHash('sha256')
    .update(shipmentFingerprintText(call, { id: account.id, changedAt: account.updatedAt }))
    .digest('hex');
}

interface RefusalRow {
  recorded_at: Date;
  reason: string | null;
  label_creation_id: string;
}

const asRefusal = (r: RefusalRow): RecordedRefusal => ({
  at: new Date(r.recorded_at),
  reason: r.reason ?? 'other',
  labelCreationId: r.label_creation_id,
});

const orNull = (value: Date | string | null | undefined) => (value ? new Date(value) : null);

/**
 * The streak of an account (bindings: the account twice): its unclear results since its last clear one; one row even
 * without outcomes.
 */
const STREAK_COLUMNS = `(count(*) filter (where o.outcome = 'unclear' and o.seq > c.clear_seq))::int as count,
  max(o.recorded_at) filter (where o.outcome = 'unclear' and o.seq > c.clear_seq) as last_at`;
const STREAK_FROM = `from carrier_outcomes o,
  (select coalesce(max(seq), 0) as clear_seq from carrier_outcomes where carrier_account_id = ? and outcome <> 'unclear') c
  where o.carrier_account_id = ?`;
/** A recorded refusal as JSON fields, the shape of `RefusalRow`. */
const REFUSAL_FIELDS = `'recorded_at', recorded_at, 'reason', reason, 'label_creation_id', label_creation_id`;

/** The account's unclear results since its last clear one, and its last acceptance (`labelctl` shows it). */
async function streakOf(em: EntityManager, accountId: string) {
  const [row] = await em.execute<Array<{ count: number; last_at: Date | null; last_accepted_at: Date | null }>>(
    `select ${STREAK_COLUMNS}, max(o.recorded_at) filter (where o.outcome = 'accepted') as last_accepted_at ${STREAK_FROM}`,
    [accountId, accountId],
  );
  return {
    count: row?.count ?? 0,
    lastAt: orNull(row?.last_at),
    lastAcceptedAt: orNull(row?.last_accepted_at),
  };
}

/** The account as it is now: a change to its settings makes every shipment on it a new one. */
async function accountOf(em: EntityManager, target: ProtectionTarget): Promise<ProtectedAccount> {
  if (target.account) return target.account;
  const [row] = await em.execute<Array<{ updated_at: Date }>>(
    'select updated_at from carrier_accounts where store_id = ? and id = ?',
    [target.storeId, target.call.carrierAccountId],
  );
  return { id: target.call.carrierAccountId, updatedAt: new Date(row?.updated_at ?? 0) };
}

/** Everything the decision reads about the account, the shipment and its fulfillment orders, in one statement. */
async function snapshotOf(
  em: () => EntityManager,
  settings: CarrierProtectionSettings,
  target: ProtectionTarget,
  now: Date,
): Promise<ProtectionSnapshot> {
  const account = await accountOf(em(), target);
  const since = (windowMs: number) => new Date(now.getTime() - windowMs);
  const [row] = await em().execute<
    Array<{
      count: number;
      last_at: Date | null;
      account_refusals: string[];
      fingerprint_refusals: RefusalRow[];
      fulfillment_order_refusals: Array<RefusalRow & { fulfillment_order_gid: string }>;
    }>
  >(
    `select ${STREAK_COLUMNS},
            (select coalesce(json_agg(recorded_at), '[]') from carrier_outcomes
              where carrier_account_id = ? and outcome = 'rejected' and recorded_at > ?) as account_refusals,
            (select coalesce(json_agg(json_build_object(${REFUSAL_FIELDS})), '[]') from carrier_outcomes
              where fingerprint = ? and outcome = 'rejected' and recorded_at > ?) as fingerprint_refusals,
            (select coalesce(json_agg(json_build_object('fulfillment_order_gid', fo, ${REFUSAL_FIELDS})), '[]')
               from carrier_outcomes, unnest(fulfillment_order_gids) fo
              where store_id = ? and outcome = 'rejected' and recorded_at > ?
                and fulfillment_order_gids && (select coalesce(array_agg(x), '{}') from jsonb_array_elements_text(?::jsonb) x)
                and fo in (select jsonb_array_elements_text(?::jsonb))) as fulfillment_order_refusals
       ${STREAK_FROM}`,
    [
      account.id,
      since(settings.accountRejectingWindowMs),
      shipmentFingerprint(target.call, account),
      since(settings.fingerprintWindowMs),
      target.storeId,
      since(settings.fulfillmentOrderWindowMs),
      JSON.stringify(target.fulfillmentOrderGids),
      JSON.stringify(target.fulfillmentOrderGids),
      account.id,
      account.id,
    ],
  );
  const fulfillmentOrderRefusals: Record<string, RecordedRefusal[]> = {};
  for (const r of row!.fulfillment_order_refusals) {
    (fulfillmentOrderRefusals[r.fulfillment_order_gid] ??= []).push(asRefusal(r));
  }
  return {
    unclearStreak: { count: row!.count, lastAt: orNull(row!.last_at) },
    accountChangedAt: account.updatedAt,
    accountRefusals: row!.account_refusals.map((at) => new Date(at)),
    fingerprintRefusals: row!.fingerprint_refusals.map(asRefusal),
    fulfillmentOrderRefusals,
  };
}

export function createCarrierProtection(deps: {
  orm: Orm;
  now: () => Date;
  settings: CarrierProtectionSettings;
}): CarrierProtection {
  const { settings } = deps;
  const em = () => deps.orm.em.fork();
  return {
    async check(target) {
      const now = deps.now();
      return decideCarrierProtection(await snapshotOf(em, settings, target, now), settings, now);
    },

    async record(input) {
      const now = deps.now();
      const account = await accountOf(em(), input);
      // One statement: the outcome goes in (once per creation) and the account's rows past every window go out.
      await em().execute(
        `with forgotten as (
           delete from carrier_outcomes where carrier_account_id = ? and recorded_at < ?
         )
         insert into carrier_outcomes
           (label_creation_id, store_id, carrier_account_id, outcome, reason, fingerprint, fulfillment_order_gids,
            recorded_at)
         values (?, ?, ?, ?, ?, ?,
                 (select coalesce(array_agg(x), '{}') from jsonb_array_elements_text(?::jsonb) x), ?)
         on conflict (label_creation_id) do nothing`,
        [
          account.id,
          new Date(now.getTime() - protectionHorizonMs(settings)),
          input.creationId,
          input.storeId,
          account.id,
          input.outcome,
          input.reason,
          shipmentFingerprint(input.call, account),
          JSON.stringify(input.fulfillmentOrderGids),
          now,
        ],
      );
    },

    async status(storeId) {
      const now = deps.now();
      const accounts = await em().execute<Array<{ carrier_account_id: string }>>(
        'select distinct carrier_account_id from carrier_outcomes where store_id = ? order by carrier_account_id',
        [storeId],
      );
      const result: AccountProtectionStatus[] = [];
      for (const { carrier_account_id: id } of accounts) {
        const streak = await streakOf(em(), id);
        const [refusals] = await em().execute<Array<{ count: number }>>(
          `select count(*)::int as count from carrier_outcomes
            where carrier_account_id = ? and outcome = 'rejected' and recorded_at > ?`,
          [id, new Date(now.getTime() - settings.accountRejectingWindowMs)],
        );
        const openUntil =
          streak.count >= settings.circuitThreshold && streak.lastAt
            ? new Date(streak.lastAt.getTime() + settings.circuitOpenMs)
            : null;
        result.push({
          carrierAccountId: id,
          unclearInARow: streak.count,
          lastUnclearAt: streak.lastAt,
          circuitOpenUntil: openUntil && openUntil > now ? openUntil : null,
          recentRefusals: refusals?.count ?? 0,
          lastAcceptedAt: streak.lastAcceptedAt,
        });
      }
      return result;
    },

    async reset(storeId, carrierAccountId) {
      const rows = await em().execute<Array<{ seq: string }>>(
        `delete from carrier_outcomes where store_id = ? and (?::text is null or carrier_account_id = ?) returning seq`,
        [storeId, carrierAccountId ?? null, carrierAccountId ?? null],
      );
      return rows.length;
    },
  };
}

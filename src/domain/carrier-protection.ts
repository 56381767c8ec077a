import type { CarrierCall } from './creation-decision';
import { refusal, type Refusal } from './refusal';

/**
 * Carrier protection (spec "Errors": `carrier_unavailable` reasons `circuit_open` and `account_rejecting`,
 * `repeated_rejection` scopes `fingerprint` and `fulfillment_order_daily`): whether a creation may call the carrier,
 * decided from what earlier carrier calls of the account, the shipment and the fulfillment orders came to. Pure: the
 * outcomes come from PostgreSQL (src/creation/carrier-protection.ts), shared by every worker and API process.
 * docs/decisions/0500-carrier-protection.md.
 */

export interface CarrierProtectionSettings {
  /** Unclear results in a row on one account that open its circuit ("several"). */
  circuitThreshold: number;
  /** How long an open circuit fails new creations without calling the carrier (5 minutes). */
  circuitOpenMs: number;
  /** Refusals on one account within `accountRejectingWindowMs` that stop its creations (5 in 10 minutes). */
  accountRejectingLimit: number;
  accountRejectingWindowMs: number;
  /** Refusals of the same shipment within `fingerprintWindowMs` that stop it (3 in 60 minutes). */
  fingerprintLimit: number;
  fingerprintWindowMs: number;
  /** Refusals per fulfillment order within `fulfillmentOrderWindowMs` that stop it (30 in 24 hours). */
  fulfillmentOrderDailyLimit: number;
  fulfillmentOrderWindowMs: number;
}

const MINUTE = 60_000;

/** The spec's numbers; the circuit's threshold ("several") is this service's choice (decision 0501). */
export const SPEC_PROTECTION: CarrierProtectionSettings = {
  circuitThreshold: 5,
  circuitOpenMs: 5 * MINUTE,
  accountRejectingLimit: 5,
  accountRejectingWindowMs: 10 * MINUTE,
  fingerprintLimit: 3,
  fingerprintWindowMs: 60 * MINUTE,
  fulfillmentOrderDailyLimit: 30,
  fulfillmentOrderWindowMs: 24 * 60 * MINUTE,
};

/** The longest window: outcomes older than this decide nothing and may be forgotten. */
export function protectionHorizonMs(s: CarrierProtectionSettings): number {
  return Math.max(s.circuitOpenMs, s.accountRejectingWindowMs, s.fingerprintWindowMs, s.fulfillmentOrderWindowMs);
}

/** A carrier refusal as recorded: when, the `carrier_rejected` reason, and the creation it ended. */
export interface RecordedRefusal {
  at: Date;
  reason: string;
  labelCreationId: string;
}

/** What the decision reads; lists may hold anything recent, the decision applies the windows itself. */
export interface ProtectionSnapshot {
  /** Unclear results on the account since its last clear one (accepted, refused, or an operator's reset). */
  unclearStreak: { count: number; lastAt: Date | null };
  /** When the account's settings last changed (a change makes every shipment a new one). */
  accountChangedAt: Date;
  /** Refusals on the account. */
  accountRefusals: Date[];
  /** Refusals of this shipment's fingerprint. */
  fingerprintRefusals: RecordedRefusal[];
  /** Refusals of creations covering each of the target's fulfillment orders, by fulfillment order GID. */
  fulfillmentOrderRefusals: Record<string, RecordedRefusal[]>;
}

export type ProtectionDecision = { kind: 'allow' } | { kind: 'block'; refusal: Refusal; blockedUntil: Date };

const newestFirst = <T extends { at: Date }>(list: T[]) => [...list].sort((a, b) => b.at.getTime() - a.at.getTime());

/**
 * A sliding window: `limit` events within `windowMs` before `now` block until the oldest of the newest `limit` of
 * them leaves the window (then fewer than `limit` remain). Null when fewer than `limit` are in the window.
 */
export function slidingWindowBlock(times: Date[], limit: number, windowMs: number, now: Date): Date | null {
  const from = now.getTime() - windowMs;
  const inWindow = times
    .map((t) => t.getTime())
    .filter((t) => t > from && t <= now.getTime())
    .sort((a, b) => b - a);
  if (limit < 1 || inWindow.length < limit) return null;
  return new Date(inWindow[limit - 1]! + windowMs);
}

/** Whole seconds until `until`, at least 1: the `Retry-After` of a block. */
export function secondsUntil(until: Date, now: Date): number {
  return Math.max(1, Math.ceil((until.getTime() - now.getTime()) / 1000));
}

/** Wire timestamps have second precision: a block's end is rounded up so a retry at that second is allowed. */
function wireTime(date: Date): string {
  return `${new Date(Math.ceil(date.getTime() / 1000) * 1000).toISOString().slice(0, 19)}Z`;
}

function unavailable(reason: 'circuit_open' | 'account_rejecting', until: Date, now: Date): ProtectionDecision {
  const seconds = secondsUntil(until, now);
  const message =
    reason === 'circuit_open'
      ? 'The carrier account gave several unclear answers in a row; new creations on it fail without calling the carrier until the pause ends. Nothing was created.'
      : 'The carrier refused the account’s recent shipments repeatedly; check the carrier account (credentials, contract, sender) before sending again. Nothing was created.';
  // Spec: `circuit_open` is retried later; `account_rejecting` after a fix.
  const retry =
    reason === 'circuit_open'
      ? { retry: 'later', next_action: 'retry_later' }
      : { retry: 'after_fix', next_action: 'fix_and_retry' };
  return {
    kind: 'block',
    blockedUntil: until,
    refusal: refusal('carrier_unavailable', message, { reason, retry_after_seconds: seconds, ...retry }, seconds),
  };
}

function repeated(
  scope: 'fingerprint' | 'fulfillment_order_daily',
  until: Date,
  last: RecordedRefusal,
  now: Date,
): ProtectionDecision {
  const message =
    scope === 'fingerprint'
      ? 'The carrier refused this same shipment repeatedly; it is not sent again until blocked_until. Fix the cause in carrier_rejected (any change to the shipment or the carrier account makes it a new one). Nothing was created.'
      : 'The carrier refused shipments for this fulfillment order too often today; it is not sent again until blocked_until. Nothing was created.';
  return {
    kind: 'block',
    blockedUntil: until,
    refusal: refusal(
      'repeated_rejection',
      message,
      {
        scope,
        blocked_until: wireTime(until),
        carrier_rejected: { reason: last.reason, label_creation_id: last.labelCreationId },
        retry: 'after_fix',
        next_action: 'fix_and_retry',
      },
      secondsUntil(until, now),
    ),
  };
}

/** Until when the account's circuit is open after its unclear results in a row; null when it is closed now. */
export function circuitOpenUntil(
  streak: { count: number; lastAt: Date | null },
  settings: Pick<CarrierProtectionSettings, 'circuitThreshold' | 'circuitOpenMs'>,
  now: Date,
): Date | null {
  if (streak.count < settings.circuitThreshold || !streak.lastAt) return null;
  const until = new Date(streak.lastAt.getTime() + settings.circuitOpenMs);
  return until > now ? until : null;
}

/**
 * Whether a creation may call the carrier now. Account-wide blocks come first (fixing the shipment does not help
 * while the account cannot ship): an open circuit, then an account refusing everything; then the shipment's own
 * refusals, then its fulfillment orders' refusals of the day.
 */
export function decideCarrierProtection(
  snapshot: ProtectionSnapshot,
  settings: CarrierProtectionSettings,
  now: Date,
): ProtectionDecision {
  const circuitUntil = circuitOpenUntil(snapshot.unclearStreak, settings, now);
  if (circuitUntil) return unavailable('circuit_open', circuitUntil, now);

  // Spec: "5 refusals in 10 minutes", an acceptance between them included; refusals before the account's last change
  // say nothing about the account as it is now (the fix the spec's `after_fix` asks for). Decision 0131.
  const changedAt = snapshot.accountChangedAt.getTime();
  const accountUntil = slidingWindowBlock(
    snapshot.accountRefusals.filter((t) => t.getTime() > changedAt),
    settings.accountRejectingLimit,
    settings.accountRejectingWindowMs,
    now,
  );
  if (accountUntil) return unavailable('account_rejecting', accountUntil, now);

  const fingerprintUntil = slidingWindowBlock(
    snapshot.fingerprintRefusals.map((r) => r.at),
    settings.fingerprintLimit,
    settings.fingerprintWindowMs,
    now,
  );
  if (fingerprintUntil) {
    return repeated('fingerprint', fingerprintUntil, newestFirst(snapshot.fingerprintRefusals)[0]!, now);
  }

  let dailyUntil: Date | null = null;
  let dailyLast: RecordedRefusal | null = null;
  for (const refusals of Object.values(snapshot.fulfillmentOrderRefusals)) {
    const until = slidingWindowBlock(
      refusals.map((r) => r.at),
      settings.fulfillmentOrderDailyLimit,
      settings.fulfillmentOrderWindowMs,
      now,
    );
    if (!until) continue;
    // Blocked while any fulfillment order of the target is: until the last of them is free again.
    if (!dailyUntil || until > dailyUntil) dailyUntil = until;
    const last = newestFirst(refusals)[0]!;
    if (!dailyLast || last.at > dailyLast.at) dailyLast = last;
  }
  if (dailyUntil && dailyLast) return repeated('fulfillment_order_daily', dailyUntil, dailyLast, now);

  return { kind: 'allow' };
}

/** JSON with object keys sorted at every level: equal values give equal text whatever the key order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v ?? null)).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/**
 * What makes two creations "the same shipment" (spec: "A change to anything sent to the carrier or to the account
 * counts as a new shipment"): everything the carrier call sends except the per-attempt reference, and the account as
 * it is (its ID and when its settings last changed). The caller hashes this text.
 */
export function shipmentFingerprintText(call: CarrierCall, account: { id: string; changedAt: Date }): string {
  return canonicalJson({ account: { id: account.id, changed_at: account.changedAt.toISOString() }, shipment: call });
}

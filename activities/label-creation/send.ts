import type { accountSettings } from '../../src/carriers/account-settings';
import type { LabelDocument, ShipmentRequest } from '../../src/carriers/port';
import { sendShipment, type SendOutcome } from '../../src/creation/carrier-call';
import type { SideEffects } from '../../src/domain/creation-record';
import { markSent, sendingState } from '../../src/creation/transitions';
import type { CarrierAccount } from '../../src/db/entities/carrier-account';
import type { CarrierCall } from '../../src/domain/creation-decision';
import { heartbeating, type CreationKit } from './kit';
import { carrierProtectionGate } from './protection';
import type { CallTarget, SendPlan, SendToCarrierInput, SentToCarrier } from './types';

/** The side effects of a creation that fulfils nothing and tags nothing, as the workflow reports skipped ones. */
const NOTHING_FOLLOWED: SideEffects = {
  fulfillment: { mode: 'none', status: 'skipped' },
  orderTags: { status: 'skipped' },
};

type Settings = ReturnType<typeof accountSettings>;
type Accepted = Extract<SendOutcome, { kind: 'accepted' }>;

/** The carrier account and carrier protection's answer, asked for ahead of the call (the first step: while locking). */
export interface Preflight {
  account: ReturnType<CreationKit['accountOf']>;
  blocked: Promise<SentToCarrier | null>;
}

/** What the first step hands the call: the plan to mark it sent with, and the checks already under way. */
interface Given {
  plan?: SendPlan;
  preflight?: Preflight;
}

/** The record and the locks of an attempt, as `sendingState` reads them and the fenced `markSent` checks them. */
const markOf = (input: SendToCarrierInput) => ({
  id: input.creationId,
  storeId: input.storeId,
  fulfillmentOrderGids: input.fulfillmentOrderGids,
});

/** What carrier protection knows of an account: a change to its settings makes every shipment on it a new one. */
const protectedAccount = (account: CarrierAccount) => ({ id: account.id, updatedAt: account.updatedAt });

/** Where an attempt stands before the call: an answer already (nothing to send), or the call to make. */
type Attempt =
  | { kind: 'answered'; answer: SentToCarrier }
  | { kind: 'call'; account: CarrierAccount; settings: Settings; resumed: boolean; sentAt: Date };

/** The carrier request of a creation: the stable reference is its ID, the same for every retry and run. */
function shipmentRequest(creationId: string, call: CarrierCall): ShipmentRequest {
  return {
    reference: creationId,
    orderName: call.orderName,
    serviceCode: call.serviceCode,
    recipient: call.recipient,
    address: call.address,
    phone: call.phone,
    email: call.email,
    pickupPoint: call.pickupPoint,
    weightGrams: call.weightGrams,
    cod: call.cod,
    declaredValue: call.declaredValue,
    options: call.options,
  };
}

/** `sending_to_carrier`: the one create call at the carrier, behind carrier protection. */
export function carrierSend(kit: CreationKit) {
  const { deps, em } = kit;
  const protection = carrierProtectionGate(kit);
  const { call } = carrierCall(kit, protection);

  /**
   * The account and carrier protection's check for a call (`blocked`: its answer when the call may not be made), begun
   * at once; a failure of either surfaces where it is awaited.
   */
  function preflight(input: CallTarget): Preflight {
    const account = kit.accountOf(input.storeId, input.carrierCall.carrierAccountId);
    const blocked = account.then(({ account: a }) => protection.block(input, protectedAccount(a)));
    account.catch(() => undefined);
    blocked.catch(() => undefined);
    return { account, blocked };
  }

  /**
   * A first call after its checks: refused by carrier protection (`blocked`), or marked sent with the fenced
   * `markSent`, which confirms the creation's daily unit (spec "Limits"). null: the mark marked nothing (the record
   * moved, was marked before, or lost a lock), so the carrier is not called.
   */
  async function markFirstCall(
    input: SendToCarrierInput,
    found: Awaited<ReturnType<CreationKit['accountOf']>>,
    blocked: SentToCarrier | null,
    plan: SendPlan | undefined,
  ): Promise<Attempt | null> {
    if (blocked) return { kind: 'answered', answer: blocked };
    const sentAt = deps.now();
    if (!(await markSent(em(), { ...markOf(input), sentAt, plan }))) return null;
    return { kind: 'call', account: found.account, settings: found.settings, resumed: false, sentAt };
  }

  /**
   * Where the attempt stands (two reads side by side, two connections: the record, and the account it calls, whose
   * failure counts only once the record says the call is still to be made), then a first call's checks and mark.
   */
  async function startAttempt(input: SendToCarrierInput, plan?: SendPlan): Promise<Attempt> {
    const [row, found] = await Promise.all([
      sendingState(em(), markOf(input)),
      kit.accountOf(input.storeId, input.carrierCall.carrierAccountId).catch((error: unknown) => ({ error })),
    ]);
    const resumed = row?.sentAt !== null && row?.sentAt !== undefined;
    // A retry of an attempt that finished the creation here (its completion was lost with the worker): done.
    if (resumed && row.status === 'succeeded' && row.labelIds.length === 1) {
      return { kind: 'answered', answer: { kind: 'succeeded', labelId: row.labelIds[0]! } };
    }
    // A record no longer `processing` (failed by housekeeping while this worker stood still) is never sent.
    if (!resumed && row?.status !== 'processing') return { kind: 'answered', answer: { kind: 'lost_locks' } };
    if ('error' in found) throw found.error;
    if (resumed) return { kind: 'call', ...found, resumed, sentAt: new Date(row.sentAt!) };
    const lostLocks: Attempt = { kind: 'answered', answer: { kind: 'lost_locks' } };
    if (!row.holdsLocks) return lostLocks;
    const blocked = await protection.block(input, protectedAccount(found.account));
    return (await markFirstCall(input, found, blocked, plan)) ?? lostLocks;
  }

  /**
   * The first step's attempt, right after it took the locks: the checks were asked for while locking, and the fenced
   * mark says whether the record still is as the locks left it. null: it is not (marked before, moved, or its locks
   * gone): the attempt reads where it stands like any other.
   */
  async function startFresh(input: SendToCarrierInput, plan: SendPlan, checks: Preflight): Promise<Attempt | null> {
    const [found, blocked] = await Promise.all([checks.account, checks.blocked]);
    return markFirstCall(input, found, blocked, plan);
  }

  /**
   * `sending_to_carrier`: the one create call, never a second shipment. `sent_at` is written before the call (with the
   * plan it is made on, when given); a retry that finds it only looks the shipment up by the creation's reference. An
   * accepted shipment's label (and its PDF when the create returned one) is recorded here, so no PDF ever travels
   * through the workflow's history.
   */
  async function send(input: SendToCarrierInput, given: Given = {}): Promise<SentToCarrier> {
    const fresh = given.plan && given.preflight ? await startFresh(input, given.plan, given.preflight) : null;
    const attempt = fresh ?? (await startAttempt(input, given.plan));
    if (attempt.kind === 'answered') return attempt.answer;
    return call(input, attempt);
  }

  return { send, preflight };
}

/**
 * The create call of an attempt that may call, and what it came to: an accepted shipment's label recorded, every
 * outcome counted for carrier protection.
 */
function carrierCall(kit: CreationKit, protection: ReturnType<typeof carrierProtectionGate>) {
  const { deps } = kit;

  /**
   * A carrier that serves the label apart from the create (carrier A): one try right after the create, in the same
   * activity, saves the workflow a round trip. A failure is only logged (null): the workflow fetches with retries then.
   */
  async function fetchDocumentOnce(
    input: SendToCarrierInput,
    account: CarrierAccount,
    settings: Settings,
    shipmentId: string,
  ): Promise<LabelDocument | null> {
    try {
      return await deps.carrierFor(account.carrierCode).fetchLabel(settings, shipmentId);
    } catch (error) {
      deps.logger.warn({ err: error, label_creation_id: input.creationId }, 'label PDF not fetched with the create');
      return null;
    }
  }

  /**
   * An accepted shipment: its label recorded with the PDF when in hand (`ready` with the final number), and with
   * nothing to fulfil and no tag to add, the creation finished here (decision 0024).
   */
  async function accepted(
    input: SendToCarrierInput,
    attempt: Extract<Attempt, { kind: 'call' }>,
    outcome: Accepted,
    outcomeRecorded: Promise<void>,
  ): Promise<SentToCarrier> {
    const { account, settings } = attempt;
    const ready = outcome.shipment.status !== 'pending';
    const document =
      outcome.shipment.document ??
      (ready ? await fetchDocumentOnce(input, account, settings, outcome.shipment.shipmentId) : null);
    const finish = input.finishIfNothingFollows && !account.labelTag ? input.finishIfNothingFollows : null;
    const { labelId, finalized, succeeded } = await kit.record(
      input,
      account,
      { ...outcome.shipment, document },
      { finalize: ready, mayExist: attempt.resumed, ...(finish ? { succeedWith: NOTHING_FOLLOWED } : {}) },
    );
    await outcomeRecorded;
    if (succeeded && finish) {
      await kit.afterSucceeded({ ...input, queueTicketId: finish.queueTicketId, created: true });
      return { kind: 'succeeded', labelId };
    }
    return {
      kind: 'accepted',
      labelId,
      shipmentId: outcome.shipment.shipmentId,
      shipmentStatus: outcome.shipment.status === 'pending' ? 'pending' : 'ready',
      trackingNumber: outcome.shipment.trackingNumber,
      trackingUrl: outcome.shipment.trackingUrl,
      carrierReference: outcome.shipment.carrierReference,
      hasDocument: document !== null,
      finalized,
      labelTag: account.labelTag,
      sentAt: attempt.sentAt.toISOString(),
    };
  }

  /** The call and what it came to; the outcome is recorded for carrier protection while the label is stored. */
  async function call(input: SendToCarrierInput, attempt: Extract<Attempt, { kind: 'call' }>): Promise<SentToCarrier> {
    const { account, settings, resumed } = attempt;
    const request = shipmentRequest(input.creationId, input.carrierCall);
    const outcome = await sendShipment(deps.carrierFor(account.carrierCode), settings, request, { resumed });
    const outcomeRecorded = protection.record(input, outcome, protectedAccount(account));
    if (outcome.kind === 'accepted') return accepted(input, attempt, outcome, outcomeRecorded);
    await outcomeRecorded;
    const sentAt = attempt.sentAt.toISOString();
    if (outcome.kind === 'unclear') {
      return {
        kind: 'unclear',
        reason: outcome.reason,
        draftReference: outcome.draft?.carrierReference ?? null,
        sentAt,
      };
    }
    // The carrier's own words stay in the log; clients get the reason only.
    deps.logger.warn(
      { label_creation_id: input.creationId, reason: outcome.reason, carrier_text: outcome.carrierText },
      'carrier refused the shipment',
    );
    return { kind: 'rejected', reason: outcome.reason, sentAt };
  }

  return { call };
}

/** The carrier call as its own activity, after the workflow's prepare step (the caller beats the heartbeat). */
export function sendActivities(kit: CreationKit) {
  const { send } = carrierSend(kit);
  return {
    sendToCarrier: (input: SendToCarrierInput): Promise<SentToCarrier> => heartbeating(() => send(input)),
  };
}

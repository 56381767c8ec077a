import { Context, type Info } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { accountSettings } from '../src/carriers/account-settings';
import { carrierDefinition } from '../src/carriers/catalog';
import {
  ImportRejectedError,
  type LabelDocument,
  type ShipmentRequest,
  type ShipmentResult,
} from '../src/carriers/port';
import { createCarrierProtection, type ProtectedAccount } from '../src/carriers/protection/carrier-protection';
import { findByReference, sendShipment, type SendOutcome } from '../src/creation/carrier-call';
import { loadCreationSnapshot } from '../src/creation/load-context';
import type { CreationError, SideEffects, StoredAttention } from '../src/creation/records';
import {
  abandonCreation,
  deleteAbandonedCreation,
  resolveNotCreated,
  updateAttention,
  enterNeedsAttention,
  finalizeLabel,
  finishFailed,
  finishSucceeded,
  markSent,
  beginPreparing,
  sendingState,
  recordDecision,
  recordShipment,
  setPhase,
  storeDocument,
  takeLocks,
} from '../src/creation/transitions';
import { CarrierAccount } from '../src/db/entities/carrier-account';
import { updateLabelState } from '../src/db/labels-repository';
import { Store } from '../src/db/entities/store';
import {
  decideCreation,
  decisionRecord,
  type CarrierCall,
  type CreationDecision,
  type OrderRef,
  type ResolvedBlock,
} from '../src/domain/creation-decision';
import type { CreationContext } from '../src/domain/creation-context';
import type { CreationRequest } from '../src/domain/creation-request';
import { DomainError } from '../src/domain/errors';
import type { WaitFor } from '../src/domain/existing-labels';
import type { CodSource, FulfillmentMode, LabelCreationPhase, LabelCreationStatus } from '../src/domain/labels';
import type { CreationWarning } from '../src/domain/refusal';
import type { Resolution } from '../src/domain/resolve';
import { holdForUnresolvedCreation, releaseUnresolvedCreationHold } from '../src/locks/platform-holds';
import type { AcquireResult } from '../src/locks/fulfillment-order-locks';
import { createWriteLimits } from '../src/limits/write-limits';
import { PlatformRequestError, PlatformUnavailableError } from '../src/platform/port';
import type { ActivityDeps } from './deps';
import { creationUpdatedPublisher } from './webhooks';

/** The activities of the label-creation workflow (`workflows/label-creation/`): every side effect it has. */

type PreparedCreation =
  | {
      kind: 'prepared';
      context: CreationContext;
      /** The order's label state the decision saw (`order_label_state`), checked again under the locks. */
      orderState: string;
    }
  /** The record is no longer `processing` (a late duplicate run of an attempt that moved on): nothing to do. */
  | { kind: 'stopped'; status: string | null };

export interface PrepareInput {
  creationId: string;
  storeId: string;
  request: CreationRequest;
  lockStaleAfterMs: number;
}

type Prepared = Extract<PreparedCreation, { kind: 'prepared' }>;

/** `prepareAndLockCreation`: the snapshot, the decision taken on it, and for a decision to create its locks. */
export type PreparedAndLocked =
  | (Prepared & { decision: Extract<CreationDecision, { kind: 'create' }>; locked: AcquireResult })
  | (Prepared & { decision: Exclude<CreationDecision, { kind: 'create' }>; locked: null })
  | Extract<PreparedCreation, { kind: 'stopped' }>;

export type SentToCarrier =
  | {
      kind: 'accepted';
      labelId: string;
      shipmentId: string;
      /** `pending` until the carrier assigns the shipment number (carrier B batch). */
      shipmentStatus: 'pending' | 'ready';
      trackingNumber: string | null;
      trackingUrl: string | null;
      carrierReference: string;
      /** The PDF is stored: returned with the shipment, or fetched by the same activity. */
      hasDocument: boolean;
      /** The label was recorded `ready` (final number and PDF in hand): the workflow has nothing left to finalize. */
      finalized: boolean;
      /** The carrier account's label tag (null: nothing to tag), so the workflow schedules only side effects to do. */
      labelTag: string | null;
      sentAt: string;
    }
  | { kind: 'rejected'; reason: string; sentAt: string }
  | {
      kind: 'unclear';
      reason: 'carrier_timeout' | 'carrier_error' | 'worker_lost';
      /** Carrier D left an unprinted draft, found by the reference. */
      draftReference: string | null;
      sentAt: string;
    }
  /**
   * Accepted, recorded `ready`, and with nothing to follow (`finishIfNothingFollows`, no label tag): the creation was
   * finished `succeeded` in this activity (docs/decisions/0024-succeed-in-the-carrier-call.md).
   */
  | { kind: 'succeeded'; labelId: string }
  /** The creation's locks were taken over (it stood still too long): nothing was sent. */
  | { kind: 'lost_locks' }
  /** Carrier protection refused the call (`carrier_unavailable`, `repeated_rejection`): nothing was sent. */
  | { kind: 'blocked'; error: CreationError };

/** What a look at the carrier found while the creation needs attention (`recoverShipment`). */
export type Recovered =
  /** Nothing found (or the carrier did not answer): still unknown. */
  | { kind: 'not_found' }
  /** Carrier D: an unprinted draft, found by the reference. */
  | { kind: 'draft'; carrierReference: string }
  /** The shipment exists, without a usable label yet (batch pending, PDF not fetched). */
  | { kind: 'exists'; labelId: string; shipmentId: string; carrierReference: string }
  /** The label is obtained: recorded with its PDF stored, ready to be finalized. */
  | {
      kind: 'obtained';
      labelId: string;
      shipmentId: string;
      carrierReference: string;
      trackingNumber: string | null;
      trackingUrl: string | null;
    }
  /** Carrier B refused the batch's shipment at import. */
  | { kind: 'import_rejected'; labelId: string };

export interface SendToCarrierInput {
  creationId: string;
  storeId: string;
  order: OrderRef;
  fulfillmentOrderGids: string[];
  carrierCall: CarrierCall;
  serviceName: string;
  codSource: CodSource;
  codToCarrier: { amount: string; currency: string };
  /**
   * Set when no side effect can follow the label (fulfillment `none`): a label recorded `ready` for an account without
   * a label tag then finishes the creation here, saving the workflow a local activity (decision 0024).
   */
  finishIfNothingFollows?: { queueTicketId: string | null };
}

/** What finishes a creation `succeeded` (`succeedCreation`, or the carrier call when nothing follows). */
interface SucceedInput {
  creationId: string;
  /** The creation's store (optional for runs recorded before it was passed). */
  storeId?: string;
  queueTicketId: string | null;
  labelIds: string[];
  created: boolean;
  sideEffects: SideEffects;
  warnings?: CreationWarning[];
}

/** The side effects of a creation that fulfils nothing and tags nothing, as the workflow reports skipped ones. */
const NOTHING_FOLLOWED: SideEffects = {
  fulfillment: { mode: 'none', status: 'skipped' },
  orderTags: { status: 'skipped' },
};

/**
 * Reads of an order the store platform throttles or refuses before the creation fails `shopify_unavailable`: at the
 * prepare step's backoff (1, 2, 4 s) the last one is about 7 seconds in, well within `Prefer: wait`'s default 20.
 */
const PLATFORM_READ_ATTEMPTS = 4;

/**
 * Spec: a creation that has not reached the carrier 5 minutes after it was created fails `not_started`. The prepare
 * step's schedule-to-close timeout is that deadline, but Temporal's worker keeps retrying a failing local activity past
 * it (seen with SDK 1.24: attempts went on for minutes), so an attempt that starts past it ends the creation itself.
 */
export function endAtScheduleToClose(
  info: Pick<Info, 'scheduledTimestampMs' | 'scheduleToCloseTimeoutMs'>,
  nowMs: number,
): void {
  if (info.scheduleToCloseTimeoutMs <= 0 || nowMs < info.scheduledTimestampMs + info.scheduleToCloseTimeoutMs) return;
  throw nonRetryable(
    new DomainError('not_started', {
      message: 'The creation did not reach the carrier within 5 minutes; nothing was created. Send the request again.',
    }),
  );
}

/** Activities report business outcomes as data; a refusal that is not retryable fails with its spec code as type. */
function nonRetryable(error: DomainError): ApplicationFailure {
  return ApplicationFailure.nonRetryable(error.message, error.code, {
    code: error.code,
    message: error.message,
    details: error.details,
    retryAfterSeconds: error.retryAfterSeconds,
  });
}

/**
 * Worker metric `shipping_label_creations{status}`: creations by the status they reached (needs_attention included),
 * on the worker's Prometheus endpoint with the SDK's own metrics (docs/operators.md, "Metrics").
 */
function countCreation(status: LabelCreationStatus): void {
  Context.current()
    .metricMeter.createCounter('shipping_label_creations', '', 'Label creations by the status they reached')
    .withTags({ status })
    .add(1);
}

/** A platform that does not answer is retried by Temporal (a plain error); its refusals are reported as they are. */
async function platformCall<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof PlatformUnavailableError) throw new Error(error.message, { cause: error });
    throw error;
  }
}

export function createLabelCreationActivities(deps: ActivityDeps) {
  const em = () => deps.orm.em.fork();
  const limits = createWriteLimits({ orm: deps.orm, now: deps.now });
  /** `label_creation.updated` (spec "Events"), after a transition commits: `(creationId, transitionKey)`. */
  const publishCreationUpdated = creationUpdatedPublisher(deps);

  /**
   * Leaving `processing` frees the creation's write-queue place, and its daily unit comes back unless the carrier was
   * called (a confirmed unit stays counted): spec "Limits", docs/decisions/0405-creation-limits-wiring.md.
   */
  async function leftProcessing(creationId: string, queueTicketId: string | null, carrierCalled = false) {
    if (queueTicketId) await limits.writeQueue.release(queueTicketId);
    // A creation that made a label called the carrier, which confirmed its unit before the call: nothing to return.
    if (!carrierCalled) await limits.creationUnits.returnUnit(creationId);
  }

  /** After the record moved to `succeeded` (locks released with it): the write queue, the event and the metric. */
  async function afterSucceeded(input: Pick<SucceedInput, 'creationId' | 'storeId' | 'queueTicketId' | 'created'>) {
    await leftProcessing(input.creationId, input.queueTicketId, input.created);
    await publishCreationUpdated(input.creationId, 'succeeded', input.storeId);
    countCreation('succeeded');
  }

  async function accountOf(storeId: string, carrierAccountId: string) {
    const account = await em().findOneOrFail(CarrierAccount, { id: carrierAccountId, storeId });
    return { account, settings: accountSettings(account) };
  }

  /** An accepted shipment's label, recorded at once (with its PDF when there is one; `ready` with `finalize`). */
  function record(
    input: SendToCarrierInput,
    account: CarrierAccount,
    shipment: ShipmentResult,
    options: { finalize?: boolean; mayExist?: boolean; succeedWith?: SideEffects } = {},
  ) {
    return recordShipment(deps.orm, {
      ...options,
      creationId: input.creationId,
      storeId: input.storeId,
      order: input.order,
      fulfillmentOrderGids: input.fulfillmentOrderGids,
      carrierAccountId: account.id,
      carrierCode: account.carrierCode,
      service: { code: input.carrierCall.serviceCode, name: input.serviceName },
      cod: { ...input.codToCarrier, source: input.codSource },
      declaredValue: input.carrierCall.declaredValue,
      weightGrams: input.carrierCall.weightGrams,
      shipment,
      now: deps.now(),
    });
  }

  /** Stores a label's PDF as the carrier gave it (the document endpoints serve it from storage). */
  async function keepDocument(labelId: string, document: LabelDocument): Promise<void> {
    await storeDocument(em(), {
      labelId,
      pdf: document.pdf,
      pageSize: document.pageSize,
      pages: document.pages,
      now: deps.now(),
    });
  }

  /** Downloads and stores a label's PDF. */
  async function fetchAndStore(
    carrierCode: string,
    settings: ReturnType<typeof accountSettings>,
    shipmentId: string,
    labelId: string,
  ): Promise<void> {
    await keepDocument(labelId, await deps.carrierFor(carrierCode).fetchLabel(settings, shipmentId));
  }

  /**
   * A carrier that serves the label apart from the create (carrier A): one try right after the create, in the same
   * activity, saves the workflow a round trip. A failure is only logged (null): the workflow fetches with retries then.
   */
  async function fetchDocumentOnce(
    input: SendToCarrierInput,
    account: CarrierAccount,
    settings: ReturnType<typeof accountSettings>,
    shipmentId: string,
  ): Promise<LabelDocument | null> {
    try {
      return await deps.carrierFor(account.carrierCode).fetchLabel(settings, shipmentId);
    } catch (error) {
      deps.logger.warn({ err: error, label_creation_id: input.creationId }, 'label PDF not fetched with the create');
      return null;
    }
  }

  // ---- Carrier protection (docs/decisions/0500-carrier-protection.md): state in PostgreSQL, shared by every worker.
  const protection = createCarrierProtection({ orm: deps.orm, now: deps.now, settings: deps.carrierProtection });
  const protectionTarget = (input: SendToCarrierInput, account: ProtectedAccount) => ({
    storeId: input.storeId,
    call: input.carrierCall,
    fulfillmentOrderGids: input.fulfillmentOrderGids,
    account,
  });

  /** Checked before the call counts as sent: a blocked creation never reaches the carrier and gets its unit back. */
  async function protectionBlock(input: SendToCarrierInput, account: ProtectedAccount): Promise<SentToCarrier | null> {
    const decision = await protection.check(protectionTarget(input, account));
    if (decision.kind === 'allow') return null;
    deps.logger.warn(
      { label_creation_id: input.creationId, code: decision.refusal.code, details: decision.refusal.details },
      'carrier protection refused the carrier call',
    );
    const { code, message, details, retryAfterSeconds } = decision.refusal;
    return {
      kind: 'blocked',
      error: { code, message, details, ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}) },
    };
  }

  /** What the call came to, for the account's circuit and refusal counts. Never fails the call it describes. */
  async function recordOutcome(
    input: SendToCarrierInput,
    outcome: SendOutcome,
    account: ProtectedAccount,
  ): Promise<void> {
    try {
      await protection.record({
        ...protectionTarget(input, account),
        creationId: input.creationId,
        outcome: outcome.kind,
        reason: outcome.kind === 'accepted' ? null : outcome.reason,
      });
    } catch (error) {
      deps.logger.error({ err: error, label_creation_id: input.creationId }, 'carrier outcome not recorded');
    }
  }
  // ---- end of carrier protection

  async function prepare(input: PrepareInput): Promise<PreparedCreation> {
    const manager = em();
    const status = await beginPreparing(manager, { id: input.creationId, now: deps.now() });
    if (status !== 'processing') return { kind: 'stopped', status };
    try {
      // The order's label state comes from the same statement (snapshot) as the labels and creations decided on.
      const { context, orderState } = await loadCreationSnapshot(
        { em: manager, platform: deps.platform },
        {
          storeId: input.storeId,
          request: input.request,
          selfCreationId: input.creationId,
          lockStaleAfterMs: input.lockStaleAfterMs,
        },
      );
      return { kind: 'prepared', context, orderState };
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      // The platform throttled or failed: read again, a few times within the request's wait, then the creation fails
      // `shopify_unavailable` (docs/decisions/0027-platform-unavailable-live.md).
      const platformDown = error.code === 'shopify_unavailable';
      if (!platformDown || Context.current().info.attempt >= PLATFORM_READ_ATTEMPTS) throw nonRetryable(error);
      throw error;
    }
  }

  return {
    async setCreationPhase(input: {
      creationId: string;
      phase: LabelCreationPhase;
      waitingFor?: WaitFor | null;
    }): Promise<void> {
      await setPhase(em(), { id: input.creationId, phase: input.phase, waitingFor: input.waitingFor, now: deps.now() });
    },

    /**
     * `preparing`: everything the decision reads, from the store platform and the database, as one JSON snapshot; the
     * decision on it (the same pure function the dry run uses); and for a decision to create, its locks (all or none)
     * with the decision recorded, in one transaction: one local activity (decision 0023). A platform that cannot
     * answer is retried (transient); the creation's 5-minute deadline bounds the retries. Only a record still
     * `processing` is prepared (`stopped` otherwise: this run has nothing to do).
     */
    async prepareAndLockCreation(input: PrepareInput & { workflowId: string }): Promise<PreparedAndLocked> {
      endAtScheduleToClose(Context.current().info, deps.now().getTime());
      const prepared = await prepare(input);
      if (prepared.kind !== 'prepared') return prepared;
      const decision = decideCreation(prepared.context, input.request, deps.now().getTime());
      if (decision.kind !== 'create') return { ...prepared, decision, locked: null };
      const locked = await takeLocks(deps.orm, {
        id: input.creationId,
        storeId: input.storeId,
        workflowId: input.workflowId,
        decision: decisionRecord(decision),
        staleAfterMs: input.lockStaleAfterMs,
        expectedState: prepared.orderState,
        now: deps.now(),
      });
      return { ...prepared, decision, locked };
    },

    async recordCreationDecision(input: {
      creationId: string;
      order: OrderRef;
      fulfillmentOrderGids: string[];
      resolved: ResolvedBlock | null;
      warnings: CreationWarning[];
    }): Promise<void> {
      await recordDecision(em(), {
        id: input.creationId,
        order: input.order,
        fulfillmentOrderGids: input.fulfillmentOrderGids,
        resolved: input.resolved,
        warnings: input.warnings,
        now: deps.now(),
      });
    },

    /**
     * `sending_to_carrier`: the one create call, never a second shipment. `sent_at` is written before the call; a
     * retry of this activity (the worker was lost) that finds it only looks the shipment up by the creation's
     * reference. An accepted shipment's label (and its PDF when the create returned one) is recorded here, so no PDF
     * ever travels through the workflow's history.
     */
    async sendToCarrier(input: SendToCarrierInput): Promise<SentToCarrier> {
      const manager = em();
      // Two reads side by side (two connections): where the attempt stands, and the account it calls (whose failure
      // counts only once the record says the call is still to be made).
      const [row, found] = await Promise.all([
        sendingState(manager, {
          id: input.creationId,
          storeId: input.storeId,
          fulfillmentOrderGids: input.fulfillmentOrderGids,
        }),
        accountOf(input.storeId, input.carrierCall.carrierAccountId).catch((error: unknown) => ({ error })),
      ]);
      const resumed = row?.sentAt !== null && row?.sentAt !== undefined;
      // A retry of an attempt that finished the creation here (its completion was lost with the worker): done.
      if (resumed && row.status === 'succeeded' && row.labelIds.length === 1) {
        return { kind: 'succeeded', labelId: row.labelIds[0]! };
      }
      // A record no longer `processing` (failed by housekeeping while this worker stood still) is never sent.
      if (!resumed && row?.status !== 'processing') return { kind: 'lost_locks' };
      if ('error' in found) throw found.error;
      const { account, settings } = found;
      const protectedAccount = { id: account.id, updatedAt: account.updatedAt };
      if (!resumed) {
        if (!row.holdsLocks) return { kind: 'lost_locks' };
        const blocked = await protectionBlock(input, protectedAccount);
        if (blocked) return blocked;
        // Confirms the creation's daily unit with `sent_at`: it stays counted from here (spec "Limits").
        await markSent(manager, { id: input.creationId, sentAt: deps.now() });
      }
      const sentAt = resumed ? new Date(row.sentAt!) : deps.now();
      const heartbeat = setInterval(() => Context.current().heartbeat(), 1000);
      try {
        const call = input.carrierCall;
        const request: ShipmentRequest = {
          // The stable reference: the creation's ID, the same for every retry and run of this attempt.
          reference: input.creationId,
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
        const outcome = await sendShipment(deps.carrierFor(account.carrierCode), settings, request, { resumed });
        // Recorded while the label is fetched and stored (it never fails the call); done before the activity answers.
        const outcomeRecorded = recordOutcome(input, outcome, protectedAccount);
        const at = sentAt.toISOString();
        if (outcome.kind !== 'accepted') await outcomeRecorded;
        if (outcome.kind === 'rejected') {
          // The carrier's own words stay in the log; clients get the reason only.
          deps.logger.warn(
            { label_creation_id: input.creationId, reason: outcome.reason, carrier_text: outcome.carrierText },
            'carrier refused the shipment',
          );
          return { kind: 'rejected', reason: outcome.reason, sentAt: at };
        }
        if (outcome.kind === 'unclear') {
          return {
            kind: 'unclear',
            reason: outcome.reason,
            draftReference: outcome.draft?.carrierReference ?? null,
            sentAt: at,
          };
        }
        const ready = outcome.shipment.status !== 'pending';
        const document =
          outcome.shipment.document ??
          (ready ? await fetchDocumentOnce(input, account, settings, outcome.shipment.shipmentId) : null);
        // Final number and PDF in hand: the label is recorded `ready`, with nothing left for the workflow to finalize.
        // Nothing to fulfil and no tag to add: a label recorded `ready` finishes the creation here (decision 0024).
        const finish = input.finishIfNothingFollows && !account.labelTag ? input.finishIfNothingFollows : null;
        const { labelId, finalized, succeeded } = await record(
          input,
          account,
          { ...outcome.shipment, document },
          { finalize: ready, mayExist: resumed, ...(finish ? { succeedWith: NOTHING_FOLLOWED } : {}) },
        );
        await outcomeRecorded;
        if (succeeded && finish) {
          await afterSucceeded({
            creationId: input.creationId,
            storeId: input.storeId,
            queueTicketId: finish.queueTicketId,
            created: true,
          });
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
          sentAt: at,
        };
      } finally {
        clearInterval(heartbeat);
      }
    },

    /** Carrier B: whether the batch completed (`ready` with its shipment number) or was refused at import. */
    async checkShipment(input: {
      storeId: string;
      carrierAccountId: string;
      shipmentId: string;
    }): Promise<
      | { status: 'pending' }
      | { status: 'ready'; trackingNumber: string | null; trackingUrl: string | null }
      | { status: 'import_rejected' }
    > {
      const { account, settings } = await accountOf(input.storeId, input.carrierAccountId);
      try {
        const shipment = await deps.carrierFor(account.carrierCode).getShipment(settings, input.shipmentId);
        return shipment.status === 'pending'
          ? { status: 'pending' }
          : { status: 'ready', trackingNumber: shipment.trackingNumber, trackingUrl: shipment.trackingUrl };
      } catch (error) {
        if (error instanceof ImportRejectedError) return { status: 'import_rejected' };
        throw error;
      }
    },

    /** The label's PDF from the carrier, stored for the document endpoints; failures are retried by Temporal. */
    async fetchLabelDocument(input: {
      storeId: string;
      carrierAccountId: string;
      shipmentId: string;
      labelId: string;
    }): Promise<void> {
      const { account, settings } = await accountOf(input.storeId, input.carrierAccountId);
      await fetchAndStore(account.carrierCode, settings, input.shipmentId, input.labelId);
    },

    /** `finalizing`: the phase, then the label ready with its final tracking number. */
    async finalizeCreationLabel(input: {
      creationId: string;
      storeId: string;
      labelId: string;
      trackingNumber: string | null;
      trackingUrl: string | null;
      weightGrams: number;
    }): Promise<void> {
      const { creationId, ...label } = input;
      await setPhase(em(), { id: creationId, phase: 'finalizing', now: deps.now() });
      await finalizeLabel(deps.orm, { ...label, now: deps.now() });
    },

    /**
     * Fulfils the target on the store platform with the tracking number. The platform's own refusals (an export holds
     * the fulfillment order, it is no longer open) are reported, never overridden; an unreachable platform is retried.
     */
    async fulfillOrder(input: {
      storeId: string;
      fulfillmentOrderGids: string[];
      mode: Exclude<FulfillmentMode, 'none'>;
      trackingNumber: string | null;
      trackingUrl: string | null;
      carrierCode: string;
    }): Promise<'succeeded' | 'failed'> {
      const store = await em().findOneOrFail(Store, { id: input.storeId });
      try {
        await deps.platform.fulfill(store.domain, {
          fulfillmentOrderIds: input.fulfillmentOrderGids,
          trackingNumber: input.trackingNumber,
          trackingUrl: input.trackingUrl,
          carrierName: carrierDefinition(input.carrierCode).name,
          notifyCustomer: input.mode === 'fulfill_and_notify',
        });
        return 'succeeded';
      } catch (error) {
        if (error instanceof PlatformRequestError) {
          deps.logger.warn({ store_id: input.storeId, code: error.code }, 'platform refused the fulfillment');
          return 'failed';
        }
        if (error instanceof PlatformUnavailableError) throw new Error(error.message, { cause: error });
        throw error;
      }
    },

    /** Adds the carrier account's label tag to the order, when the account has one. */
    async tagOrder(input: {
      storeId: string;
      orderGid: string;
      carrierAccountId: string;
    }): Promise<'succeeded' | 'skipped' | 'failed'> {
      const { account } = await accountOf(input.storeId, input.carrierAccountId);
      if (!account.labelTag) return 'skipped';
      const store = await em().findOneOrFail(Store, { id: input.storeId });
      try {
        await deps.platform.addOrderTags(store.domain, input.orderGid, [account.labelTag]);
        return 'succeeded';
      } catch (error) {
        if (error instanceof PlatformRequestError) return 'failed';
        if (error instanceof PlatformUnavailableError) throw new Error(error.message, { cause: error });
        throw error;
      }
    },

    /** Spec "Label `status`": the creation's pending label failed (refused at import, or never finalized). */
    async failCreationLabel(input: {
      storeId: string;
      labelId: string;
      reason: 'carrier_import_rejected' | 'not_finalized';
    }): Promise<void> {
      await updateLabelState(em(), {
        storeId: input.storeId,
        labelId: input.labelId,
        patch: { status: 'failed', failureReason: input.reason },
        now: deps.now(),
      });
    },

    /** A covering label another process created, while this creation waits to adopt it. */
    async labelState(input: { storeId: string; labelId: string }): Promise<{ status: string } | null> {
      const [row] = await em().execute<Array<{ status: string }>>(
        'select status from labels where store_id = ? and id = ?',
        [input.storeId, input.labelId],
      );
      return row ?? null;
    },

    async succeedCreation(input: SucceedInput): Promise<void> {
      await finishSucceeded(deps.orm, { id: input.creationId, ...input, now: deps.now() });
      await afterSucceeded(input);
    },

    async failCreation(input: {
      creationId: string;
      queueTicketId: string | null;
      error: CreationError;
    }): Promise<void> {
      await finishFailed(deps.orm, { id: input.creationId, error: input.error, now: deps.now() });
      await leftProcessing(input.creationId, input.queueTicketId);
      await publishCreationUpdated(input.creationId, 'failed');
      countCreation('failed');
    },

    async creationNeedsAttention(input: {
      creationId: string;
      queueTicketId: string | null;
      attention: StoredAttention;
    }): Promise<void> {
      await enterNeedsAttention(em(), { id: input.creationId, attention: input.attention, now: deps.now() });
      await leftProcessing(input.creationId, input.queueTicketId);
      await publishCreationUpdated(input.creationId, 'needs_attention');
      countCreation('needs_attention');
    },
    /**
     * `needs_attention`: one look at the carrier by the creation's stable reference (never a create). A shipment found
     * for the first time is recorded as the creation's label; a label is fetched and stored when the carrier has one.
     * Every failure to learn more is `not_found`/`exists` (the next look comes later), never an error.
     */
    async recoverShipment(
      input: SendToCarrierInput & {
        labelId: string | null;
        shipmentId: string | null;
        carrierReference: string | null;
      },
    ): Promise<Recovered> {
      const { account, settings } = await accountOf(input.storeId, input.carrierCall.carrierAccountId);
      const port = deps.carrierFor(account.carrierCode);
      let shipment: ShipmentResult;
      let labelId = input.labelId;
      if (!input.shipmentId || !labelId) {
        const found = await findByReference(port, settings, input.creationId);
        if (found.kind === 'none') return { kind: 'not_found' };
        if (found.kind === 'draft') return { kind: 'draft', carrierReference: found.draft.carrierReference };
        shipment = found.shipment;
        labelId = (await record(input, account, shipment)).labelId;
      } else {
        const known = {
          kind: 'exists' as const,
          labelId,
          shipmentId: input.shipmentId,
          carrierReference: input.carrierReference ?? input.shipmentId,
        };
        try {
          shipment = await port.getShipment(settings, input.shipmentId);
        } catch (error) {
          if (error instanceof ImportRejectedError) return { kind: 'import_rejected', labelId };
          return known;
        }
      }
      const exists = {
        kind: 'exists' as const,
        labelId,
        shipmentId: shipment.shipmentId,
        carrierReference: shipment.carrierReference,
      };
      if (shipment.status !== 'ready') return exists;
      const [stored] = await em().execute('select 1 from label_documents where label_id = ?', [labelId]);
      if (!stored) {
        try {
          await keepDocument(labelId, shipment.document ?? (await port.fetchLabel(settings, shipment.shipmentId)));
        } catch {
          return exists;
        }
      }
      return {
        kind: 'obtained',
        labelId,
        shipmentId: shipment.shipmentId,
        carrierReference: shipment.carrierReference,
        trackingNumber: shipment.trackingNumber,
        trackingUrl: shipment.trackingUrl,
      };
    },

    /**
     * `needs_attention` locks the fulfillment orders for admin and automation exports too: the platform's own hold,
     * with the creation as its handle (docs/decisions/0014-unresolved-creation-platform-hold.md).
     */
    async holdUnresolvedFulfillmentOrders(input: {
      storeId: string;
      creationId: string;
      fulfillmentOrderGids: string[];
    }): Promise<void> {
      await platformCall(() => holdForUnresolvedCreation(deps, input));
    },

    /** Leaving `needs_attention`: the creation's platform hold goes (before any fulfillment, which a hold refuses). */
    async releaseUnresolvedFulfillmentOrders(input: {
      storeId: string;
      creationId: string;
      fulfillmentOrderGids: string[];
    }): Promise<void> {
      await platformCall(() => releaseUnresolvedCreationHold(deps, input));
    },

    async updateCreationAttention(input: { creationId: string; attention: StoredAttention }): Promise<void> {
      await updateAttention(em(), { id: input.creationId, attention: input.attention, now: deps.now() });
      // One event per distinct thing learned (a retry of this activity emits nothing new).
      const learned = `${input.attention.shipmentAtCarrier}:${input.attention.carrierReference ?? ''}`;
      await publishCreationUpdated(input.creationId, `attention_updated:${learned}`);
    },

    /** Resolve `not_created`: failed `resolved_not_created`, locks and key released. */
    async resolveCreationNotCreated(input: {
      creationId: string;
      error: CreationError;
      resolution: Resolution;
    }): Promise<void> {
      await resolveNotCreated(deps.orm, {
        id: input.creationId,
        error: input.error,
        resolution: input.resolution,
        now: deps.now(),
      });
      await publishCreationUpdated(input.creationId, 'resolved_not_created');
      countCreation('failed');
    },

    /** Resolve `shipment_exists`, or 24 hours in `needs_attention`: abandoned, locks released, key bound. */
    async abandonUnresolvedCreation(input: { creationId: string; resolution: Resolution | null }): Promise<void> {
      await abandonCreation(deps.orm, { id: input.creationId, resolution: input.resolution, now: deps.now() });
      await publishCreationUpdated(input.creationId, 'abandoned');
      countCreation('abandoned');
    },

    /** 90 days after creation: the abandoned creation's record goes, and with it its block on the order. */
    async deleteAbandonedCreation(input: { creationId: string }): Promise<{ deleted: boolean }> {
      return { deleted: await deleteAbandonedCreation(em(), input.creationId) };
    },
  };
}

export type LabelCreationActivities = ReturnType<typeof createLabelCreationActivities>;

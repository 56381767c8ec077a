import {
  allHandlersFinished,
  condition,
  getExternalWorkflowHandle,
  log,
  setCurrentDetails,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import {
  applyCreationEvent,
  phaseAfter,
  positionOf,
  statusAfter,
  type CreationEvent,
} from '../../src/domain/creation-phases';
import { refusal, type CreationError } from '../../src/domain/refusal';
import { decideResolve, type ResolveOutcome } from '../../src/domain/resolve';
import { CREATION_STATUS } from '../search-attributes';
import { workflowNow } from '../workflow-time';
import { local } from './activities';
import { currentDetails, requestedOrder, timerSummary, type ChosenCarrier } from './details';
import {
  awaitOutcomeUpdate,
  creationStateQuery,
  locksReleasedSignal,
  notifyOnReleaseSignal,
  resolveUpdate,
  toFailure,
  type CreationSnapshot,
  type CreationState,
  type LabelCreationInput,
  type ResolveInput,
} from './contract';

/** How long a resolve's answer waits for the platform hold's release, past which the release goes on without it. */
const RESOLVE_WAITS_FOR_RELEASE_MS = 5_000;

/**
 * One run of a label creation: its state, the handlers of its contract, and what every phase shares (status and
 * phase changes, failing, waking the creations that wait for its fulfillment orders, finishing). The phases are the
 * modules beside this one.
 */
export class CreationRun {
  /** Changed only by `apply`, through the creation's phase table (lint: no assignment to `state` fields elsewhere). */
  private current: CreationState;
  /** The 5-minute deadline to reach the carrier, from when the API claimed the record. */
  readonly deadline: number;
  /** A look at the carrier (and what follows from it) is under way: a resolve waits for it, then decides again. */
  busy = false;
  /**
   * A resolve moved the creation and its fulfillment orders' platform hold is being released: the resolve's answer
   * waits for it (bounded), so a merchant who acts on the answer finds the orders free (set only by runs that took the
   * `resolve-after-release` patch).
   */
  holdReleasing = false;
  private locksReleased = false;
  private released = false;
  private readonly waiters = new Set<string>();
  /** For the Web UI's current details: the order, carrier account and service once decided, the next look. */
  order: string;
  carrier: ChosenCarrier | null = null;
  nextLookAtMs: number | null = null;
  abandonAtMs: number | null = null;
  /** Reads of the order the platform failed in the first step (decision 1010), counted by the prepare step. */
  failedPlatformReads = 0;

  constructor(readonly input: LabelCreationInput) {
    this.deadline = input.createdAtMs + input.durations.notStartedMs;
    this.current = {
      creationId: input.creationId,
      status: 'processing',
      phase: 'queued',
      waitingFor: null,
      labelIds: [],
      error: null,
      attention: null,
      resolution: null,
    };
    this.order = requestedOrder(input.request.order);
  }

  get state(): Readonly<CreationState> {
    return this.current;
  }

  get creationId(): string {
    return this.input.creationId;
  }

  get storeId(): string {
    return this.input.storeId;
  }

  get durations() {
    return this.input.durations;
  }

  /** What every prepare step takes: the creation, its workflow (the locks' holder) and its request. */
  prepareInput() {
    return {
      creationId: this.creationId,
      storeId: this.storeId,
      workflowId: workflowInfo().workflowId,
      request: this.input.request,
      lockStaleAfterMs: this.durations.lockStaleMs,
    };
  }

  snapshot(): CreationSnapshot {
    return { creationId: this.creationId, status: this.state.status, phase: this.state.phase };
  }

  /** The contract's handlers: the state query, the outcome wait, the resolve (validated), and the lock signals. */
  setHandlers(): void {
    setHandler(creationStateQuery, () => this.state);
    setHandler(
      awaitOutcomeUpdate,
      async ({ waitMs }) => {
        if (this.state.status === 'processing' && waitMs > 0) {
          await condition(() => this.state.status !== 'processing', waitMs, {
            summary: timerSummary.outcomeWait(waitMs),
          });
        }
        return this.snapshot();
      },
      {
        validator: ({ creationId: asked }) => {
          if (asked !== this.creationId) throw new Error(`this run is attempt ${this.creationId}, not ${asked}`);
        },
      },
    );
    setHandler(
      resolveUpdate,
      async (input) => {
        await condition(() => !this.busy);
        // Decided again: the look that was under way may have found the shipment.
        if (this.refuseResolve(input.outcome).kind === 'repeat') return this.snapshot();
        this.apply({ kind: 'resolve', resolution: { ...input, resolvedAt: new Date(workflowNow()).toISOString() } });
        await condition(() => this.state.status !== 'needs_attention');
        if (this.holdReleasing)
          await condition(() => !this.holdReleasing, RESOLVE_WAITS_FOR_RELEASE_MS, {
            summary: timerSummary.holdRelease(RESOLVE_WAITS_FOR_RELEASE_MS),
          });
        return this.snapshot();
      },
      { validator: (input: ResolveInput) => void this.refuseResolve(input.outcome) },
    );
    setHandler(notifyOnReleaseSignal, async ({ workflowId }) => {
      if (!this.released) this.waiters.add(workflowId);
      else await wake(workflowId);
    });
    setHandler(locksReleasedSignal, () => {
      this.locksReleased = true;
    });
    this.describe();
  }

  /** Keeps the Web UI's current details true: called at every change of status, phase, attention or next look. */
  describe(): void {
    setCurrentDetails(
      currentDetails({
        state: this.state,
        storeId: this.storeId,
        order: this.order,
        carrier: this.carrier,
        deadlineMs: this.deadline,
        nextLookAtMs: this.nextLookAtMs,
        abandonAtMs: this.abandonAtMs,
        looking: this.busy,
      }),
    );
  }

  /** The resolve decided over the workflow's own state; a refusal is thrown with the spec's code (the validator's). */
  private refuseResolve(outcome: ResolveOutcome) {
    const decision = decideResolve(
      {
        status: this.state.status,
        attention: this.state.status === 'needs_attention' ? this.state.attention : null,
        resolution: this.state.resolution,
      },
      outcome,
      workflowNow(),
    );
    if (decision.kind !== 'refuse') return decision;
    throw toFailure(decision.refusal);
  }

  /**
   * The one way the run's state changes: an event of the creation's phase table (src/domain/creation-phases.ts), as
   * the record's writes take it. Refused where the creation stands, it changes nothing (and says so in the log).
   */
  apply(event: CreationEvent): boolean {
    const next = applyCreationEvent(this.current, event);
    if (!next) {
      log.warn('creation event refused by the phase table', { event: event.kind, at: positionOf(this.current) });
      return false;
    }
    this.current = next;
    this.describe();
    return true;
  }

  /** An event that ends `processing` (or `needs_attention`): the status an operator filters on follows. */
  settle(
    event: Extract<CreationEvent, { kind: 'succeed' | 'fail' | 'need_attention' | 'resolve_not_created' | 'abandon' }>,
  ): void {
    this.apply(event);
    upsertSearchAttributes([{ key: CREATION_STATUS, value: statusAfter(event.kind)! }]);
  }

  /** A move within `processing` that the record takes too (its phase and what it waits for). */
  async move(event: Extract<CreationEvent, { kind: 'wait_for_lock' | 'await_carrier' }>): Promise<void> {
    this.apply(event);
    const waitingFor = event.kind === 'wait_for_lock' ? event.waitingFor : null;
    await local.setCreationPhase({ creationId: this.creationId, phase: phaseAfter(event.kind)!, waitingFor });
  }

  /** A terminal change that releases the locks: wake every creation that waited for them. */
  async releasedLocks(): Promise<void> {
    this.released = true;
    for (const waiter of this.waiters) await wake(waiter);
    this.waiters.clear();
  }

  async fail(error: CreationError): Promise<void> {
    // The record of this call is named, unless the code's own details name another creation (the one that blocks).
    const named = (error.details?.label_creation_id as string | null | undefined) ?? this.creationId;
    const failed: CreationError = { ...error, details: { ...error.details, label_creation_id: named } };
    await local.failCreation({ creationId: this.creationId, error: failed, queueTicketId: this.input.queueTicketId });
    this.settle({ kind: 'fail', error: failed });
    await this.releasedLocks();
  }

  notStarted(): Promise<void> {
    return this.fail(
      refusal(
        'not_started',
        'The creation did not reach the carrier within 5 minutes; nothing was created. Send the request again.',
      ),
    );
  }

  /** Waits for held fulfillment orders: woken by the holding creation, or polled for exports and as a fallback. */
  async waitForHolder(holderWorkflowIds: string[]): Promise<void> {
    this.locksReleased = false;
    for (const holder of holderWorkflowIds) {
      try {
        await getExternalWorkflowHandle(holder).signal(notifyOnReleaseSignal, {
          workflowId: workflowInfo().workflowId,
        });
      } catch {
        // The holder already ended: decide again at once.
        return;
      }
    }
    await condition(() => this.locksReleased, this.untilDeadline(this.durations.lockRetryMs), {
      summary: timerSummary.lockHolder(this.order),
    });
  }

  /** At most `ms`, and never past the deadline (at least 1 ms: a zero timeout would not wait at all). */
  untilDeadline(ms: number): number {
    return Math.max(1, Math.min(ms, this.deadline - workflowNow()));
  }

  /** Every waiting request gets its answer before the run ends. */
  async finish(): Promise<CreationSnapshot> {
    await condition(allHandlersFinished);
    return this.snapshot();
  }
}

async function wake(workflowId: string): Promise<void> {
  try {
    await getExternalWorkflowHandle(workflowId).signal(locksReleasedSignal);
  } catch {
    // The waiter ended meanwhile; nothing to wake.
  }
}

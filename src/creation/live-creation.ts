import { createHash } from 'node:crypto';
import { ServiceError, WithStartWorkflowOperation, WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import type { Config } from '../config';
import type { Orm } from '../db/orm';
import type { Logger } from '../logger';
import type { WriteLimits } from '../limits/write-limits';
import type { WriteQueueTicket } from '../limits/write-queue';
import type { StorePlatformPort } from '../platform/port';
import { idempotencyFingerprint, requestedWire } from '../domain/creation-request';
import { parseOrderId } from '../domain/platform-ids';
import { DomainError } from '../domain/errors';
import type { CreationRequest } from '../domain/creation-request';
import type { BucketState } from '../domain/rate-limits';
import { newId } from '../ids';
import {
  awaitOutcomeUpdate,
  creationWorkflowId,
  LABEL_CREATION_WORKFLOW,
  type CreationDurations,
  type LabelCreationInput,
  type LabelCreationWorkflow,
} from '../../workflows/label-creation/contract';
import { REQUEST_ID_MEMO } from '../../workflows/request-id-contract';
import { IDEMPOTENCY_KEY, LABEL_CREATION_ID, CREATION_STATUS, STORE_ID } from '../../workflows/search-attributes';
import { requestedOrder, startMetadata } from '../../workflows/label-creation/details';
import { readOrderName, withOrderName } from './order-name';
import { takeWaitHold } from './prefer-wait';
import { claimCreation, dropClaim, isKeyBound, readCreation, readCreationById, type CreationRow } from './records';

/** A live `POST /labels` after every request check passed: what the creation needs from the HTTP edge. */
export interface LiveCreationInput {
  storeId: string;
  apiKeyId: string;
  /** `Idempotency-Key`, validated (8 to 255 characters, not `auto`). */
  idempotencyKey: string;
  /** `Prefer: wait=N`, 0 to 60 seconds (default 20). */
  waitSeconds: number;
  /** The normalized request: what idempotency compares and the decisions read. */
  request: CreationRequest;
  /** `order_name` as the request gave it: the creation's order name until the creation has found the order. */
  orderName?: string | null | undefined;
  /** Whether the key was bound when the request's limit class was decided (`isBound`); looked up when absent. */
  keyBound?: boolean | undefined;
  /** The request's `X-Request-Id`: the workflow's start memo, which its log lines and spans name. */
  requestId?: string | undefined;
  /** Told the state of every limit the creation takes (the daily units, the write queue), for the answer's headers. */
  noteLimits?: (states: readonly BucketState[]) => void;
}

/** What a live creation ends with: its record as it is when the answer is due. The route renders it. */
export interface CreationOutcome {
  row: CreationRow;
  /** `Prefer: wait=N` as applied (`Preference-Applied`): 0 when the request could not hold its answer open. */
  waitSeconds: number;
  /** A repeat of a bound key answered with the original outcome (`Idempotency-Replayed: true`). */
  replayed: boolean;
}

/** The label-creation service the API calls; `createApp` takes it as a dependency. */
export interface LiveCreation {
  /** Carries out a live creation (or joins the running one) and returns its outcome, or throws its refusal. */
  create(input: LiveCreationInput): Promise<CreationOutcome>;
  /**
   * Whether `Idempotency-Key` is bound to a creation of the store: a repeat of a bound key counts as a read, not a
   * creation (spec "Limits"). Absent while nothing binds keys.
   */
  isBound?(input: { storeId: string; idempotencyKey: string }): Promise<boolean>;
}

export interface LiveCreationDeps {
  orm: Orm;
  /** The write queue, wait holds and daily creation units (docs/decisions/0405-creation-limits-wiring.md). */
  limits: WriteLimits;
  logger: Logger;
  temporal: Client;
  config: Pick<Config, 'temporal' | 'creation' | 'carrierTimeoutMs'>;
  now: () => Date;
  /** The order's name for an answer given before the creation read the order (`./order-name.ts`). */
  platform: Pick<StorePlatformPort, 'getOrder'>;
}

export function creationDurations(config: LiveCreationDeps['config']): CreationDurations {
  const c = config.creation;
  return {
    notStartedMs: c.notStartedMs,
    lockRetryMs: c.lockRetryMs,
    lockStaleMs: c.lockStaleMs,
    adoptionPollMs: c.adoptionPollMs,
    carrierPendingMaxMs: c.carrierPendingMaxMs,
    carrierPollMs: c.carrierPollMs,
    resolveAllowedAfterMs: c.resolveAllowedAfterMs,
    attentionRetryInitialMs: c.attentionRetryInitialMs,
    attentionRetryMaxMs: c.attentionRetryMaxMs,
    abandonAfterMs: c.abandonAfterMs,
    abandonedDeleteAfterMs: c.abandonedDeleteAfterMs,
    carrierTimeoutMs: config.carrierTimeoutMs,
  };
}

/** How often a request retries joining while an earlier, failed attempt's run is still closing (milliseconds). */
const JOIN_RETRY_MS = 150;
const JOIN_ATTEMPTS = 40;
/** Spec `temporarily_unavailable`: write path unavailable, `Retry-After: 5`. */
const UNAVAILABLE_RETRY_AFTER = 5;

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/**
 * The API side of a live `POST /labels` (docs/decisions/0012-live-creation.md): takes the creation's daily unit and
 * write-queue place, claims the creation record (binding the idempotency key), then starts the creation's workflow or
 * joins the running one with update-with-start, waiting in the workflow (not in a loop over PostgreSQL) until the
 * creation leaves `processing` or `Prefer: wait` runs out, and answers from the record.
 */
// eslint-disable-next-line max-lines-per-function -- item 1 (reservation): being split in issue 45
export function temporalLiveCreation(deps: LiveCreationDeps): LiveCreation {
  const durations = creationDurations(deps.config);

  /** Starts or joins the creation's run and waits in it; returns early when Temporal takes no more updates of it now. */
  async function waitInWorkflow(
    row: CreationRow,
    input: LiveCreationInput,
    waitSeconds: number,
    queueTicketId: string | null,
    repeat: boolean,
  ): Promise<void> {
    const workflowInput: LabelCreationInput = {
      creationId: row.id,
      storeId: input.storeId,
      idempotencyKey: input.idempotencyKey,
      request: input.request,
      createdAtMs: new Date(row.created_at).getTime(),
      queueTicketId,
      durations,
    };
    for (let attempt = 1; ; attempt += 1) {
      const start = new WithStartWorkflowOperation<LabelCreationWorkflow>(LABEL_CREATION_WORKFLOW, {
        workflowId: row.workflow_id ?? creationWorkflowId(input.storeId, input.idempotencyKey),
        taskQueue: deps.config.temporal.taskQueue,
        args: [workflowInput],
        workflowIdConflictPolicy: 'USE_EXISTING',
        workflowIdReusePolicy: 'ALLOW_DUPLICATE',
        typedSearchAttributes: [
          { key: STORE_ID, value: input.storeId },
          { key: LABEL_CREATION_ID, value: row.id },
          { key: CREATION_STATUS, value: 'processing' },
          { key: IDEMPOTENCY_KEY, value: input.idempotencyKey },
        ],
        // The request that started the creation (workflows/request-id-interceptor.ts); a join keeps the first one's.
        ...(input.requestId ? { memo: { [REQUEST_ID_MEMO]: input.requestId } } : {}),
        // What the Web UI shows at the top of the creation's page (its phases are the workflow's current details).
        ...startMetadata({
          creationId: row.id,
          storeId: input.storeId,
          idempotencyKey: input.idempotencyKey,
          order: requestedOrder(input.request.order),
          carrierAccountId: input.request.carrierAccountId,
        }),
      });
      try {
        await deps.temporal.workflow.executeUpdateWithStart(awaitOutcomeUpdate, {
          args: [{ creationId: row.id, waitMs: waitSeconds * 1000 }],
          startWorkflowOperation: start,
        });
        return;
      } catch (error) {
        // The workflow ID still runs an earlier attempt that has just failed (it closes in a moment), or Temporal
        // takes no more updates of this workflow right now (a burst of repeats): try again shortly.
        const busy = error instanceof ServiceError && (error.cause as { code?: number } | undefined)?.code === 8;
        if ((error instanceof WorkflowUpdateFailedError || busy) && attempt < JOIN_ATTEMPTS) {
          const current = busy ? await readCreationById(deps.orm.em.fork(), row.id) : null;
          // A repeat of a running creation need not wait in it: its record answers.
          if (current && !(current.status === 'processing' && current.phase === 'queued')) return;
          await new Promise((resolve) => setTimeout(resolve, JOIN_RETRY_MS));
          continue;
        }
        // A repeat still refused after every try joins a creation that another request started and that runs (Temporal
        // refuses updates of a running workflow only): its record answers, as with `wait=0`, never 503.
        if (busy && repeat) return;
        throw error;
      }
    }
  }

  /**
   * A new creation takes its daily unit and a place in the store's write queue before anything is bound: both side by
   * side (two connections), and whichever was taken is given back when the other refuses (the unit's refusal first).
   */
  async function takeWriteLimits(input: LiveCreationInput, creationId: string) {
    const [units, ticket] = await Promise.allSettled([
      deps.limits.creationUnits.reserve({
        storeId: input.storeId,
        unitId: creationId,
        createNew: input.request.onExisting === 'create_new',
      }),
      deps.limits.writeQueue.enter(input.storeId),
    ]);
    if (units.status === 'fulfilled' && ticket.status === 'fulfilled') {
      input.noteLimits?.(units.value);
      input.noteLimits?.([ticket.value.state]);
      return ticket.value;
    }
    if (units.status === 'fulfilled') await deps.limits.creationUnits.returnUnit(creationId);
    if (ticket.status === 'fulfilled') await ticket.value.release();
    throw units.status === 'rejected' ? units.reason : (ticket as PromiseRejectedResult).reason;
  }

  async function giveBack(ticket: WriteQueueTicket | null, creationId: string) {
    await ticket?.release();
    await deps.limits.creationUnits.returnUnit(creationId);
  }

  return {
    isBound: (input) =>
      isKeyBound(deps.orm.em.fork(), { ...input, now: deps.now(), keyTtlMs: deps.config.creation.keyTtlMs }),

    async create(input: LiveCreationInput): Promise<CreationOutcome> {
      const em = deps.orm.em.fork();
      const requestHash = sha256(idempotencyFingerprint(input.request));
      const order = input.request.order.by === 'id' ? parseOrderId(input.request.order.id) : null;
      const creationId = newId('labelCreation');
      // Second precision, like every timestamp on the wire and the list's keyset.
      const now = new Date(Math.floor(deps.now().getTime() / 1000) * 1000);
      // A repeat of a bound key joins its creation and takes nothing; a refusal of a new one binds nothing.
      const repeat =
        input.keyBound ??
        (await isKeyBound(em, {
          storeId: input.storeId,
          idempotencyKey: input.idempotencyKey,
          now,
          keyTtlMs: deps.config.creation.keyTtlMs,
        }));
      // At most 8 requests per key hold their answer open; the others answer at once, as with `wait=0`. The hold is
      // asked for alongside the limits and the claim (its own connection) and always given back, also on a refusal;
      // once the wait is over it is given back while the answer is read.
      const hold = takeWaitHold(
        { waitHolds: deps.limits.waitHolds, logger: deps.logger },
        input.apiKeyId,
        input.waitSeconds,
      );
      // An answer due at once (`wait=0`) for a new creation of an order known by ID comes before the creation has read
      // the order: its name is read beside the claim, so the answer has it without waiting longer.
      const early =
        order && !repeat && input.waitSeconds === 0
          ? readOrderName(deps, { storeId: input.storeId, orderGid: order.gid })
          : null;
      try {
        let ticket = repeat ? null : await takeWriteLimits(input, creationId);
        const claim = await claimCreation(em, {
          id: creationId,
          storeId: input.storeId,
          apiKeyId: input.apiKeyId,
          idempotencyKey: input.idempotencyKey,
          requestHash,
          requested: requestedWire(input.request),
          clientReference: input.request.clientReference,
          workflowId: creationWorkflowId(input.storeId, input.idempotencyKey),
          order: order ? { gid: order.gid, legacyId: order.legacyId } : null,
          orderName: input.request.order.by === 'name' ? (input.orderName ?? input.request.order.name) : null,
          queueTicketId: ticket?.id ?? null,
          now,
          keyTtlMs: deps.config.creation.keyTtlMs,
        });
        if (!claim.claimed && !repeat) {
          // Another request bound the key meanwhile: this one is a repeat after all.
          await giveBack(ticket, creationId);
          ticket = null;
        }
        const waitSeconds = await hold.granted();
        const row = claim.row;
        if (!claim.claimed) {
          if (row.request_hash !== requestHash) {
            throw new DomainError('idempotency_conflict', {
              message: 'This Idempotency-Key is bound to a different request; a new request needs a new key.',
              details: { idempotency_key: input.idempotencyKey, label_creation_id: row.id },
            });
          }
          // Spec "Idempotency of POST /labels": only a running creation is joined; every other state answers at once.
          if (row.status !== 'processing') {
            return { row, waitSeconds, replayed: row.status === 'succeeded' };
          }
        }
        try {
          await waitInWorkflow(row, input, waitSeconds, ticket?.id ?? null, !claim.claimed);
        } catch (error) {
          deps.logger.error({ err: error, label_creation_id: row.id }, 'label creation workflow unreachable');
          const current = await readCreationById(deps.orm.em.fork(), row.id);
          // A workflow that moved carries on: answer what the creation is. One that never moved binds nothing.
          if (!current || (current.status === 'processing' && current.phase === 'queued')) {
            if (claim.claimed) {
              await dropClaim(em, row.id);
              await giveBack(ticket, creationId);
            }
            throw new DomainError('temporarily_unavailable', {
              message: 'Label creation is unavailable right now; nothing was created. Send the same request again.',
              retryAfterSeconds: UNAVAILABLE_RETRY_AFTER,
            });
          }
        }
        void hold.release();
        // The record with its labels in one statement: the answer renders both.
        const moved = await readCreation(deps.orm.em.fork(), input.storeId, row.id);
        return { row: await withOrderName(deps, moved ?? row, early), waitSeconds, replayed: false };
      } finally {
        await hold.release();
      }
    },
  };
}

import { createHash } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { Orm } from '../db/orm';
import type { Logger } from '../logger';
import type { WriteLimits } from '../limits/write-limits';
import type { CreationDecision, OrderRef } from '../domain/creation-decision';
import { idempotencyFingerprint, requestedWire, type CreationRequest } from '../domain/creation-request';
import { DomainError } from '../domain/errors';
import { parseOrderId } from '../domain/platform-ids';
import { isRefusedAccess } from '../platform/unavailable';
import { newId } from '../ids';
import { creationWorkflowId } from '../../workflows/label-creation/contract';
import type { CarrierProtection } from './carrier-protection';
import { startOrJoinRun, type CreationRun, type CreationRunConfig } from './creation-run';
import { decideBeforeCarrier, type BeforeCarrierDeps } from './decide-before-carrier';
import { JOIN_BUSY_WORKFLOW, joinBusyWorkflow, type JoinRetryPolicy } from './join-policy';
import { boundKeyAnswer, creationUnavailable, neverMoved, runAnswer } from './live-answer';
import type { CreationOutcome, LiveCreation, LiveCreationInput } from './live-creation-types';
import { takeWaitHold } from './prefer-wait';
import {
  claimCreation,
  dropClaim,
  isKeyBound,
  readCreation,
  readCreationById,
  type CreationRow,
  type NewClaim,
} from './records';
import { reserve, type Reservation, type ReservationPorts } from './reservation';

export type { CreationOutcome, LiveCreation, LiveCreationInput } from './live-creation-types';

/** What the live creation reads and calls: the database, Temporal and the platform behind plain functions. */
export interface LiveCreationPorts {
  reservation: ReservationPorts;
  isKeyBound(input: { storeId: string; idempotencyKey: string; now: Date }): Promise<boolean>;
  /** The dry run's decision on a fresh read (`decideBeforeCarrier`): the checks on arrival (decision 0120). */
  decideOnArrival(input: { storeId: string; request: CreationRequest }): Promise<CreationDecision>;
  /** One start-or-join of the creation's run, waiting in it (`startOrJoinRun`). */
  startOrJoin(run: CreationRun): Promise<void>;
  readCreationById(id: string): Promise<CreationRow | null>;
  /** The record with its labels in one statement: the answer renders both. */
  readAnswer(storeId: string, id: string): Promise<CreationRow | null>;
  now(): Date;
  sleep(ms: number): Promise<void>;
  logger: Logger;
  /** Spec "Limits": a key binds its creation for 30 days. */
  keyTtlMs: number;
  joinPolicy: JoinRetryPolicy;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/**
 * The claim a new creation makes at `clock` (second precision, like every timestamp on the wire and the list's keyset).
 * The order is the one the checks on arrival found, so every answer names it, an early 202 included (decision 0122);
 * without it, what the request says of it.
 */
function newClaim(
  input: LiveCreationInput,
  found: OrderRef | null,
  given: { clock: Date; keyTtlMs: number },
): Omit<NewClaim, 'queueTicketId'> {
  const { request } = input;
  const parsed = request.order.by === 'id' ? parseOrderId(request.order.id) : null;
  const order = found ? { gid: found.id, legacyId: found.legacyId } : parsed;
  const named = request.order.by === 'name' ? (input.orderName ?? request.order.name) : null;
  return {
    id: newId('labelCreation'),
    storeId: input.storeId,
    apiKeyId: input.apiKeyId,
    idempotencyKey: input.idempotencyKey,
    requestHash: sha256(idempotencyFingerprint(request)),
    requested: requestedWire(request),
    clientReference: request.clientReference,
    workflowId: creationWorkflowId(input.storeId, input.idempotencyKey),
    order: order ? { gid: order.gid, legacyId: order.legacyId } : null,
    orderName: found?.name ?? named,
    now: given.clock,
    keyTtlMs: given.keyTtlMs,
  };
}

/** What the checks on arrival let through: a new creation (with the order they found, when they read it), or a repeat. */
type Arrival = { repeat: false; order: OrderRef | null } | { repeat: true };

/**
 * The API side of a live `POST /labels` (docs/decisions/0012-live-creation.md, 1100-creation-reservation.md,
 * 0120-checks-on-arrival.md) as four steps: the checks on arrival (`arrive`), reserve the creation's resources
 * (`reserve`), join its run (`join`), answer from its record (`answer`). The reservation is released once, whichever
 * way the request ends.
 */
export function createLiveCreation(ports: LiveCreationPorts): LiveCreation {
  /** Starts or joins the run. True when it runs (or the record answers); false when it never started. */
  async function tryJoin(reservation: Reservation, input: LiveCreationInput): Promise<boolean> {
    const { row, claimed } = reservation.claim;
    try {
      await joinBusyWorkflow({
        policy: ports.joinPolicy,
        attempt: () =>
          ports.startOrJoin({
            row,
            input,
            waitSeconds: reservation.waitSeconds,
            queueTicketId: reservation.queueTicketId,
          }),
        recordAnswers: async () => !neverMoved(await ports.readCreationById(row.id)),
        repeat: !claimed,
        sleep: (ms) => ports.sleep(ms),
      });
      return true;
    } catch (error) {
      ports.logger.error({ err: error, label_creation_id: row.id }, 'label creation workflow unreachable');
      // A workflow that moved carries on: answer what the creation is.
      return !neverMoved(await ports.readCreationById(row.id));
    }
  }

  /** Hands the creation's resources over to its run, or gives them back and refuses with 503 when it never started. */
  async function join(reservation: Reservation, input: LiveCreationInput): Promise<void> {
    let started: boolean;
    try {
      started = await tryJoin(reservation, input);
    } catch (error) {
      // Whether the run started is not known: its resources are left to it and to their leases.
      reservation.handOver();
      throw error;
    }
    if (!started) {
      await reservation.release();
      throw creationUnavailable();
    }
    reservation.handOver();
  }

  /** The record as it is once the wait is over; the hold is given back while it is read. */
  async function answer(reservation: Reservation): Promise<CreationOutcome> {
    const { row } = reservation.claim;
    const [moved] = await Promise.all([ports.readAnswer(row.store_id, row.id), reservation.release()]);
    return runAnswer(row, moved, reservation.waitSeconds);
  }

  /**
   * The checks on arrival (docs/decisions/0120-checks-on-arrival.md): a new key's request is decided as the dry run
   * decides it, and a refusal is thrown before anything is claimed. A repeat of a bound key is answered by the
   * idempotency table instead, and so is a request whose key another one bound while it was checked. A read that
   * failed decides nothing: the creation goes ahead, and its worker reads again with its own retries; but the store
   * platform refusing this installation access (decision 0706) is an answer, the one the worker would give at once.
   */
  async function arrive(input: LiveCreationInput, repeat: boolean, clock: Date): Promise<Arrival> {
    if (repeat) return { repeat: true };
    const { storeId, idempotencyKey, request } = input;
    let refused: DomainError;
    try {
      const decision = await ports.decideOnArrival({ storeId, request });
      if (decision.kind !== 'refuse') return { repeat: false, order: decision.order };
      refused = DomainError.from(decision.refusal);
    } catch (error) {
      if (!(error instanceof DomainError && isRefusedAccess(error))) {
        ports.logger.warn({ err: error, store_id: storeId }, 'checks on arrival not made: the worker decides alone');
        return { repeat: false, order: null };
      }
      refused = error;
    }
    if (await ports.isKeyBound({ storeId, idempotencyKey, now: clock })) return { repeat: true };
    throw refused;
  }

  return {
    isBound: (input) => ports.isKeyBound({ ...input, now: ports.now() }),

    async create(input) {
      const clock = new Date(Math.floor(ports.now().getTime() / 1000) * 1000);
      const { storeId, idempotencyKey } = input;
      // A repeat of a bound key joins its creation and takes nothing; a refusal of a new one binds nothing.
      const bound = input.keyBound ?? (await ports.isKeyBound({ storeId, idempotencyKey, now: clock }));
      // The hold is asked for beside the checks on arrival: it spends nothing and is given back on a refusal.
      const hold = takeWaitHold(ports.reservation, input.apiKeyId, input.waitSeconds);
      let arrival: Arrival;
      try {
        arrival = await arrive(input, bound, clock);
      } catch (error) {
        await hold.release();
        throw error;
      }
      const claim = newClaim(input, arrival.repeat ? null : arrival.order, { clock, keyTtlMs: ports.keyTtlMs });
      const reservation = await reserve(ports.reservation, {
        hold,
        repeat: arrival.repeat,
        createNew: input.request.onExisting === 'create_new',
        claim,
        noteLimits: input.noteLimits,
      });
      try {
        const answered = boundKeyAnswer(reservation.claim, { ...claim, idempotencyKey }, reservation.waitSeconds);
        if (answered) return answered;
        await join(reservation, input);
        return await answer(reservation);
      } finally {
        await reservation.release();
      }
    },
  };
}

/** The creation settings the live creation reads from the process's configuration. */
export interface LiveCreationConfig extends CreationRunConfig {
  creation: CreationRunConfig['creation'] & { keyTtlMs: number };
}

export interface LiveCreationDeps {
  orm: Orm;
  /** The write queue, wait holds and daily creation units (docs/decisions/0405-creation-limits-wiring.md). */
  limits: WriteLimits;
  logger: Logger;
  temporal: Client;
  config: LiveCreationConfig;
  now: () => Date;
  /** What the checks on arrival read the order from. */
  platform: BeforeCarrierDeps['platform'];
  /** Its blocks are answered on arrival, as the dry run answers them. */
  carrierProtection: Pick<CarrierProtection, 'check'>;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The live creation over PostgreSQL, the limits and Temporal: what `createApp` is given. */
export function temporalLiveCreation(deps: LiveCreationDeps): LiveCreation {
  const fork = () => deps.orm.em.fork();
  const keyTtlMs = deps.config.creation.keyTtlMs;
  return createLiveCreation({
    reservation: {
      waitHolds: deps.limits.waitHolds,
      creationUnits: deps.limits.creationUnits,
      writeQueue: deps.limits.writeQueue,
      claims: { claim: (claim) => claimCreation(fork(), claim), drop: (id) => dropClaim(fork(), id) },
      logger: deps.logger,
    },
    isKeyBound: (input) => isKeyBound(fork(), { ...input, keyTtlMs }),
    decideOnArrival: (input) => decideBeforeCarrier(deps, input),
    startOrJoin: startOrJoinRun(deps),
    readCreationById: (id) => readCreationById(fork(), id),
    readAnswer: (storeId, id) => readCreation(fork(), storeId, id),
    now: deps.now,
    sleep,
    logger: deps.logger,
    keyTtlMs,
    joinPolicy: JOIN_BUSY_WORKFLOW,
  });
}

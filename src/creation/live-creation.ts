import { createHash } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { Orm } from '../db/orm';
import type { Logger } from '../logger';
import type { WriteLimits } from '../limits/write-limits';
import type { StorePlatformPort } from '../platform/port';
import { idempotencyFingerprint, requestedWire } from '../domain/creation-request';
import { parseOrderId } from '../domain/platform-ids';
import { newId } from '../ids';
import { creationWorkflowId } from '../../workflows/label-creation/contract';
import { startOrJoinRun, type CreationRun, type CreationRunConfig } from './creation-run';
import { JOIN_BUSY_WORKFLOW, joinBusyWorkflow, type JoinRetryPolicy } from './join-policy';
import { boundKeyAnswer, creationUnavailable, neverMoved, runAnswer } from './live-answer';
import type { CreationOutcome, LiveCreation, LiveCreationInput } from './live-creation-types';
import { readOrderName, withOrderName } from './order-name';
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
  /** One start-or-join of the creation's run, waiting in it (`startOrJoinRun`). */
  startOrJoin(run: CreationRun): Promise<void>;
  readCreationById(id: string): Promise<CreationRow | null>;
  /** The record with its labels in one statement: the answer renders both. */
  readAnswer(storeId: string, id: string): Promise<CreationRow | null>;
  /** The order's name for an answer given before the creation read the order (`./order-name.ts`). */
  readOrderName(storeId: string, orderGid: string): Promise<string | null>;
  withOrderName(row: CreationRow, early: Promise<string | null> | null): Promise<CreationRow>;
  now(): Date;
  sleep(ms: number): Promise<void>;
  logger: Logger;
  /** Spec "Limits": a key binds its creation for 30 days. */
  keyTtlMs: number;
  joinPolicy: JoinRetryPolicy;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** The claim a new creation makes; `now` at second precision, like every timestamp on the wire and the list's keyset. */
function newClaim(input: LiveCreationInput, clock: Date, keyTtlMs: number): Omit<NewClaim, 'queueTicketId'> {
  const { request } = input;
  const order = request.order.by === 'id' ? parseOrderId(request.order.id) : null;
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
    orderName: request.order.by === 'name' ? (input.orderName ?? request.order.name) : null,
    now: new Date(Math.floor(clock.getTime() / 1000) * 1000),
    keyTtlMs,
  };
}

/**
 * The API side of a live `POST /labels` (docs/decisions/0012-live-creation.md, 1100-creation-reservation.md) as three
 * steps: reserve the creation's resources (`reserve`), join its run (`join`), answer from its record (`answer`). The
 * reservation is released once, whichever way the request ends.
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
  async function answer(
    reservation: Reservation,
    input: LiveCreationInput,
    early: Promise<string | null> | null,
  ): Promise<CreationOutcome> {
    const { row } = reservation.claim;
    const [moved] = await Promise.all([ports.readAnswer(input.storeId, row.id), reservation.release()]);
    const answered = runAnswer(row, moved, reservation.waitSeconds);
    return { ...answered, row: await ports.withOrderName(answered.row, early) };
  }

  return {
    isBound: (input) => ports.isKeyBound({ ...input, now: ports.now() }),

    async create(input) {
      const claim = newClaim(input, ports.now(), ports.keyTtlMs);
      const { storeId, idempotencyKey } = input;
      // A repeat of a bound key joins its creation and takes nothing; a refusal of a new one binds nothing.
      const repeat = input.keyBound ?? (await ports.isKeyBound({ storeId, idempotencyKey, now: claim.now }));
      // An answer due at once (`wait=0`) for a new creation of an order known by ID comes before the creation has read
      // the order: its name is read beside the reservation, so the answer has it without waiting longer.
      const early =
        claim.order && !repeat && input.waitSeconds === 0 ? ports.readOrderName(storeId, claim.order.gid) : null;
      const reservation = await reserve(ports.reservation, {
        apiKeyId: input.apiKeyId,
        waitSeconds: input.waitSeconds,
        repeat,
        createNew: input.request.onExisting === 'create_new',
        claim,
        noteLimits: input.noteLimits,
      });
      try {
        const bound = boundKeyAnswer(reservation.claim, { ...claim, idempotencyKey }, reservation.waitSeconds);
        if (bound) return bound;
        await join(reservation, input);
        return await answer(reservation, input, early);
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
  /** The order's name for an answer given before the creation read the order (`./order-name.ts`). */
  platform: Pick<StorePlatformPort, 'getOrder'>;
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
    startOrJoin: startOrJoinRun(deps),
    readCreationById: (id) => readCreationById(fork(), id),
    readAnswer: (storeId, id) => readCreation(fork(), storeId, id),
    readOrderName: (storeId, orderGid) => readOrderName(deps, { storeId, orderGid }),
    withOrderName: (row, early) => withOrderName(deps, row, early),
    now: deps.now,
    sleep,
    logger: deps.logger,
    keyTtlMs,
    joinPolicy: JOIN_BUSY_WORKFLOW,
  });
}

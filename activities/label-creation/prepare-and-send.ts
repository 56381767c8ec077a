import { Context } from '@temporalio/activity';
import { recordedSentAt, sentPlan } from '../../src/creation/transitions';
import { sendInputFor } from '../../workflows/label-creation/contract';
import { DomainError } from '../../src/domain/errors';
import { heartbeating, type CreationKit } from './kit';
import type { prepareStep } from './prepare';
import type { carrierSend, Preflight } from './send';
import type { PrepareAndSendInput, PreparedAndSent, PreparedAndLocked, SendPlan } from './types';

/** The platform throttled or refused the read: `shopify_unavailable`, retryable or (its reads spent) not. */
const isPlatformDown = (error: unknown) =>
  (error instanceof DomainError ? error.code : (error as { type?: unknown } | null)?.type) === 'shopify_unavailable';

/**
 * The creation's first step (docs/decisions/1010-prepare-in-the-carrier-call.md): prepare, decide and lock, and when
 * that is a decision to create with every lock taken, the carrier call on it, in one activity: the workflow's first
 * task schedules one activity, as a workflow with nothing but the carrier call would.
 */
export function prepareAndSendActivities(
  kit: CreationKit,
  prepareAndLock: ReturnType<typeof prepareStep>,
  carrier: ReturnType<typeof carrierSend>,
) {
  /** The prepare step; any failure of it (a platform down, a database error) leaves preparing to the workflow. */
  async function prepared(
    input: PrepareAndSendInput,
    decided: Parameters<typeof prepareAndLock>[1],
  ): Promise<PreparedAndLocked | Extract<PreparedAndSent, { kind: 'not_prepared' }>> {
    try {
      return await prepareAndLock(input, decided);
    } catch (error) {
      kit.deps.logger.warn({ err: error, label_creation_id: input.creationId }, 'prepare step left to the workflow');
      // The platform's failed read counts toward the reads the workflow's step makes before `shopify_unavailable`.
      return { kind: 'not_prepared', platformReadFailed: isPlatformDown(error) };
    }
  }

  /** The plan the creation was marked sent with (`markSent` writes it as a `SendPlan`); null: not sent. */
  const planOf = (creationId: string) => sentPlan(kit.em(), creationId) as Promise<SendPlan | null>;

  /** The first step itself; the heartbeat covers the platform's reads as well as the call. */
  async function firstStep(input: PrepareAndSendInput): Promise<PreparedAndSent> {
    // A retry (the worker was lost) after the call was marked sent carries on from the plan it was made on.
    if (Context.current().info.attempt > 1) {
      const plan = await planOf(input.creationId);
      if (plan) return { kind: 'sent', ...plan, sent: await carrier.send(plan.sendInput) };
    }
    // Nothing was sent: prepared afresh (the creation's own locks are taken again as they are).
    if (kit.deps.now().getTime() >= input.deadlineMs) return { kind: 'not_prepared', platformReadFailed: false };
    // The carrier account and carrier protection's check are read while the locks are taken.
    let checks: Preflight | undefined;
    const outcome = await prepared(input, (decision) => {
      checks = carrier.preflight({
        creationId: input.creationId,
        storeId: input.storeId,
        carrierCall: decision.carrierCall,
        fulfillmentOrderGids: decision.targetFulfillmentOrderIds,
      });
    });
    if (outcome.kind === 'not_prepared') return outcome;
    if (outcome.kind !== 'prepared' || outcome.decision.kind !== 'create' || !outcome.locked?.acquired) {
      return { kind: 'prepared', outcome };
    }
    const plan: SendPlan = {
      decision: outcome.decision,
      sendInput: sendInputFor(input, outcome.decision, outcome.context.carrierAccounts),
    };
    return { kind: 'sent', ...plan, sent: await carrier.send(plan.sendInput, { plan, preflight: checks }) };
  }

  return {
    /** For a workflow whose first step never answered: whether (and on what plan) the carrier may have been called. */
    sentCreationPlan: (input: { creationId: string }): Promise<SendPlan | null> => planOf(input.creationId),

    /**
     * For a workflow whose carrier call never answered: when the call was marked sent (the `attention.sent_at` of
     * `worker_lost`), or null when it never was, so the carrier was not called (decision 0137).
     */
    creationSentAt: (input: { creationId: string }): Promise<string | null> =>
      recordedSentAt(kit.em(), input.creationId),

    prepareAndSendToCarrier: (input: PrepareAndSendInput): Promise<PreparedAndSent> =>
      heartbeating(() => firstStep(input)),
  };
}

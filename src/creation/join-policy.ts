import { ServiceError, WorkflowUpdateFailedError } from '@temporalio/client';

/** gRPC status `RESOURCE_EXHAUSTED`: Temporal takes no more updates of the workflow right now. */
export const GRPC_RESOURCE_EXHAUSTED = 8;

/**
 * Why Temporal would not start or join a creation's run just now:
 * - `closing`: the workflow ID still runs an earlier attempt of the key that has just failed; its `awaitOutcome`
 *   validator refuses the new attempt's ID, and the run closes in a moment (docs/decisions/0012-live-creation.md);
 * - `overloaded`: the workflow has as many updates in flight as Temporal allows (a burst of repeats).
 */
export type BusyRefusal = 'closing' | 'overloaded';

/** The refusal `error` is when Temporal is busy with the workflow, or null for any other error. */
export function busyRefusal(error: unknown): BusyRefusal | null {
  if (error instanceof WorkflowUpdateFailedError) return 'closing';
  const code = error instanceof ServiceError ? (error.cause as { code?: unknown } | undefined)?.code : undefined;
  return code === GRPC_RESOURCE_EXHAUSTED ? 'overloaded' : null;
}

/** How a request tries again to join a busy workflow: `attempts` tries in all, `backoffMs` apart. */
export interface JoinRetryPolicy {
  attempts: number;
  backoffMs: number;
}

/** About 6 s: longer than a failed attempt's run takes to close, shorter than a client's patience for an answer. */
export const JOIN_BUSY_WORKFLOW: JoinRetryPolicy = { attempts: 40, backoffMs: 150 };

/** `joined`: the request waited in the run. `left_to_record`: the record answers without it. */
export type JoinResult = 'joined' | 'left_to_record';

export interface JoinAttempts {
  policy: JoinRetryPolicy;
  /** One start-or-join of the run (update-with-start), waiting in it. */
  attempt(): Promise<void>;
  /** Whether the creation's record answers already (the creation moved): asked when the workflow is overloaded. */
  recordAnswers(): Promise<boolean>;
  /** The request repeats a bound key: another request started the creation, and it runs. */
  repeat: boolean;
  sleep(ms: number): Promise<void>;
}

/**
 * Starts or joins the creation's run, trying again while Temporal is busy with it (`JoinRetryPolicy`). Any other
 * error, or a busy refusal past the last attempt, is thrown; except that a repeat still refused as `overloaded` leaves
 * the answer to the record (Temporal refuses updates of a running workflow only), as with `wait=0`, never 503.
 */
export async function joinBusyWorkflow(join: JoinAttempts): Promise<JoinResult> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      await join.attempt();
      return 'joined';
    } catch (error) {
      const refusal = busyRefusal(error);
      if (refusal === null) throw error;
      if (attempt >= join.policy.attempts) {
        if (refusal === 'overloaded' && join.repeat) return 'left_to_record';
        throw error;
      }
      // A repeat of a creation that has moved need not wait in it: its record answers.
      if (refusal === 'overloaded' && (await join.recordAnswers())) return 'left_to_record';
      await join.sleep(join.policy.backoffMs);
    }
  }
}

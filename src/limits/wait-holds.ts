import { randomUUID } from 'node:crypto';
import type { Orm } from '../db/orm';
import { PREFER_WAIT_HOLDS_PER_KEY } from '../domain/rate-limits';

/** A request allowed to hold its answer for `Prefer: wait`; release it once the answer is sent. */
export interface WaitHold {
  id: string;
  release(): Promise<void>;
}

export interface WaitHolds {
  /**
   * A hold for `waitSeconds`, or `null` when the key already has 8: the request then answers at once as with `wait=0`
   * (spec "Limits"; `Preference-Applied: wait=0`).
   */
  hold(apiKeyId: string, waitSeconds: number): Promise<WaitHold | null>;
}

/** A hold outlives its wait by this much before it stops counting (the answer is being written). */
const HOLD_MARGIN_MS = 10_000;

/**
 * At most 8 requests per API key hold a `Prefer: wait` at once, across every API process: holds are rows of
 * `rate_limit_leases`, admitted by `wait_hold_take` (one statement) under a per-key transaction lock; a process that
 * dies frees its holds when they expire.
 */
export function createWaitHolds(deps: { orm: Orm; now: () => Date }): WaitHolds {
  return {
    async hold(apiKeyId, waitSeconds) {
      const now = deps.now();
      const id = randomUUID();
      const [row] = await deps.orm.em
        .fork()
        .execute<Array<{ held: boolean }>>('select wait_hold_take(?, ?, ?, ?, ?) as held', [
          id,
          apiKeyId,
          now,
          new Date(now.getTime() + waitSeconds * 1000 + HOLD_MARGIN_MS),
          PREFER_WAIT_HOLDS_PER_KEY,
        ]);
      if (!row?.held) return null;
      return {
        id,
        release: async () => {
          await deps.orm.em.fork().execute('delete from rate_limit_leases where id = ?', [id]);
        },
      };
    },
  };
}

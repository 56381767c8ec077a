import { DomainError } from '../domain/errors';
import {
  bucketCharges,
  rateLimitedRefusal,
  refusingBucket,
  tightestBucket,
  windowBucketState,
  type BucketState,
  type LimitCharge,
} from '../domain/rate-limits';
import type { RouteDefinition, RouteInput } from './route';
import type { AppContext, RequestLimits } from './state';
import type { Logger } from '../logger';
import type { TakeBuckets, TakenBucket } from '../limits/counter-store';
import { rateLimitHeaders } from '../limits/headers';
import { isTransientDatabaseError } from '../db/unreachable';

/** The router's hook: runs after authentication and validation, before the handler (src/http/router.ts). */
export interface RequestLimiter {
  admit(ctx: AppContext, route: RouteDefinition, input: RouteInput<unknown, unknown, unknown>): Promise<void>;
  /**
   * The buckets the admission statement already took together with authentication (src/http/admission.ts), taken
   * at `nowMs`: sets the request's limits and headers, or throws 429 `rate_limited`.
   */
  settle(ctx: AppContext, taken: readonly TakenBucket[], nowMs: number): void;
}

const COUNTERS_RETRY_AFTER_SECONDS = 5;

/**
 * Counters that cannot be read refuse the request, never let it through unlimited: 503 `temporarily_unavailable`
 * (`Retry-After: 5`); a render's metering failing is 503 `carrier_unavailable` without `reason` (spec "Errors").
 */
export function countersUnavailable(rendering: boolean): DomainError {
  return rendering
    ? new DomainError('carrier_unavailable', {
        message: 'Renders at the carrier cannot be metered right now; try again shortly.',
        retryAfterSeconds: COUNTERS_RETRY_AFTER_SECONDS,
      })
    : new DomainError('temporarily_unavailable', {
        message: 'Rate-limit counters are unavailable; nothing was done. Send the same request again shortly.',
        retryAfterSeconds: COUNTERS_RETRY_AFTER_SECONDS,
      });
}

/**
 * Enforces the spec's "Limits" per route class: one statement to the shared counter store per charge (one per request
 * on every route but the documents', which charge once they know what they serve), the `X-RateLimit-*` headers of the
 * tightest bucket on every answer that passed (errors included: the error middleware keeps them), 429
 * `rate_limited` with the refusing bucket's `Retry-After` and headers otherwise.
 */
export function createRequestLimiter(deps: { take: TakeBuckets; now: () => Date; logger: Logger }): RequestLimiter {
  function requestLimits(ctx: AppContext): RequestLimits & {
    settleTaken: (taken: readonly TakenBucket[], nowMs: number) => void;
  } {
    const seen: BucketState[] = [];
    const note = (states: readonly BucketState[]) => {
      seen.push(...states);
      const tightest = tightestBucket(seen);
      if (tightest) ctx.set(rateLimitHeaders(tightest));
    };
    /** The buckets' states once taken (none when nothing is charged), or `countersUnavailable` when unreachable. */
    const take = async (charges: readonly LimitCharge[]): Promise<BucketState[]> => {
      const buckets = bucketCharges(charges);
      if (buckets.length === 0) return [];
      const auth = ctx.state.auth!;
      const nowMs = deps.now().getTime();
      let taken: TakenBucket[];
      try {
        taken = await deps.take({ storeId: auth.storeId, apiKeyId: auth.apiKeyId, nowMs, charges: buckets });
      } catch (error) {
        if (!isTransientDatabaseError(error)) throw error;
        deps.logger.error({ request_id: ctx.state.requestId, err: error }, 'rate-limit counters unavailable');
        throw countersUnavailable(charges.some((c) => c.limitClass === 'render' && c.units > 0));
      }
      return taken.map((t) => windowBucketState(t, nowMs));
    };
    const settle = (states: BucketState[]) => {
      const refused = refusingBucket(states);
      if (refused) throw DomainError.from(rateLimitedRefusal(refused));
      note(states);
    };
    const charge = async (charges: readonly LimitCharge[]) => settle(await take(charges));
    const tryCharge = async (charges: readonly LimitCharge[]) => {
      let states: BucketState[];
      try {
        states = await take(charges);
      } catch (error) {
        if (error instanceof DomainError) return false;
        throw error;
      }
      // A refused bucket has none left: the headers describe it.
      note(states);
      return !refusingBucket(states);
    };
    const settleTaken = (taken: readonly TakenBucket[], nowMs: number) =>
      settle(taken.map((t) => windowBucketState(t, nowMs)));
    return { charge, tryCharge, note, settleTaken };
  }

  return {
    async admit(ctx, route, input) {
      const limits = route.limits;
      if (!limits) return;
      const own = requestLimits(ctx);
      ctx.state.limits = own;
      if (typeof limits === 'string') return own.charge([{ limitClass: limits, units: 1 }]);
      if ('classify' in limits) return own.charge([{ limitClass: await limits.classify(ctx, input), units: 1 }]);
    },
    settle(ctx, taken, nowMs) {
      const own = requestLimits(ctx);
      ctx.state.limits = own;
      own.settleTaken(taken, nowMs);
    },
  };
}

import type { ParameterizedContext } from 'koa';
import type { BucketState, LimitCharge } from '../domain/rate-limits';

export interface AuthContext {
  storeId: string;
  apiKeyId: string;
  /** As granted (retired names included): ask `holdsScope`, which knows the implied and renamed ones. */
  scopes: readonly string[];
  pinnedVersion: string;
}

export interface AppState {
  requestId: string;
  /** Version named in the Service-Version request header, already validated. */
  requestedVersion?: string;
  /** Version the response is rendered in. */
  apiVersion: string;
  /** The matched route (its path template, as in the route table). */
  route?: { path: string };
  auth?: AuthContext;
  /** The rate limits this request took (set by the router's limit hook on limited routes). */
  limits?: RequestLimits;
  /** Extra fields of this request's request-log row (document downloads). */
  logFields?: { labelCount?: number; byteSize?: number };
  errorCode?: string;
}

export type AppContext = ParameterizedContext<AppState>;

/** A request's rate limits, on `ctx.state.limits` of every limited route (src/http/request-limiter.ts). */
export interface RequestLimits {
  /** Takes the units from every bucket of their classes, or throws 429 `rate_limited` (nothing taken). */
  charge(charges: readonly LimitCharge[]): Promise<void>;
  /**
   * Takes the units like `charge`, for what a request serves besides its answer (the PDFs of a label creation): a
   * refusal takes nothing and answers false, with the refusing bucket in the headers; so does a counter store that
   * cannot be reached (nothing unmetered is served).
   */
  tryCharge(charges: readonly LimitCharge[]): Promise<boolean>;
  /** Adds buckets taken elsewhere (the daily creation units, the write queue) to the ones the headers choose from. */
  note(states: readonly BucketState[]): void;
}

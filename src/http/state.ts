import type { ParameterizedContext } from 'koa';
import type { RequestLimits } from '../limits/request-limiter';
import type { RouteDefinition } from './route';

export interface AuthContext {
  storeId: string;
  apiKeyId: string;
  scopes: readonly string[];
  pinnedVersion: string;
}

export interface AppState {
  requestId: string;
  /** Version named in the Service-Version request header, already validated. */
  requestedVersion?: string;
  /** Version the response is rendered in. */
  apiVersion: string;
  route?: RouteDefinition;
  auth?: AuthContext;
  /** The rate limits this request took (set by the router's limit hook on limited routes). */
  limits?: RequestLimits;
  /** Extra fields of this request's request-log row (document downloads). */
  logFields?: { labelCount?: number; byteSize?: number };
  errorCode?: string;
  /** The rows of the route's `admittedRead`, read by the admission statement. */
  admittedRows?: unknown[];
}

export type AppContext = ParameterizedContext<AppState>;

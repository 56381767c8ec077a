import type { z } from 'zod';
import type { LimitClass } from '../domain/rate-limits';
import type { ErrorCode } from '../domain/error-catalog';
import type { ErrorExample } from './error-examples';
import type { ReadPlan } from './read-plan';
import type { AppContext } from './state';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** A response header for the OpenAPI document: a description alone is an optional string header. */
export interface ResponseHeaderSpec {
  description: string;
  /** Sent on every answer of this status. */
  required?: boolean;
  schema?: z.ZodType;
}

export interface ResponseSpec {
  description: string;
  /** JSON body schema; omitted for empty or binary responses. */
  schema?: z.ZodType;
  /** Defaults to application/json when `schema` is set. */
  contentType?: string;
  /** A body without a schema in one of several types (the API reference page's assets: scripts, styles, images). */
  contentTypes?: readonly string[];
  headers?: Record<string, string | ResponseHeaderSpec>;
}

/** Access a route needs. `public` routes take no key (the machine-readable description, the error reference). */
export type RouteAccess = { kind: 'public' } | { kind: 'key'; scope: string; write?: boolean };

export interface RouteInput<P, Q, B> {
  params: P;
  query: Q;
  body: B;
}

/**
 * The rate-limit class of a route (spec "Limits"; the classes and their buckets: src/domain/rate-limits.ts). Every key
 * route names one; the router charges it after authentication and validation, before the handler runs.
 * - a class name: each request takes one unit of it;
 * - `classify`: the class depends on the request (`POST /labels`: a dry run, a creation, or a repeat of a bound key,
 *   which counts as a read); `classes` lists every class it can answer, for the OpenAPI document;
 * - `chargedBy: 'handler'`: the cost is known only inside the handler (documents count one per label served, stored
 *   and rendered ones in different buckets), which calls `ctx.state.limits.charge(...)` before doing the work.
 */
export type RouteLimits<I = RouteInput<unknown, unknown, unknown>> =
  | LimitClass
  | { classes: readonly LimitClass[]; classify: (ctx: AppContext, input: I) => LimitClass | Promise<LimitClass> }
  | { classes: readonly LimitClass[]; chargedBy: 'handler' };

/** Every class a route can be charged to. */
export function limitClassesOf(limits: RouteLimits<never>): readonly LimitClass[] {
  return typeof limits === 'string' ? [limits] : limits.classes;
}

/**
 * One row of the declarative route table: it drives routing, validation, access checks and /v1/openapi.json.
 * `path` is relative to /v1 and uses the spec's `{name}` placeholders.
 */
export interface RouteDefinition<
  P extends z.ZodType = z.ZodType,
  Q extends z.ZodType = z.ZodType,
  B extends z.ZodType = z.ZodType,
  Row = unknown,
  Read = unknown,
> {
  method: HttpMethod;
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tag: string;
  access: RouteAccess;
  /** Required on key routes (the router refuses to start without it); public routes are not limited. */
  limits?: RouteLimits<RouteInput<z.output<P>, z.output<Q>, z.output<B>>>;
  params?: P;
  query?: Q;
  body?: B;
  /** Example request body for the OpenAPI document; every route with a body gives one. */
  requestExample?: z.input<B>;
  /** Request headers the route reads, for the OpenAPI document. */
  headers?: Array<{ name: string; required?: boolean; description: string; schema?: z.ZodType }>;
  responses: Record<number, ResponseSpec>;
  /** Error codes the route answers with besides the conventions every route has. */
  errors?: ErrorCode[];
  /** Examples for the OpenAPI document where the common one of the code (src/http/error-examples.ts) would not fit. */
  errorExamples?: Partial<Record<ErrorCode, ErrorExample>>;
  /** Headers the route's error answers of a status carry (e.g. `Retry-After` on 409, 429, 503), by status. */
  errorHeaders?: Partial<Record<number, Record<string, string>>>;
  /** Cache-Control of successful answers when not the default `no-store, private`. */
  cacheControl?: string;
  /**
   * A hot read (src/http/read-plan.ts), on routes with a fixed rate-limit class and no body: its statement rides in the
   * admission statement, and the router hands the handler its typed result, read there or on its own.
   */
  read?: ReadPlan<RouteInput<z.output<P>, z.output<Q>, z.output<B>>, Row, Read>;
  /**
   * `read`: the result of the route's own read plan (undefined on routes without one). A method, so the route table
   * holds routes of every read type: the router only ever hands a route the read of its own plan.
   */
  handler(ctx: AppContext, input: RouteInput<z.output<P>, z.output<Q>, z.output<B>>, read: Read): Promise<void>;
}

export function defineRoute<P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType, Row, Read = undefined>(
  route: RouteDefinition<P, Q, B, Row, Read>,
): RouteDefinition {
  return route;
}

/** `/labels/{label_id}` -> `/labels/:label_id` for @koa/router. */
export function toRouterPath(path: string): string {
  return path.replace(/\{([a-z_]+)\}/g, ':$1');
}

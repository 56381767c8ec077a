import type { z } from 'zod';
import type { ErrorCode } from './error-catalog';
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
 * One row of the declarative route table: it drives routing, validation, access checks and /v1/openapi.json.
 * `path` is relative to /v1 and uses the spec's `{name}` placeholders.
 */
export interface RouteDefinition<
  P extends z.ZodType = z.ZodType,
  Q extends z.ZodType = z.ZodType,
  B extends z.ZodType = z.ZodType,
> {
  method: HttpMethod;
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tag: string;
  access: RouteAccess;
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
  /** Headers the route's error answers of a status carry (e.g. `Retry-After` on 409, 429, 503), by status. */
  errorHeaders?: Partial<Record<number, Record<string, string>>>;
  /** Cache-Control of successful answers when not the default `no-store, private`. */
  cacheControl?: string;
  handler: (ctx: AppContext, input: RouteInput<z.output<P>, z.output<Q>, z.output<B>>) => Promise<void>;
}

export function defineRoute<P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType>(
  route: RouteDefinition<P, Q, B>,
): RouteDefinition {
  return route;
}

/** `/labels/{label_id}` -> `/labels/:label_id` for @koa/router. */
export function toRouterPath(path: string): string {
  return path.replace(/\{([a-z_]+)\}/g, ':$1');
}

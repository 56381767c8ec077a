import Router from '@koa/router';
import type { Middleware } from 'koa';
import { z } from 'zod';
import { ApiError } from './api-error';
import { readJsonBody } from './body';
import type { Admission } from './admission';
import type { RequestLimiter } from './request-limiter';
import { planned } from './read-plan';
import { toRouterPath, type RouteDefinition } from './route';
import type { AppContext, AppState } from './state';
import { isUnrepresentable, parseInput } from './validation';

/** Checks the key, the store's gates and the route's scope; provided by the access module. */
export type Authorizer = (ctx: AppContext, route: RouteDefinition) => Promise<void>;

const noQuery = z.object({}).strict();

interface RouterOptions {
  authorize: Authorizer;
  /** Charges the route's rate-limit class (spec "Limits"). */
  limiter: RequestLimiter;
  /** Authentication and the rate-limit charge in one statement, for routes with a fixed class and no body. */
  admission?: Admission;
  maxBodyBytes: number;
  prefix: string;
}

/**
 * The path parameters, decoded. An ID holding a NUL (`%00`) is a malformed ID, which the spec answers 404 like an
 * unknown one; refused here, it never reaches a statement (docs/decisions/0028-request-input-bounds.md).
 */
function pathParams(ctx: AppContext): Record<string, string> {
  const params = (ctx as unknown as { params: Record<string, string> }).params;
  if (Object.values(params).some(isUnrepresentable)) throw new ApiError('not_found');
  return params;
}

function routeMiddleware(route: RouteDefinition, options: RouterOptions): Middleware<AppState> {
  const admission = options.admission;
  if (admission && route.access.kind === 'key' && typeof route.limits === 'string' && !route.body) {
    const limitClass = route.limits;
    // The read path: validation first (pure), then one statement for key, gates, scope and rate limit. The spec's
    // order of refusals holds: an invalid request is authenticated (not charged) before its validation error.
    return async (ctx) => {
      ctx.state.route = route;
      let params: Record<string, string>;
      let query: unknown;
      try {
        params = pathParams(ctx);
        query = parseInput(route.query ?? noQuery, { ...ctx.query }, 'query');
      } catch (error) {
        await options.authorize(ctx, route);
        throw error;
      }
      const input = { params, query, body: undefined };
      const plan = route.read;
      const rows = await admission(
        ctx,
        route,
        limitClass,
        plan && ((storeId, hash) => plan.statement(input, storeId, hash)),
      );
      await route.handler(ctx, input, plan && (await planned(plan, input, ctx.state.auth!, rows)));
      if (route.cacheControl) ctx.set('Cache-Control', route.cacheControl);
    };
  }
  return async (ctx) => {
    ctx.state.route = route;
    if (route.access.kind === 'key') await options.authorize(ctx, route);
    const params = pathParams(ctx);
    const query = parseInput(route.query ?? noQuery, { ...ctx.query }, 'query');
    let body: unknown;
    if (route.body) body = parseInput(route.body, await readJsonBody(ctx, options.maxBodyBytes), 'body');
    // Spec order of refusals: authentication, validation, rate limit (`POST /labels` idempotency).
    const input = { params, query, body };
    if (route.limits) await options.limiter.admit(ctx, route, input);
    // A read plan on a route the admission statement does not serve (none configured): its read on its own.
    await route.handler(ctx, input, route.read && (await planned(route.read, input, ctx.state.auth!, null)));
    // Everything else gets the default from requestContext; errors never reach this line.
    if (route.cacheControl) ctx.set('Cache-Control', route.cacheControl);
  };
}

/**
 * Builds the router from the route table. A path that exists with other methods answers 405 with `Allow`
 * and `details.allowed_methods`; anything else unmatched falls through to 404 `not_found`. A key route without a
 * rate-limit class stops the app at start: every keyed request is limited (spec "Limits"); so does a read plan on a
 * route the admission statement cannot carry it for.
 */
export function buildRouter(routes: readonly RouteDefinition[], options: RouterOptions): Middleware<AppState> {
  const router = new Router<AppState>();
  for (const route of routes) {
    if (route.access.kind === 'key' && !route.limits) {
      throw new Error(
        `${route.method} ${route.path} has no rate-limit class: add \`limits: 'read'\` (or another class of src/domain/rate-limits.ts) to its defineRoute`,
      );
    }
    if (route.read && (route.access.kind !== 'key' || typeof route.limits !== 'string' || route.body)) {
      throw new Error(
        `${route.method} ${route.path} has a read plan: only a key route with a fixed rate-limit class and no body reads in the admission statement`,
      );
    }
    const path = `${options.prefix}${toRouterPath(route.path)}`;
    router.register(path, [route.method], routeMiddleware(route, options));
  }
  const dispatch = router.routes() as unknown as Middleware<AppState>;
  // The router calls on only when no route matched (no route handler calls `next`): the path is matched once for a
  // routed request, and again only to tell a 405 from a 404.
  return (ctx, next) => {
    const unrouted = (): Promise<void> => {
      const matched = router.match(ctx.path, ctx.method);
      const allowed = [...new Set(matched.path.flatMap((layer) => layer.methods))].filter((m) => m !== 'HEAD');
      if (allowed.length > 0) {
        throw new ApiError('method_not_allowed', {
          message: `${ctx.method} is not allowed on this path; use ${allowed.join(', ')}.`,
          details: { allowed_methods: allowed },
          headers: { Allow: allowed.join(', ') },
        });
      }
      return next();
    };
    return dispatch(ctx, unrouted) as Promise<void>;
  };
}

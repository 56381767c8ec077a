import Router from '@koa/router';
import type { Middleware } from 'koa';
import { z } from 'zod';
import { ApiError } from './api-error';
import { readJsonBody } from './body';
import { toRouterPath, type RouteDefinition } from './route';
import type { AppContext, AppState } from './state';
import { parseInput } from './validation';

/** Checks the key, the store's gates and the route's scope; provided by the access module. */
export type Authorizer = (ctx: AppContext, route: RouteDefinition) => Promise<void>;

const noQuery = z.object({}).strict();

function routeMiddleware(route: RouteDefinition, authorize: Authorizer, maxBodyBytes: number): Middleware<AppState> {
  return async (ctx) => {
    ctx.state.route = route;
    if (route.access.kind === 'key') await authorize(ctx, route);
    const query = parseInput(route.query ?? noQuery, { ...ctx.query }, 'query');
    const params = (ctx as unknown as { params: Record<string, string> }).params;
    let body: unknown;
    if (route.body) body = parseInput(route.body, await readJsonBody(ctx, maxBodyBytes), 'body');
    await route.handler(ctx, { params, query, body });
    // Everything else gets the default from requestContext; errors never reach this line.
    if (route.cacheControl) ctx.set('Cache-Control', route.cacheControl);
  };
}

/**
 * Builds the router from the route table. A path that exists with other methods answers 405 with `Allow`
 * and `details.allowed_methods`; anything else unmatched falls through to 404 `not_found`.
 */
export function buildRouter(
  routes: readonly RouteDefinition[],
  options: { authorize: Authorizer; maxBodyBytes: number; prefix: string },
): Middleware<AppState> {
  const router = new Router<AppState>();
  for (const route of routes) {
    const path = `${options.prefix}${toRouterPath(route.path)}`;
    router.register(path, [route.method], routeMiddleware(route, options.authorize, options.maxBodyBytes));
  }
  const dispatch = router.routes() as unknown as Middleware<AppState>;
  return async (ctx, next) => {
    const matched = router.match(ctx.path, ctx.method);
    if (!matched.route) {
      const allowed = [...new Set(matched.path.flatMap((layer) => layer.methods))].filter((m) => m !== 'HEAD');
      if (allowed.length > 0) {
        throw new ApiError('method_not_allowed', {
          message: `${ctx.method} is not allowed on this path; use ${allowed.join(', ')}.`,
          details: { allowed_methods: allowed },
          headers: { Allow: allowed.join(', ') },
        });
      }
      await next();
      return;
    }
    await dispatch(ctx, next);
  };
}

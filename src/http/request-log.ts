import type { Middleware } from 'koa';
import type { Orm } from '../db/orm';
import type { Logger } from '../logger';
import type { AppState } from './state';

/**
 * Writes the store's request-log row (spec "Authentication" 5) once the response is decided: endpoint as the route
 * template, status, error code, key, IP, and for document downloads the label count and size. Requests that no
 * key attributes to a store have no store log; they appear in the process log only.
 */
export function requestLog(orm: Orm, logger: Logger): Middleware<AppState> {
  return async (ctx, next) => {
    try {
      await next();
    } finally {
      const auth = ctx.state.auth;
      if (auth) {
        try {
          await orm.em.fork().execute(
            `insert into request_log (request_id, store_id, api_key_id, method, endpoint, status, error_code, ip, label_count, byte_size)
             values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
            [
              ctx.state.requestId,
              auth.storeId,
              auth.apiKeyId,
              ctx.method,
              ctx.state.route ? `/v1${ctx.state.route.path}` : null,
              ctx.status,
              ctx.state.errorCode ?? null,
              ctx.ip || null,
              ctx.state.logFields?.labelCount ?? null,
              ctx.state.logFields?.byteSize ?? null,
            ],
            'run',
          );
        } catch (error) {
          logger.error({ request_id: ctx.state.requestId, err: error }, 'request log write failed');
        }
      }
    }
  };
}

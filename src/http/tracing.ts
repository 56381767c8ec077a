import { context, propagation, ROOT_CONTEXT, SpanKind, trace, type Tracer } from '@opentelemetry/api';
import type { Middleware } from 'koa';
import { DomainError } from '../domain/errors';
import { failSpan } from '../tracing/spans';
import { withRequestId } from '../tracing/request-id';
import { ApiError, apiErrorFromDomain } from './api-error';
import type { AppState } from './state';

/**
 * The request's server span, below `requestContext` (the request ID is known) and above everything that works: a
 * caller's `traceparent` continues its trace; the request ID rides along as baggage to the workflow and activities.
 * Installed only when tracing is on.
 */
export function traceRequests(tracer: Tracer): Middleware<AppState> {
  return async (ctx, next) => {
    // Most requests carry no trace context: nothing to parse (a caller's baggage is replaced by the request ID anyway).
    const incoming =
      ctx.headers.traceparent === undefined ? ROOT_CONTEXT : propagation.extract(ROOT_CONTEXT, ctx.headers);
    const parent = withRequestId(incoming, ctx.state.requestId);
    const span = tracer.startSpan(
      ctx.method,
      { kind: SpanKind.SERVER, attributes: { 'http.request.method': ctx.method, 'url.path': ctx.path } },
      parent,
    );
    try {
      await context.with(trace.setSpan(parent, span), next);
      span.setAttribute('http.response.status_code', ctx.status);
    } catch (error) {
      // A refusal is an answer (4xx), not a failure of the service; requestContext renders both.
      const refusal = error instanceof DomainError ? apiErrorFromDomain(error) : error;
      const status = refusal instanceof ApiError ? refusal.status : 500;
      span.setAttribute('http.response.status_code', status);
      if (status >= 500) failSpan(span, error);
      throw error;
    } finally {
      const route = ctx.state.route?.path;
      if (route) {
        span.updateName(`${ctx.method} ${route}`);
        span.setAttribute('http.route', route);
      }
      span.end();
    }
  };
}

import { context, propagation, ROOT_CONTEXT, SpanKind, trace, type Tracer } from '@opentelemetry/api';
import type { Middleware } from 'koa';
import { DomainError } from '../domain/errors';
import { failSpan } from '../tracing/spans';
import { REQUEST_ID_KEY, withRequestId } from '../tracing/request-id';
import { ApiError, apiErrorFromDomain } from './api-error';
import type { AppState } from './state';

/**
 * The request's server span, below `requestContext` (the request ID is known) and above everything that works: a
 * caller's `traceparent` continues its trace; the request ID rides along as baggage to the workflow and activities.
 * Installed only when tracing is on.
 */
export function traceRequests(tracer: Tracer): Middleware<AppState> {
  return async (ctx, next) => {
    // Most requests carry no trace context: nothing to parse. A caller's baggage is not carried on.
    const incoming =
      ctx.headers.traceparent === undefined
        ? ROOT_CONTEXT
        : propagation.deleteBaggage(propagation.extract(ROOT_CONTEXT, ctx.headers));
    // The method is what the sampler reads (reads keep their own share of new traces, decision 0951).
    const span = tracer.startSpan(
      ctx.method,
      { kind: SpanKind.SERVER, attributes: { 'http.request.method': ctx.method } },
      incoming,
    );
    let active = trace.setSpan(incoming, span);
    // The rest only for a span that records: below one that does not, nothing records (every sampler keeps a trace's
    // decisions together: parent-based ones follow the parent, `traceidratio` decides by the trace ID alone, or follows
    // a parent of this process when reads have a share of their own), so an unsampled read pays for no baggage.
    if (span.isRecording()) {
      span.setAttributes({ 'url.path': ctx.path, [REQUEST_ID_KEY]: ctx.state.requestId });
      active = withRequestId(active, ctx.state.requestId);
    }
    try {
      await context.with(active, next);
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

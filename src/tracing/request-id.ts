import { propagation, type Context } from '@opentelemetry/api';
import type { ReadableSpan, Span, SpanProcessor } from '@opentelemetry/sdk-trace-base';

/**
 * The request ID travels as W3C baggage: Temporal's OpenTelemetry interceptors carry the context (trace and baggage)
 * in the workflow's and activities' headers, so every span below the request can name it.
 */
export const REQUEST_ID_KEY = 'request_id';

/** The context with the request ID as its only baggage: a caller's own baggage is not trusted nor carried on. */
export function withRequestId(context: Context, requestId: string): Context {
  return propagation.setBaggage(context, propagation.createBaggage({ [REQUEST_ID_KEY]: { value: requestId } }));
}

/** Copies the request ID from the parent context's baggage onto each span as it starts. */
export class RequestIdSpanProcessor implements SpanProcessor {
  onStart(span: Span, parentContext: Context): void {
    const requestId = propagation.getBaggage(parentContext)?.getEntry(REQUEST_ID_KEY)?.value;
    if (requestId) span.setAttribute(REQUEST_ID_KEY, requestId);
  }
  onEnd(_span: ReadableSpan): void {}
  forceFlush(): Promise<void> {
    return Promise.resolve();
  }
  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

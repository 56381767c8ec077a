import { defaultPayloadConverter, type Headers, type WorkflowInterceptorsFactory } from '@temporalio/workflow';

/**
 * Not a workflow: bundled as a workflow interceptor module only when tracing is on (src/tracing/temporal.ts). It adds
 * the request ID that started a workflow to every log line of it. The ID comes from the trace header Temporal's
 * OpenTelemetry interceptor writes (`_tracer-data`: `traceparent` and W3C `baggage`), kept in the start event of the
 * history, so replays log the same.
 */
export const TRACE_HEADER = '_tracer-data';

export const interceptors: WorkflowInterceptorsFactory = () => {
  // Per workflow: the factory runs once for each workflow instance.
  let requestId: string | undefined;
  return {
    inbound: [
      {
        execute(input, next) {
          requestId = requestIdOf(input.headers);
          return next(input);
        },
      },
    ],
    outbound: [
      {
        getLogAttributes(input, next) {
          return next(requestId === undefined ? input : { ...input, request_id: requestId });
        },
      },
    ],
  };
};

export function requestIdOf(headers: Headers): string | undefined {
  const payload = headers[TRACE_HEADER];
  if (!payload) return undefined;
  const carrier = defaultPayloadConverter.fromPayload<Record<string, unknown>>(payload);
  return typeof carrier?.baggage === 'string' ? baggageEntry(carrier.baggage, 'request_id') : undefined;
}

/** One entry of a W3C `baggage` header (`k1=v1;prop,k2=v2`), its value percent-decoded. */
export function baggageEntry(baggage: string, key: string): string | undefined {
  for (const member of baggage.split(',')) {
    const [pair = ''] = member.split(';');
    const at = pair.indexOf('=');
    if (at > 0 && pair.slice(0, at).trim() === key) {
      try {
        return decodeURIComponent(pair.slice(at + 1).trim());
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}

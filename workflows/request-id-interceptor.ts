import {
  defaultPayloadConverter,
  workflowInfo,
  type Headers,
  type WorkflowInterceptorsFactory,
} from '@temporalio/workflow';
import { REQUEST_ID_MEMO } from './request-id-contract';

/**
 * Not a workflow: a workflow interceptor module, in every worker's bundle (src/temporal/worker-interceptors.ts). It
 * adds the request ID that started a workflow to every log line of it, the SDK's "Workflow started" among them. The ID
 * is the start's memo (`request_id`, set by the API), known from the workflow's first activation; a start without it
 * (one recorded before the memo, a start made elsewhere) falls back to the trace header Temporal's OpenTelemetry
 * interceptor writes (`_tracer-data`: `traceparent` and W3C `baggage`). Both are kept in the history's start event,
 * so replays log the same.
 */
export const TRACE_HEADER = '_tracer-data';

export const interceptors: WorkflowInterceptorsFactory = () => {
  // Per workflow: the factory runs once for each workflow instance.
  let fromHeaders: string | undefined;
  return {
    inbound: [
      {
        execute(input, next) {
          fromHeaders = requestIdOf(input.headers);
          return next(input);
        },
      },
    ],
    outbound: [
      {
        getLogAttributes(input, next) {
          const requestId = memoRequestId() ?? fromHeaders;
          return next(requestId === undefined ? input : { ...input, request_id: requestId });
        },
      },
    ],
  };
};

/** The request ID of the workflow's start memo, when it has one. */
export function memoRequestId(): string | undefined {
  const value = workflowInfo().memo?.[REQUEST_ID_MEMO];
  return typeof value === 'string' ? value : undefined;
}

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

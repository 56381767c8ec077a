import type { ClientInterceptors } from '@temporalio/client';
import {
  makeWorkflowExporter,
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
  OpenTelemetryWorkflowClientInterceptor,
  type OpenTelemetrySinks,
} from '@temporalio/interceptors-opentelemetry';
import type { InjectedSinks, WorkerInterceptors } from '@temporalio/worker';
import type { Tracing } from './provider';

/**
 * Temporal's OpenTelemetry interceptors: the client's start and update spans carry the trace (and the request ID as
 * baggage) in the workflow's headers; the workflow's spans go to the worker's processor through a sink; activity spans
 * continue the workflow's. Nothing of this is installed when tracing is off.
 */
export function tracingClientInterceptors(): ClientInterceptors {
  return { workflow: [new OpenTelemetryWorkflowClientInterceptor()] };
}

/** The activity interceptors and the workflow span sink of a traced worker (its bundle's modules are given). */
export function tracingWorkerOptions(tracing: Tracing, workflowModules: string[]) {
  const interceptors: WorkerInterceptors = {
    workflowModules,
    activity: [
      (ctx) => ({
        inbound: new OpenTelemetryActivityInboundInterceptor(ctx),
        outbound: new OpenTelemetryActivityOutboundInterceptor(ctx),
      }),
    ],
  };
  const sinks: InjectedSinks<OpenTelemetrySinks> = {
    exporter: makeWorkflowExporter(tracing.processor, tracing.resource),
  };
  return { interceptors, sinks };
}

import { trace as otelTrace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { Resource } from '@opentelemetry/resources';
import {
  BatchSpanProcessor,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import type { TracingSettings } from '../config';
import { RequestIdSpanProcessor } from './request-id';
import { TRACER_NAME, useTracer } from './spans';

export interface Tracing {
  resource: Resource;
  /** Where finished spans go: the worker hands it to the workflow span sink too. */
  processor: SpanProcessor;
  shutdown(): Promise<void>;
}

/**
 * Installs the process-wide tracer provider (AsyncLocalStorage context, W3C trace context and baggage propagation)
 * when the configuration exports traces; null, and nothing installed, when it does not. Tests pass a processor of
 * their own (an in-memory exporter).
 */
export function startTracing(
  settings: TracingSettings,
  defaultServiceName: string,
  options: { processor?: SpanProcessor } = {},
): Tracing | null {
  if (settings.exporter === 'none' && !options.processor) return null;
  const resource = new Resource({ [ATTR_SERVICE_NAME]: settings.serviceName ?? defaultServiceName });
  const processor = options.processor ?? new BatchSpanProcessor(new OTLPTraceExporter({ url: settings.endpoint }));
  const provider = new NodeTracerProvider({
    resource,
    sampler: new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(settings.sampleRatio) }),
    spanProcessors: [new RequestIdSpanProcessor(), processor],
  });
  provider.register();
  useTracer(provider.getTracer(TRACER_NAME));
  return {
    resource,
    processor,
    async shutdown() {
      useTracer(null);
      await provider.shutdown();
      otelTrace.disable();
    },
  };
}

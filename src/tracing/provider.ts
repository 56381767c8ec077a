import {
  context,
  propagation,
  SpanKind,
  trace as otelTrace,
  type Attributes,
  type Context,
  type Link,
} from '@opentelemetry/api';
import { OTLPTraceExporter as GrpcTraceExporter } from '@opentelemetry/exporter-trace-otlp-grpc';
import { OTLPTraceExporter as JsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { detectResourcesSync, envDetectorSync, Resource } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  SamplingDecision,
  TraceIdRatioBasedSampler,
  type Sampler,
  type SamplingResult,
  type SpanExporter,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import type { TracingSettings } from './settings';
import { tracePostgres } from './postgres';
import { RequestIdSpanProcessor } from './request-id';
import { TRACER_NAME, useTracer } from './spans';

export interface Tracing {
  resource: Resource;
  /** Where finished spans go: the worker hands it to the workflow span sink too. */
  processor: SpanProcessor;
  shutdown(): Promise<void>;
}

/**
 * Starts OpenTelemetry's Node SDK for traces (AsyncLocalStorage context, W3C trace context and baggage propagation)
 * when the configuration exports them; null, and nothing installed, when it does not. Tests pass a processor of their
 * own (an in-memory exporter).
 */
export function startTracing(
  settings: TracingSettings,
  defaultServiceName: string,
  options: { processor?: SpanProcessor } = {},
): Tracing | null {
  if (settings.exporter === 'none' && !options.processor) return null;
  // OTEL_RESOURCE_ATTRIBUTES (deployment.environment, service.version...) under the process's own name.
  const resource = detectResourcesSync({ detectors: [envDetectorSync] }).merge(
    new Resource({ [ATTR_SERVICE_NAME]: settings.serviceName ?? defaultServiceName }),
  );
  const processor = options.processor ?? new BatchSpanProcessor(otlpExporter(settings));
  const sdk = new NodeSDK({
    resource,
    autoDetectResources: false,
    sampler: samplerOf(settings),
    spanProcessors: [new RequestIdSpanProcessor(), processor],
    // Traces only: without this the SDK starts an OTLP log exporter of its own; metrics are Prometheus (src/metrics).
    logRecordProcessors: [],
    // No require hooks: the service makes its spans itself (requests, outbound HTTP, PostgreSQL statements) and
    // Temporal's interceptors make the workflow's and activities'.
    instrumentations: [],
  });
  sdk.start();
  useTracer(otelTrace.getTracer(TRACER_NAME));
  const untracePostgres = tracePostgres();
  return {
    resource,
    processor,
    async shutdown() {
      untracePostgres();
      useTracer(null);
      await sdk.shutdown();
      otelTrace.disable();
      context.disable();
      propagation.disable();
    },
  };
}

/**
 * OTEL_TRACES_SAMPLER as the specification defines each name. The `traceidratio` ones keep reads' new traces at their
 * own share (TRACES_READ_SAMPLE_RATIO, at most the ratio), and at most TRACES_READ_SAMPLES_PER_SECOND of them. A ratio
 * of 1 or 0 is the always-on or always-off sampler itself: the same decisions without working out a ratio for every
 * new trace.
 */
export function samplerOf(
  settings: Pick<TracingSettings, 'sampler' | 'sampleRatio' | 'readSampleRatio' | 'readSamplesPerSecond'>,
): Sampler {
  const ratio = (share: number): Sampler =>
    share >= 1 ? new AlwaysOnSampler() : share <= 0 ? new AlwaysOffSampler() : new TraceIdRatioBasedSampler(share);
  const readShare = Math.min(settings.readSampleRatio, settings.sampleRatio);
  const capped = Number.isFinite(settings.readSamplesPerSecond) && readShare > 0;
  const byRatio = (): Sampler =>
    readShare === settings.sampleRatio && !capped
      ? ratio(settings.sampleRatio)
      : new ReadsApartSampler(
          capped ? new RateLimitedSampler(ratio(readShare), settings.readSamplesPerSecond) : ratio(readShare),
          ratio(settings.sampleRatio),
        );
  switch (settings.sampler) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return byTraceIdAlone(byRatio());
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: byRatio() });
  }
}

/**
 * `traceidratio` decides at this service whatever a caller decided. With one share the trace ID alone keeps a trace's
 * spans together; with reads apart a read's statements and calls (not reads themselves) would be decided apart from it,
 * so below a parent of this process a span follows its parent.
 */
function byTraceIdAlone(sampler: Sampler): Sampler {
  if (!(sampler instanceof ReadsApartSampler)) return sampler;
  return new ParentBasedSampler({ root: sampler, remoteParentSampled: sampler, remoteParentNotSampled: sampler });
}

/** The methods that read: the request span names its method among the attributes a sampler is given at its start. */
const READ_METHODS: ReadonlySet<unknown> = new Set(['GET', 'HEAD']);

/** Decides a read's request span by one sampler and every other span by another. */
export class ReadsApartSampler implements Sampler {
  constructor(
    private readonly reads: Sampler,
    private readonly others: Sampler,
  ) {}

  shouldSample(
    parent: Context,
    traceId: string,
    name: string,
    kind: SpanKind,
    attributes: Attributes,
    links: Link[],
  ): SamplingResult {
    const read = kind === SpanKind.SERVER && READ_METHODS.has(attributes['http.request.method']);
    return (read ? this.reads : this.others).shouldSample(parent, traceId, name, kind, attributes, links);
  }

  toString(): string {
    return `ReadsApartSampler{reads=${this.reads.toString()}, others=${this.others.toString()}}`;
  }
}

/**
 * Keeps at most `perSecond` of the traces its sampler keeps, and a second's worth at once (a token bucket of this
 * process): kept reads cost the same share of a busy API as of a quiet one. The clock is read only for a trace the
 * sampler keeps.
 */
export class RateLimitedSampler implements Sampler {
  private readonly capacity: number;
  private tokens: number;
  private filledAt: number;

  constructor(
    private readonly sampler: Sampler,
    private readonly perSecond: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.capacity = Math.max(1, perSecond);
    this.tokens = this.capacity;
    this.filledAt = now();
  }

  shouldSample(
    parent: Context,
    traceId: string,
    name: string,
    kind: SpanKind,
    attributes: Attributes,
    links: Link[],
  ): SamplingResult {
    const result = this.sampler.shouldSample(parent, traceId, name, kind, attributes, links);
    if (result.decision !== SamplingDecision.RECORD_AND_SAMPLED || this.take()) return result;
    return { decision: SamplingDecision.NOT_RECORD };
  }

  private take(): boolean {
    const at = this.now();
    this.tokens = Math.min(this.capacity, this.tokens + ((at - this.filledAt) / 1000) * this.perSecond);
    this.filledAt = at;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }

  toString(): string {
    return `RateLimitedSampler{${this.sampler.toString()}, at most ${this.perSecond}/s}`;
  }
}

/** OTLP in the configured encoding; each exporter reads OTEL_EXPORTER_OTLP_HEADERS and timeouts itself. */
function otlpExporter(settings: TracingSettings): SpanExporter {
  const options = { url: settings.endpoint };
  switch (settings.protocol) {
    case 'grpc':
      return new GrpcTraceExporter(options);
    case 'http/json':
      return new JsonTraceExporter(options);
    case 'http/protobuf':
      return new ProtobufTraceExporter(options);
  }
}

import { z } from 'zod';
import { OTLP_PROTOCOLS, TRACE_SAMPLERS, type TracingSettings } from '../tracing/settings';

/** Traces, as the OpenTelemetry specification names their variables; every process that traces reads them. */
export const tracingShape = {
  /** Traces (OpenTelemetry, docs/decisions/0950-tracing.md): `otlp` exports them; `none` (default) installs nothing. */
  OTEL_TRACES_EXPORTER: z.enum(['none', 'otlp']).default('none'),
  /**
   * Where spans go. Over HTTP the generic OTEL_EXPORTER_OTLP_ENDPOINT gains `/v1/traces` (default
   * http://localhost:4318); over gRPC it is the collector's address (default http://localhost:4317).
   */
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z.string().url().optional(),
  OTEL_EXPORTER_OTLP_ENDPOINT: z.string().url().optional(),
  /** OTLP's encodings, as the OpenTelemetry specification names them; its default is `http/protobuf`. */
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: z.enum(OTLP_PROTOCOLS).optional(),
  OTEL_EXPORTER_OTLP_PROTOCOL: z.enum(OTLP_PROTOCOLS).default('http/protobuf'),
  /**
   * The sampler, by the specification's names. The default is the ratio sampler below a caller's decision, whose
   * ratio defaults to 1: the specification's `parentbased_always_on` until OTEL_TRACES_SAMPLER_ARG lowers it.
   */
  OTEL_TRACES_SAMPLER: z.enum(TRACE_SAMPLERS).default('parentbased_traceidratio'),
  /** Share of new traces kept (0..1) by the `traceidratio` samplers; the others take no argument. */
  OTEL_TRACES_SAMPLER_ARG: z.coerce.number().min(0).max(1).default(1),
  /**
   * Share of the new traces that reads (GET and HEAD requests) start which the `traceidratio` samplers keep, at most
   * OTEL_TRACES_SAMPLER_ARG. Reads are most requests and each is worth least as a trace: one in ten by default keeps
   * most of the export's cost off the read path (docs/decisions/0951-read-sampling.md). A caller's sampled
   * `traceparent` is followed whatever this says.
   */
  TRACES_READ_SAMPLE_RATIO: z.coerce.number().min(0).max(1).default(0.1),
  /**
   * At most this many of those read traces kept per second by each process (`unlimited`: no cap): what kept reads cost
   * stays the same however busy the API gets, as a peer tracer's rate limit does (decision 0951).
   */
  TRACES_READ_SAMPLES_PER_SECOND: z
    .union([z.literal('unlimited').transform(() => Infinity), z.coerce.number().positive()])
    .default(10),
  /** The `service.name` of the spans; the API and the worker append nothing, each process names itself by default. */
  OTEL_SERVICE_NAME: z.string().min(1).optional(),
};

type TracingEnv = z.infer<z.ZodObject<typeof tracingShape>>;

export type TracingConfig = Readonly<{ tracing: Readonly<TracingSettings> }>;

/** The traces' own variables first, then the generic ones, as the OpenTelemetry specification orders them. */
export function tracingSettings(e: TracingEnv): TracingConfig {
  const protocol = e.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? e.OTEL_EXPORTER_OTLP_PROTOCOL;
  const generic = e.OTEL_EXPORTER_OTLP_ENDPOINT?.replace(/\/$/, '');
  const endpoint =
    e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ??
    (protocol === 'grpc' ? (generic ?? 'http://localhost:4317') : `${generic ?? 'http://localhost:4318'}/v1/traces`);
  return {
    tracing: Object.freeze({
      exporter: e.OTEL_TRACES_EXPORTER,
      protocol,
      endpoint,
      sampler: e.OTEL_TRACES_SAMPLER,
      sampleRatio: e.OTEL_TRACES_SAMPLER_ARG,
      readSampleRatio: e.TRACES_READ_SAMPLE_RATIO,
      readSamplesPerSecond: e.TRACES_READ_SAMPLES_PER_SECOND,
      serviceName: e.OTEL_SERVICE_NAME,
    }),
  };
}

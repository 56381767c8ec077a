/** OTLP's transports and encodings (the OpenTelemetry specification's names). */
export const OTLP_PROTOCOLS = ['http/protobuf', 'http/json', 'grpc'] as const;
export type OtlpProtocol = (typeof OTLP_PROTOCOLS)[number];
/** OTEL_TRACES_SAMPLER's values that the SDK's built-in samplers serve (no remote samplers: the service works offline). */
export const TRACE_SAMPLERS = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
] as const;
export type TraceSampler = (typeof TRACE_SAMPLERS)[number];

/** How this process traces (src/config/tracing.ts reads it from the environment). */
export interface TracingSettings {
  exporter: 'none' | 'otlp';
  protocol: OtlpProtocol;
  /** Over HTTP the traces URL (`…/v1/traces`); over gRPC the collector's address. */
  endpoint: string;
  /** OTEL_TRACES_SAMPLER: which sampler; `sampleRatio` is its argument (read by the `traceidratio` ones only). */
  sampler: TraceSampler;
  sampleRatio: number;
  /** TRACES_READ_SAMPLE_RATIO: the `traceidratio` samplers' share for new traces started by reads. */
  readSampleRatio: number;
  /** TRACES_READ_SAMPLES_PER_SECOND: at most this many of those kept per second and process (Infinity: no cap). */
  readSamplesPerSecond: number;
  serviceName: string | undefined;
}

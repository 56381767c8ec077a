import { SpanStatusCode, trace, type Attributes, type Span, type SpanKind, type Tracer } from '@opentelemetry/api';

/**
 * The service's own spans (incoming requests, outbound HTTP). Null until `startTracing` installs a provider: with
 * tracing off every call goes straight to its function, without even a no-op span.
 */
let tracer: Tracer | null = null;

export const TRACER_NAME = 'shipping-label-api';

export function useTracer(next: Tracer | null): void {
  tracer = next;
}

export function activeTracer(): Tracer | null {
  return tracer;
}

/** Runs `work` in a child span of the active one; a thrown error marks the span failed and is thrown on. */
export function inSpan<T>(
  name: string,
  options: { kind: SpanKind; attributes?: Attributes },
  work: (span: Span | null) => Promise<T>,
): Promise<T> {
  if (!tracer) return work(null);
  return tracer.startActiveSpan(name, options, async (span) => {
    try {
      return await work(span);
    } catch (error) {
      failSpan(span, error);
      throw error;
    } finally {
      span.end();
    }
  });
}

export function failSpan(span: Span, error: unknown): void {
  span.recordException(error instanceof Error ? error : String(error));
  span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
}

export { trace };

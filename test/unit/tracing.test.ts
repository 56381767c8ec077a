import { defaultPayloadConverter } from '@temporalio/common';
import { propagation, ROOT_CONTEXT, SpanKind, TraceFlags, trace, type Context } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  AlwaysOnSampler,
  BasicTracerProvider,
  InMemorySpanExporter,
  SamplingDecision,
  SimpleSpanProcessor,
  type Sampler,
} from '@opentelemetry/sdk-trace-base';
import { loadConfig } from '../../src/config';
import type { TraceSampler } from '../../src/tracing/settings';
import { traceRequests } from '../../src/http/tracing';
import { RateLimitedSampler, samplerOf } from '../../src/tracing/provider';
import { redactedStatement, statementName, statementText } from '../../src/tracing/postgres';
import { baggageEntry, requestIdOf, TRACE_HEADER } from '../../workflows/request-id-interceptor';

const base = { DATABASE_URL: 'postgres://localhost/x' };

describe('tracing configuration', () => {
  it("is off by default, and would speak OTLP over HTTP with protobuf, the specification's default", () => {
    expect(loadConfig(base).tracing).toEqual({
      exporter: 'none',
      protocol: 'http/protobuf',
      endpoint: 'http://localhost:4318/v1/traces',
      sampler: 'parentbased_traceidratio',
      sampleRatio: 1,
      readSampleRatio: 0.1,
      readSamplesPerSecond: 10,
      serviceName: undefined,
    });
  });

  it('exports OTLP to the traces endpoint, the generic one with /v1/traces, at the configured ratio', () => {
    const generic = loadConfig({
      ...base,
      OTEL_TRACES_EXPORTER: 'otlp',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_TRACES_SAMPLER_ARG: '0.25',
      OTEL_SERVICE_NAME: 'labels-eu',
    }).tracing;
    expect(generic).toEqual({
      exporter: 'otlp',
      protocol: 'http/json',
      endpoint: 'http://collector:4318/v1/traces',
      sampler: 'parentbased_traceidratio',
      sampleRatio: 0.25,
      readSampleRatio: 0.1,
      readSamplesPerSecond: 10,
      serviceName: 'labels-eu',
    });
    const own = loadConfig({ ...base, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:1/traces' }).tracing;
    expect(own.endpoint).toBe('http://c:1/traces');
  });

  it("speaks gRPC to the collector's address as given, 4317 by default; the traces' protocol wins", () => {
    expect(loadConfig({ ...base, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }).tracing).toMatchObject({
      protocol: 'grpc',
      endpoint: 'http://localhost:4317',
    });
    const grpc = loadConfig({
      ...base,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'grpc',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'https://collector.internal:4317/',
    }).tracing;
    expect(grpc).toMatchObject({ protocol: 'grpc', endpoint: 'https://collector.internal:4317' });
  });

  it.each([
    ['OTEL_TRACES_EXPORTER', 'jaeger'],
    ['OTEL_TRACES_SAMPLER_ARG', '1.5'],
    ['TRACES_READ_SAMPLE_RATIO', '-0.1'],
    ['TRACES_READ_SAMPLE_RATIO', 'all'],
    ['TRACES_READ_SAMPLES_PER_SECOND', '0'],
    ['TRACES_READ_SAMPLES_PER_SECOND', '-5'],
    ['TRACES_READ_SAMPLES_PER_SECOND', 'none'],
    ['OTEL_TRACES_SAMPLER', 'jaeger_remote'],
    ['OTEL_TRACES_SAMPLER', 'parentbased_traceidratio '],
    ['OTEL_EXPORTER_OTLP_PROTOCOL', 'thrift'],
    ['OTEL_EXPORTER_OTLP_TRACES_PROTOCOL', 'http'],
  ])('refuses %s=%s', (name, value) => {
    expect(() => loadConfig({ ...base, [name]: value })).toThrow(name);
  });
});

describe('the sampler (OTEL_TRACES_SAMPLER, OTEL_TRACES_SAMPLER_ARG)', () => {
  const keptByRatio = '00000000000000000000000000000001';
  const droppedByRatio = 'ffffffff000000000000000000000000';
  const parent = (sampled: boolean) =>
    trace.setSpanContext(ROOT_CONTEXT, {
      traceId: keptByRatio,
      spanId: '0000000000000001',
      traceFlags: sampled ? TraceFlags.SAMPLED : TraceFlags.NONE,
      isRemote: true,
    });
  /** Kept or not: a new trace with each trace ID, then the two trace IDs below a sampled and an unsampled caller. */
  function decisions(sampler: TraceSampler, sampleRatio: number): string {
    const s = samplerOf({ sampler, sampleRatio, readSampleRatio: 1, readSamplesPerSecond: Infinity });
    const kept = (context: Context, traceId: string) =>
      s.shouldSample(context, traceId, 'GET', SpanKind.SERVER, {}, []).decision === SamplingDecision.RECORD_AND_SAMPLED
        ? 'kept'
        : 'dropped';
    return [
      kept(ROOT_CONTEXT, keptByRatio),
      kept(ROOT_CONTEXT, droppedByRatio),
      kept(parent(true), droppedByRatio),
      kept(parent(false), keptByRatio),
    ].join(' ');
  }

  it.each<[TraceSampler, number, string]>([
    // new trace (low ID), new trace (high ID), below a sampled caller, below an unsampled caller
    ['parentbased_traceidratio', 1, 'kept kept kept dropped'],
    ['parentbased_traceidratio', 0.5, 'kept dropped kept dropped'],
    ['parentbased_traceidratio', 0, 'dropped dropped kept dropped'],
    ['parentbased_always_on', 0.5, 'kept kept kept dropped'],
    ['parentbased_always_off', 1, 'dropped dropped kept dropped'],
    ['traceidratio', 0.5, 'kept dropped dropped kept'],
    ['always_on', 0, 'kept kept kept kept'],
    ['always_off', 1, 'dropped dropped dropped dropped'],
  ])('%s with ratio %s: %s', (sampler, ratio, expected) => {
    expect(decisions(sampler, ratio)).toBe(expected);
  });

  it('reads the sampler by its name; the ratio alone lowers the default one', () => {
    expect(loadConfig({ ...base, OTEL_TRACES_SAMPLER: 'always_off' }).tracing.sampler).toBe('always_off');
    const ratioOnly = loadConfig({ ...base, OTEL_TRACES_SAMPLER_ARG: '0.1' }).tracing;
    expect(decisions(ratioOnly.sampler, ratioOnly.sampleRatio)).toBe('kept dropped kept dropped');
  });
});

describe("reads' own share of new traces (TRACES_READ_SAMPLE_RATIO)", () => {
  const low = '00000000000000000000000000000001';
  const high = 'ffffffff000000000000000000000000';
  const sampledCaller = trace.setSpanContext(ROOT_CONTEXT, {
    traceId: high,
    spanId: '0000000000000001',
    traceFlags: TraceFlags.SAMPLED,
    isRemote: true,
  });
  type Span = [kind: SpanKind, method?: string, parent?: Context];
  /** Kept or not, for a new trace with a low and a high trace ID. */
  type Settings = Omit<Parameters<typeof samplerOf>[0], 'readSamplesPerSecond'> & { readSamplesPerSecond?: number };
  /** Without a cap unless one is given: the cap is tested below, with a clock of its own. */
  function decide(settings: Settings, [kind, method, parent]: Span): string {
    const s = samplerOf({ readSamplesPerSecond: Infinity, ...settings });
    const attributes = method ? { 'http.request.method': method } : {};
    return [low, high]
      .map((traceId) =>
        s.shouldSample(parent ?? ROOT_CONTEXT, traceId, 'x', kind, attributes, []).decision ===
        SamplingDecision.RECORD_AND_SAMPLED
          ? 'kept'
          : 'dropped',
      )
      .join(' ');
  }
  const byDefault = loadConfig(base).tracing;

  it.each<[string, Span, string]>([
    ['a GET request', [SpanKind.SERVER, 'GET'], 'kept dropped'],
    ['a HEAD request', [SpanKind.SERVER, 'HEAD'], 'kept dropped'],
    ['a POST request', [SpanKind.SERVER, 'POST'], 'kept kept'],
    ['a DELETE request', [SpanKind.SERVER, 'DELETE'], 'kept kept'],
    ['an outbound GET (a span of the worker, say)', [SpanKind.CLIENT, 'GET'], 'kept kept'],
    ['a span without a method (a workflow run, a statement)', [SpanKind.INTERNAL], 'kept kept'],
    ["a GET below a caller's sampled trace", [SpanKind.SERVER, 'GET', sampledCaller], 'kept kept'],
  ])('by default keep one new trace in ten of reads and every other: %s', (_, span, expected) => {
    expect(byDefault).toMatchObject({
      sampler: 'parentbased_traceidratio',
      sampleRatio: 1,
      readSampleRatio: 0.1,
      readSamplesPerSecond: 10,
    });
    expect(decide(byDefault, span)).toBe(expected);
  });

  it('is at most the ratio, and keeps every read at 1 or none at 0', () => {
    const get: Span = [SpanKind.SERVER, 'GET'];
    const post: Span = [SpanKind.SERVER, 'POST'];
    const at = (sampleRatio: number, readSampleRatio: number) =>
      ({ sampler: 'parentbased_traceidratio', sampleRatio, readSampleRatio }) as const;
    // Reads' share above the ratio: reads are kept as everything else is, not more.
    expect([decide(at(0.0001, 1), get), decide(at(0.0001, 1), post)]).toEqual(['kept dropped', 'kept dropped']);
    expect(decide(at(1, 1), get)).toBe('kept kept');
    expect([decide(at(1, 0), get), decide(at(1, 0), post)]).toEqual(['dropped dropped', 'kept kept']);
    expect(decide({ ...at(1, 0), sampler: 'traceidratio' }, get)).toBe('dropped dropped');
  });

  it("decides with traceidratio whatever a caller decided, and a read's own spans follow the read", () => {
    const settings = { sampler: 'traceidratio', sampleRatio: 1, readSampleRatio: 0 } as const;
    const local = (sampled: boolean) =>
      trace.setSpanContext(ROOT_CONTEXT, {
        traceId: low,
        spanId: '0000000000000002',
        traceFlags: sampled ? TraceFlags.SAMPLED : TraceFlags.NONE,
      });
    expect(decide(settings, [SpanKind.SERVER, 'GET', sampledCaller])).toBe('dropped dropped');
    expect(decide(settings, [SpanKind.SERVER, 'POST', sampledCaller])).toBe('kept kept');
    // A provider's GET and a statement below a read that was not kept, and below one that was.
    expect(decide(settings, [SpanKind.CLIENT, 'GET', local(false)])).toBe('dropped dropped');
    expect(decide(settings, [SpanKind.CLIENT, undefined, local(true)])).toBe('kept kept');
  });

  it('is not read by the samplers that take no ratio', () => {
    const get: Span = [SpanKind.SERVER, 'GET'];
    expect(decide({ sampler: 'always_on', sampleRatio: 1, readSampleRatio: 0 }, get)).toBe('kept kept');
    expect(decide({ sampler: 'parentbased_always_on', sampleRatio: 1, readSampleRatio: 0 }, get)).toBe('kept kept');
    const configured = loadConfig({ ...base, TRACES_READ_SAMPLE_RATIO: '0.5' }).tracing.readSampleRatio;
    expect(configured).toBe(0.5);
  });

  it("is decided by the request span's method, given to the sampler when the middleware starts the span", async () => {
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({
      sampler: samplerOf({
        sampler: 'parentbased_traceidratio',
        sampleRatio: 1,
        readSampleRatio: 0,
        readSamplesPerSecond: 10,
      }),
    });
    provider.addSpanProcessor(new SimpleSpanProcessor(exporter));
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    try {
      const middleware = traceRequests(provider.getTracer('test'));
      const request = (method: string, headers: Record<string, string> = {}) =>
        middleware(
          { method, path: '/v1/labels', headers, status: 200, state: { requestId: `req_${method}` } } as never,
          async () => undefined,
        );
      await request('GET');
      await request('POST');
      await request('GET', { traceparent: `00-${high}-00f067aa0ba902b7-01` });
      const spans = exporter.getFinishedSpans();
      expect(spans.map((s) => [s.name, s.spanContext().traceId === high])).toEqual([
        ['POST', false],
        ['GET', true],
      ]);
      // A span kept names its path and request; the caller's read is continued below its span.
      expect(spans[0]!.attributes).toMatchObject({ 'url.path': '/v1/labels', request_id: 'req_POST' });
      expect(spans[1]!.parentSpanId).toBe('00f067aa0ba902b7');
    } finally {
      propagation.disable();
      await provider.shutdown();
    }
  });
});

describe("a cap on reads' kept traces (TRACES_READ_SAMPLES_PER_SECOND)", () => {
  const traceId = '00000000000000000000000000000001';
  const sample = (s: Sampler, kind = SpanKind.SERVER, method = 'GET') =>
    s.shouldSample(ROOT_CONTEXT, traceId, method, kind, { 'http.request.method': method }, []).decision ===
    SamplingDecision.RECORD_AND_SAMPLED
      ? 'kept'
      : 'dropped';
  const times = (n: number, s: Sampler, kind?: SpanKind, method?: string) =>
    Array.from({ length: n }, () => sample(s, kind, method));

  it('is read as a positive number, or unlimited', () => {
    expect(loadConfig({ ...base, TRACES_READ_SAMPLES_PER_SECOND: '25' }).tracing.readSamplesPerSecond).toBe(25);
    expect(loadConfig({ ...base, TRACES_READ_SAMPLES_PER_SECOND: '0.5' }).tracing.readSamplesPerSecond).toBe(0.5);
    const unlimited = loadConfig({ ...base, TRACES_READ_SAMPLES_PER_SECOND: 'unlimited' }).tracing;
    expect(unlimited.readSamplesPerSecond).toBe(Infinity);
  });

  it('keeps at most a second of them at once, then as many as the time since allows', () => {
    let now = 0;
    const capped = new RateLimitedSampler(new AlwaysOnSampler(), 2, () => now);
    expect(times(3, capped)).toEqual(['kept', 'kept', 'dropped']);
    now = 499;
    expect(times(1, capped)).toEqual(['dropped']);
    now = 500;
    expect(times(2, capped)).toEqual(['kept', 'dropped']);
    // A quiet minute saves no more than a second's worth.
    now = 60_500;
    expect(times(3, capped)).toEqual(['kept', 'kept', 'dropped']);
  });

  it('keeps one at a time when the cap is below one a second', () => {
    let now = 0;
    const capped = new RateLimitedSampler(new AlwaysOnSampler(), 0.5, () => now);
    expect(times(2, capped)).toEqual(['kept', 'dropped']);
    now = 1_999;
    expect(times(1, capped)).toEqual(['dropped']);
    now = 3_999;
    expect(times(2, capped)).toEqual(['kept', 'dropped']);
  });

  it('spends nothing on what its sampler drops', () => {
    let now = 0;
    let keep = false;
    const inner: Sampler = {
      shouldSample: () => ({ decision: keep ? SamplingDecision.RECORD_AND_SAMPLED : SamplingDecision.NOT_RECORD }),
      toString: () => 'toggle',
    };
    const capped = new RateLimitedSampler(inner, 1, () => now);
    expect(times(5, capped)).toEqual(['dropped', 'dropped', 'dropped', 'dropped', 'dropped']);
    keep = true;
    expect(times(2, capped)).toEqual(['kept', 'dropped']);
    now = 1_000;
    expect(times(1, capped)).toEqual(['kept']);
  });

  it("caps reads' new traces by default, and neither other requests nor a configured `unlimited`", () => {
    const settings = { sampler: 'parentbased_traceidratio', sampleRatio: 1, readSampleRatio: 1 } as const;
    // Calls microseconds apart: no token comes back between them.
    const byDefault = samplerOf({ ...settings, readSamplesPerSecond: 10 });
    expect(times(12, byDefault).filter((d) => d === 'kept')).toHaveLength(10);
    expect(times(12, byDefault, SpanKind.SERVER, 'POST').every((d) => d === 'kept')).toBe(true);
    const unlimited = samplerOf({ ...settings, readSamplesPerSecond: Infinity });
    expect(times(50, unlimited).every((d) => d === 'kept')).toBe(true);
    // The samplers without a ratio keep every read, as their names say.
    const alwaysOn = samplerOf({ ...settings, sampler: 'parentbased_always_on', readSamplesPerSecond: 1 });
    expect(times(5, alwaysOn).every((d) => d === 'kept')).toBe(true);
  });

  it('caps a read share below the ratio, after the share', () => {
    const s = samplerOf({
      sampler: 'parentbased_traceidratio',
      sampleRatio: 1,
      readSampleRatio: 0.5,
      readSamplesPerSecond: 3,
    });
    // A trace ID above the share is dropped by it, and takes none of the three.
    const high = 'ffffffff000000000000000000000000';
    const dropped = s.shouldSample(ROOT_CONTEXT, high, 'GET', SpanKind.SERVER, { 'http.request.method': 'GET' }, []);
    expect(dropped.decision).toBe(SamplingDecision.NOT_RECORD);
    expect(times(4, s)).toEqual(['kept', 'kept', 'kept', 'dropped']);
  });
});

describe('PostgreSQL statement spans', () => {
  it('take the statement of a text or a config, not of a submittable (a cursor)', () => {
    expect(statementText('SELECT 1')).toBe('SELECT 1');
    expect(statementText({ text: 'SELECT $1', values: [1] })).toBe('SELECT $1');
    expect(statementText({ text: 'SELECT 1', submit() {} })).toBeUndefined();
    expect(statementText(null)).toBeUndefined();
    expect(statementText(42)).toBeUndefined();
  });

  it('record the statement without its values: literals become ?, placeholders and identifiers stay', () => {
    expect(
      redactedStatement(
        `select "l0".* from label_creations as "l0" where store_id = 'st_1' and key = 'it''s' and n >= 20.5 and m = $2 limit 50`,
      ),
    ).toBe(
      `select "l0".* from label_creations as "l0" where store_id = '?' and key = '?' and n >= ? and m = $2 limit ?`,
    );
    expect(redactedStatement(`insert into t values ('${'x'.repeat(3000)}')`)).toBe(`insert into t values ('?')`);
    expect(redactedStatement(`select '${'y'.repeat(10)}', ${'1,'.repeat(1500)}1`).length).toBe(2001);
  });

  it('fold the indentation of a statement into single spaces', () => {
    expect(
      redactedStatement(
        `\n  with k as (\n    select id\n      from t\n     where a = 'x  y'\n  )\n  select * from k\n`,
      ),
    ).toBe(`with k as ( select id from t where a = '?' ) select * from k`);
  });

  it.each([
    ['select "l0".* from "labels" as "l0" where "l0"."id" = $1', 'SELECT labels'],
    ['insert into "label_creations" ("id") values ($1)', 'INSERT label_creations'],
    ['UPDATE api_keys SET used = used + 1 WHERE key_hash = $1', 'UPDATE api_keys'],
    ['  with x as (select 1) select * from x join stores s on true', 'WITH x'],
    ['begin', 'BEGIN shipping'],
    ['$1', 'QUERY shipping'],
  ])('name %s as %s', (text, name) => {
    expect(statementName(text, 'shipping')).toBe(name);
  });
});

describe("the workflow's request ID", () => {
  it('is read from the W3C baggage in the trace header', () => {
    const headers = {
      [TRACE_HEADER]: defaultPayloadConverter.toPayload({
        traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
        baggage: 'other=1,request_id=req_abc%2Fx;prop=1',
      }),
    };
    expect(requestIdOf(headers)).toBe('req_abc/x');
  });

  it('is absent without the header, without baggage or without the entry', () => {
    expect(requestIdOf({})).toBeUndefined();
    expect(requestIdOf({ [TRACE_HEADER]: defaultPayloadConverter.toPayload({ traceparent: 'x' }) })).toBeUndefined();
    expect(baggageEntry('a=1, b=2', 'request_id')).toBeUndefined();
    expect(baggageEntry('request_id=%E0%A4%A', 'request_id')).toBeUndefined();
    expect(baggageEntry(' request_id = req_1 ', 'request_id')).toBe('req_1');
  });
});

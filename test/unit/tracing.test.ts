import { defaultPayloadConverter } from '@temporalio/common';
import { loadConfig } from '../../src/config';
import { baggageEntry, requestIdOf, TRACE_HEADER } from '../../workflows/request-id-interceptor';

const base = { DATABASE_URL: 'postgres://localhost/x' };

describe('tracing configuration', () => {
  it('is off by default', () => {
    expect(loadConfig(base).tracing).toEqual({
      exporter: 'none',
      endpoint: 'http://localhost:4318/v1/traces',
      sampleRatio: 1,
      serviceName: undefined,
    });
  });

  it('exports OTLP to the traces endpoint, the generic one with /v1/traces, at the configured ratio', () => {
    const generic = loadConfig({
      ...base,
      OTEL_TRACES_EXPORTER: 'otlp',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/',
      OTEL_TRACES_SAMPLER_ARG: '0.25',
      OTEL_SERVICE_NAME: 'labels-eu',
    }).tracing;
    expect(generic).toEqual({
      exporter: 'otlp',
      endpoint: 'http://collector:4318/v1/traces',
      sampleRatio: 0.25,
      serviceName: 'labels-eu',
    });
    const own = loadConfig({ ...base, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:1/traces' }).tracing;
    expect(own.endpoint).toBe('http://c:1/traces');
  });

  it.each([
    ['OTEL_TRACES_EXPORTER', 'jaeger'],
    ['OTEL_TRACES_SAMPLER_ARG', '1.5'],
    ['OTEL_EXPORTER_OTLP_PROTOCOL', 'grpc'],
  ])('refuses %s=%s', (name, value) => {
    expect(() => loadConfig({ ...base, [name]: value })).toThrow(name);
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

import { createServer, type IncomingHttpHeaders } from 'node:http';
import { createServer as createH2Server } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { SpanKind } from '@opentelemetry/api';
import type { OtlpProtocol } from '../../src/tracing/settings';
import { startTracing } from '../../src/tracing/provider';
import { inSpan } from '../../src/tracing/spans';

/**
 * Each OTLP encoding the configuration accepts (decision 0950) reaches a collector: a receiver of the test's own takes
 * the export as a collector would (HTTP on /v1/traces, gRPC on the trace service's Export method) and finds the span.
 */
interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

async function httpCollector() {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) });
      res.writeHead(200, { 'content-type': req.headers['content-type'] ?? 'application/json' }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { received, url, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** Enough of a gRPC server for one unary call: an empty ExportTraceServiceResponse and status 0. */
async function grpcCollector() {
  const received: Received[] = [];
  const server = createH2Server();
  server.on('stream', (stream, headers) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => {
      received.push({
        path: String(headers[':path']),
        headers,
        body: Buffer.concat(chunks),
      });
      stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
      stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
      stream.end(Buffer.from([0, 0, 0, 0, 0]));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { received, url, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

async function exportOneSpan(protocol: OtlpProtocol, endpoint: string, spanName: string): Promise<void> {
  const tracing = startTracing(
    {
      exporter: 'otlp',
      protocol,
      endpoint,
      sampler: 'parentbased_always_on',
      sampleRatio: 1,
      readSampleRatio: 1,
      readSamplesPerSecond: Infinity,
      serviceName: 'export-test',
    },
    'shipping-label-test',
  );
  expect(tracing).not.toBeNull();
  await inSpan(spanName, { kind: SpanKind.INTERNAL }, async () => undefined);
  // Shutting down flushes the batch.
  await tracing!.shutdown();
}

describe('OTLP export', () => {
  it.each([
    ['http/protobuf', 'application/x-protobuf'],
    ['http/json', 'application/json'],
  ] as const)('over %s posts the spans to /v1/traces as %s', async (protocol, contentType) => {
    const collector = await httpCollector();
    try {
      await exportOneSpan(protocol, `${collector.url}/v1/traces`, `span-over-${protocol}`);
      expect(collector.received).toHaveLength(1);
      const [request] = collector.received;
      expect(request!.path).toBe('/v1/traces');
      expect(request!.headers['content-type']).toBe(contentType);
      expect(request!.body.toString('utf8')).toContain(`span-over-${protocol}`);
      expect(request!.body.toString('utf8')).toContain('export-test');
    } finally {
      await collector.close();
    }
  });

  it("over grpc calls the trace service's Export with the spans", async () => {
    const collector = await grpcCollector();
    try {
      await exportOneSpan('grpc', collector.url, 'span-over-grpc');
      expect(collector.received).toHaveLength(1);
      const [call] = collector.received;
      expect(call!.path).toBe('/opentelemetry.proto.collector.trace.v1.TraceService/Export');
      expect(call!.headers['content-type']).toBe('application/grpc');
      expect(call!.body.toString('utf8')).toContain('span-over-grpc');
    } finally {
      await collector.close();
    }
  });
});

import { context, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, TraceFlags, type Context } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { DefaultLogger, Runtime, type LogEntry } from '@temporalio/worker';
import { Pool } from 'pg';
import { startTracing, type Tracing } from '../../src/tracing/provider';
import { workflowInterceptorModules } from '../../src/temporal/workflow-source';
import { tracingWorkerOptions } from '../../src/tracing/temporal';
import { aCarrierAAccount, anOrderOnPlatform, aRule } from '../helpers/creation';
import { aLabel } from '../helpers/labels';
import { aStoreWithKey } from '../helpers/stores';
import { startAppWithOwnWorker, type AppWithOwnWorker } from '../helpers/own-worker';
import type { TestApp } from '../helpers/test-app';

/**
 * Tracing on (docs/decisions/0950-tracing.md): a creation's spans, from the API's request through the workflow and its
 * activities to the carrier's HTTP call, form one trace, and each names the request. The API and a worker of this
 * file's own (its own task queue, the project's activities and workflows, tracing on) run in this process and export
 * to one in-memory exporter: the global test worker runs without tracing.
 */
const queue = `tracing-${process.pid}`;
const exporter = new InMemorySpanExporter();
const sdkLogs: LogEntry[] = [];

let tracing: Tracing;
let app: TestApp;
let own: AppWithOwnWorker;
beforeAll(async () => {
  // The workflow's log lines (the SDK's own "Workflow started" among them) are read back from here.
  Runtime.install({ logger: new DefaultLogger('DEBUG', (entry) => sdkLogs.push(entry)) });
  const settings = {
    exporter: 'none',
    protocol: 'http/json',
    endpoint: '',
    sampler: 'parentbased_traceidratio',
    sampleRatio: 1,
    // Every read kept: the reads below start new traces and are looked for in them.
    readSampleRatio: 1,
    readSamplesPerSecond: Infinity,
    serviceName: undefined,
  } as const;
  tracing = startTracing(settings, 'shipping-label-test', { processor: new SimpleSpanProcessor(exporter) })!;
  own = await startAppWithOwnWorker({
    taskQueue: queue,
    worker: tracingWorkerOptions(tracing, workflowInterceptorModules(true)),
  });
  app = own.app;
}, 120_000);
afterAll(async () => {
  await own?.stop();
  await tracing?.shutdown();
});

/** The span's ancestors within the exported spans, nearest first. */
function ancestors(span: ReadableSpan, spans: ReadableSpan[]): ReadableSpan[] {
  const line: ReadableSpan[] = [];
  for (let at = span.parentSpanId; at;) {
    const parent = spans.find((s) => s.spanContext().spanId === at);
    if (!parent) break;
    line.push(parent);
    at = parent.parentSpanId;
  }
  return line;
}

describe('a creation traced end to end', () => {
  it('puts the request, the workflow, its activities and the carrier call in one trace that names the request', async () => {
    const shop = await aStoreWithKey(app.orm);
    const account = await aCarrierAAccount(app.orm, shop.storeId);
    await aRule(app.orm, shop.storeId, { priority: 1, carrierAccountId: account.id, serviceCode: 'a_home' });
    const order = await anOrderOnPlatform(shop.domain);
    const res = await app.request('POST', '/v1/labels', {
      headers: { ...shop.auth, 'Idempotency-Key': `traced-${order.orderId}`, Prefer: 'wait=30' },
      body: { order_id: order.orderId },
    });
    expect(res.status).toBe(201);
    expect(res.body.status).toBe('succeeded');
    const requestId = res.headers.get('x-request-id');
    expect(requestId).toMatch(/^req_/);
    await tracing.processor.forceFlush();

    const spans = exporter.getFinishedSpans();

    const request = spans.find((s) => s.kind === SpanKind.SERVER && s.name === 'POST /labels');
    expect(request).toBeDefined();
    expect(request!.attributes).toMatchObject({ request_id: requestId, 'http.response.status_code': 201 });
    const trace = spans.filter((s) => s.spanContext().traceId === request!.spanContext().traceId);
    const names = trace.map((s) => s.name);

    // The API's update-with-start, the workflow run, and its first activity (prepared and sent in one) in the worker.
    expect(names).toEqual(expect.arrayContaining([expect.stringMatching(/^UpdateWithStartWorkflow:/)]));
    expect(names).toEqual(expect.arrayContaining([expect.stringMatching(/^RunWorkflow:/)]));
    const firstStep = trace.find((s) => s.name === 'RunActivity:prepareAndSendToCarrier');
    expect(firstStep).toBeDefined();
    expect(ancestors(firstStep!, trace)).toContain(request);

    // The platform's reads and the carrier's create (a POST), below the activity that made them, name the request too.
    const outbound = trace.filter(
      (s) => s.kind === SpanKind.CLIENT && 'url.full' in s.attributes && ancestors(s, trace).includes(firstStep!),
    );
    expect(outbound.map((s) => s.attributes['http.request.method'])).toContain('POST');
    for (const call of outbound) {
      expect(call.attributes).toMatchObject({
        request_id: requestId,
        'url.full': expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\//),
      });
    }
    expect(firstStep!.attributes.request_id).toBe(requestId);

    // Nothing of this creation went into another trace.
    const workflowId = `label-creation/${shop.storeId}/traced-${order.orderId}`;
    const ofThisWorkflow = spans.filter((s) => s.attributes.temporalWorkflowId === workflowId);
    expect(ofThisWorkflow.length).toBeGreaterThan(0);
    expect(new Set(ofThisWorkflow.map((s) => s.spanContext().traceId))).toEqual(
      new Set([request!.spanContext().traceId]),
    );

    // The workflow's own spans, made in the worker's sandbox, name the request too.
    const inWorkflow = trace.filter((s) => /^(RunWorkflow|StartActivity|HandleUpdate):/.test(s.name));
    expect(inWorkflow.length).toBeGreaterThan(2);
    expect(inWorkflow.filter((s) => s.attributes.request_id !== requestId).map((s) => s.name)).toEqual([]);

    // PostgreSQL statements: below the request (the API's) and below activities (the worker's), each naming the
    // request, with the parameterized statement and never a value.
    const statements = trace.filter((s) => s.attributes['db.system'] === 'postgresql');
    expect(statements.some((s) => ancestors(s, trace)[0] === request)).toBe(true);
    expect(statements.some((s) => ancestors(s, trace).some((a) => a.name.startsWith('RunActivity:')))).toBe(true);
    for (const statement of statements) {
      expect(statement.kind).toBe(SpanKind.CLIENT);
      expect(statement.attributes).toMatchObject({ request_id: requestId, 'db.operation.name': expect.any(String) });
      expect(statement.attributes['db.query.text']).not.toContain(order.orderId);
    }
    expect(statements.map((s) => s.name)).toEqual(expect.arrayContaining([expect.stringMatching(/ label_creations$/)]));
    // Statements outside any operation (pollers, housekeeping) start no trace of their own.
    const allStatements = spans.filter((s) => s.attributes['db.system'] === 'postgresql');
    expect(allStatements.every((s) => s.parentSpanId !== undefined)).toBe(true);

    // Every log line of the workflow carries the request ID, the SDK's "Workflow started" and "Workflow completed"
    // among them (the start's memo names it from the first activation).
    const workflowLines = sdkLogs.filter((entry) => entry.meta?.workflowId === workflowId && !entry.meta.activityId);
    expect(workflowLines.map((entry) => entry.message)).toEqual(
      expect.arrayContaining(['Workflow started', 'Workflow completed']),
    );
    expect(workflowLines.filter((entry) => entry.meta?.request_id !== requestId)).toEqual([]);
  });

  it("puts each of many concurrent reads' statements in its own request's trace", async () => {
    // More reads at once than the hot pool has connections (a key each, under the per-key limits): most wait for a
    // connection, handed over by another read's finished statement.
    const readers = await Promise.all(
      Array.from({ length: 4 }, async () => {
        const shop = await aStoreWithKey(app.orm);
        return { shop, label: await aLabel(app.orm, shop.storeId) };
      }),
    );
    const answers = await Promise.all(
      readers.flatMap(({ shop, label }) =>
        Array.from({ length: 8 }, () => app.request('GET', `/v1/labels/${label.id}`, { headers: shop.auth })),
      ),
    );
    expect(answers.map((res) => res.status)).toEqual(answers.map(() => 200));
    await tracing.processor.forceFlush();
    const spans = exporter.getFinishedSpans();
    for (const res of answers) {
      const requestId = res.headers.get('x-request-id');
      const request = spans.find((s) => s.kind === SpanKind.SERVER && s.attributes.request_id === requestId);
      expect(request).toBeDefined();
      const below = spans.filter((s) => s.parentSpanId === request!.spanContext().spanId);
      const statements = below.filter((s) => s.attributes['db.system'] === 'postgresql');
      // Its admission statement (key, limits and, once the read is known, the label's row in one round trip): exactly
      // one, not another read's.
      expect(statements.filter((s) => /^WITH (api_keys|labels)$/.test(s.name))).toHaveLength(1);
      for (const statement of statements) {
        expect(statement.spanContext().traceId).toBe(request!.spanContext().traceId);
        expect(statement.attributes.request_id).toBe(requestId);
      }
    }
  });

  it("keeps an unsampled caller's statement out of the trace of the statement that handed it a connection", async () => {
    const pool = new Pool({ connectionString: app.config.databaseUrl, max: 1 });
    const unsampled = trace.setSpan(
      ROOT_CONTEXT,
      trace.wrapSpanContext({ traceId: 'ab'.repeat(16), spanId: 'cd'.repeat(8), traceFlags: TraceFlags.NONE }),
    );
    try {
      await trace.getTracer('test').startActiveSpan('holder', async (holder) => {
        const first = pool.query('select pg_sleep(0.05) as holder_statement');
        // Waits for the one connection, handed over from the first statement's callback inside this recording span.
        const waiting = context.with(unsampled, () => pool.query('select 2 as waiting_statement'));
        await Promise.all([first, waiting]);
        holder.end();
      });
    } finally {
      await pool.end();
    }
    await tracing.processor.forceFlush();
    const texts = exporter.getFinishedSpans().map((s) => String(s.attributes['db.query.text']));
    expect(texts.filter((text) => text.includes('holder_statement'))).toHaveLength(1);
    expect(texts.filter((text) => text.includes('waiting_statement'))).toEqual([]);
  });

  /**
   * A statement that waits for the pool's one connection, handed it when a connection is released in another context:
   * whose trace gets the statement's span (the trace IDs of the statement spans found).
   */
  async function handedOver(caller: Context, releaser: Context, marker: string): Promise<string[]> {
    const pool = new Pool({ connectionString: app.config.databaseUrl, max: 1 });
    try {
      const held = await pool.connect();
      const statement = context.with(caller, () => pool.query(`SELECT 1 AS ${marker}`));
      context.with(releaser, () => held.release());
      await statement;
      await tracing.processor.forceFlush();
      return exporter
        .getFinishedSpans()
        .filter((s) => String(s.attributes['db.query.text']).includes(marker))
        .map((s) => s.spanContext().traceId);
    } finally {
      await pool.end();
    }
  }
  const unsampled = (traceId: string) =>
    trace.setSpan(
      ROOT_CONTEXT,
      trace.wrapSpanContext({ traceId, spanId: '12'.repeat(8), traceFlags: TraceFlags.NONE }),
    );

  it("runs a statement handed its connection from another context in its caller's trace", async () => {
    const caller = trace.getTracer('test').startSpan('caller');
    try {
      const traces = await handedOver(trace.setSpan(ROOT_CONTEXT, caller), ROOT_CONTEXT, 'handed_to_kept');
      expect(traces).toEqual([caller.spanContext().traceId]);
    } finally {
      caller.end();
    }
  });

  it('records nothing of a statement handed its connection between two contexts not kept', async () => {
    // The callback runs where it is handed over, without a switch (reads mostly are not kept): neither records.
    expect(await handedOver(unsampled('ab'.repeat(16)), unsampled('cd'.repeat(16)), 'between_dropped')).toEqual([]);
  });

  it("hands a pool's connect callback its client and its release", async () => {
    const pool = new Pool({ connectionString: app.config.databaseUrl, max: 1 });
    try {
      const held = await pool.connect();
      const handed = new Promise<boolean>((resolve, reject) =>
        pool.connect((error, client, release) => {
          if (error || !client) return reject(error ?? new Error('no client'));
          release();
          resolve(true);
        }),
      );
      held.release();
      expect(await handed).toBe(true);
      expect(pool.idleCount).toBe(1);
    } finally {
      await pool.end();
    }
  });

  it("continues a caller's sampled trace, and carries the request ID, not the caller's baggage", async () => {
    const shop = await aStoreWithKey(app.orm);
    const label = await aLabel(app.orm, shop.storeId);
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const res = await app.request('GET', `/v1/labels/${label.id}`, {
      headers: { ...shop.auth, traceparent: `00-${traceId}-00f067aa0ba902b7-01`, baggage: 'request_id=forged,user=x' },
    });
    expect(res.status).toBe(200);
    await tracing.processor.forceFlush();
    const requestId = res.headers.get('x-request-id');
    const spans = exporter.getFinishedSpans().filter((s) => s.spanContext().traceId === traceId);
    const request = spans.find((s) => s.kind === SpanKind.SERVER);
    expect(request).toMatchObject({ name: 'GET /labels/{label_id}', parentSpanId: '00f067aa0ba902b7' });
    expect(spans.length).toBeGreaterThan(1);
    for (const span of spans) expect(span.attributes.request_id).toBe(requestId);
  });

  it("records a refusal's status on the request span without marking the span failed", async () => {
    const shop = await aStoreWithKey(app.orm);
    const res = await app.request('GET', '/v1/labels/lbl_doesnotexist000000000', { headers: shop.auth });
    expect(res.status).toBe(404);
    await tracing.processor.forceFlush();
    const requestId = res.headers.get('x-request-id');
    const span = exporter
      .getFinishedSpans()
      .find((s) => s.attributes.request_id === requestId && s.kind === SpanKind.SERVER);
    expect(span).toMatchObject({ name: 'GET /labels/{label_id}', kind: SpanKind.SERVER });
    expect(span!.attributes['http.response.status_code']).toBe(404);
    expect(span!.status.code).toBe(SpanStatusCode.UNSET);
  });
});

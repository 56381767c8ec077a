import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, relative } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { openOrm, type Orm } from '../../src/db/orm';
import searchAttributes from '../../src/temporal/search-attributes.json';
import { servedContract } from '../helpers/contract';
import { sampleValue } from '../helpers/prometheus';
import { freePort, stop, waitForPort } from '../helpers/processes';
import { aCarrierAAccount, anOrderOnPlatform, aRule } from '../helpers/creation';
import { aStoreWithKey } from '../helpers/stores';

// `npm run build`, then the compiled API and worker as `npm start` runs them (NODE_ENV=production: the worker must
// load the prebuilt workflow bundle, it refuses to bundle at start). The worker gets a Temporal dev server of its
// own, so its boot-time Schedules never touch the run's shared server.
const root = join(__dirname, '..', '..');
const dist = join(root, 'dist');

interface Started {
  child: ChildProcess;
  output: () => string;
}

function startCompiled(entry: string, env: NodeJS.ProcessEnv): Started {
  let output = '';
  const child = spawn(process.execPath, [join(dist, entry)], {
    cwd: root,
    env,
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return { child, output: () => output };
}

function ready(started: Started, what: string): Promise<void> {
  return new Promise((resolve, reject) => {
    started.child.once('exit', (code) => reject(new Error(`${what} exited with ${code}:\n${started.output()}`)));
    started.child.on('message', (message: { type?: string }) => message?.type === 'ready' && resolve());
  });
}

/** Packages the compiled service requires (not the workflow bundle, which carries its own code). */
function requiredPackages(dir: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    const path = join(entry.parentPath, entry.name);
    if (!entry.isFile() || !entry.name.endsWith('.js') || entry.name.startsWith('workflow-bundle')) continue;
    for (const [, spec] of readFileSync(path, 'utf8').matchAll(/require\("([^"./][^"]*)"\)/g)) {
      const name = spec!.startsWith('@') ? spec!.split('/').slice(0, 2).join('/') : spec!.split('/')[0]!;
      if (!name.startsWith('node:') && !builtinModules.includes(name)) found.set(name, relative(root, path));
    }
  }
  return found;
}

/** What an OTLP/HTTP (JSON) collector receives: each span with its process's `service.name`. */
interface CollectedSpan {
  service: string;
  traceId: string;
  name: string;
}
type OtlpValue = { stringValue?: string };
type OtlpExport = {
  resourceSpans?: Array<{
    resource?: { attributes?: Array<{ key: string; value: OtlpValue }> };
    scopeSpans?: Array<{ spans?: Array<{ traceId: string; name: string }> }>;
  }>;
};
const collected: CollectedSpan[] = [];
function startCollector(): Promise<Server> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as OtlpExport;
      for (const resourceSpans of body.resourceSpans ?? []) {
        const service = resourceSpans.resource?.attributes?.find((a) => a.key === 'service.name')?.value.stringValue;
        for (const scope of resourceSpans.scopeSpans ?? [])
          for (const span of scope.spans ?? [])
            collected.push({ service: service ?? '', traceId: span.traceId, name: span.name });
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

let collector: Server;
let temporalServer: ChildProcess;
let api: Started;
let worker: Started;
let apiUrl: string;
let apiMetricsPort: number;
let workerMetricsPort: number;
let client: Client;
let orm: Orm;
const taskQueue = `compiled-worker-${process.pid}`;

beforeAll(async () => {
  const build = spawnSync(process.execPath, [join(root, 'scripts', 'build.mjs')], { cwd: root, encoding: 'utf8' });
  if (build.status !== 0) throw new Error(`npm run build failed:\n${build.stdout}\n${build.stderr}`);

  const temporalPort = await freePort();
  const args = ['server', 'start-dev', '--headless', '--ip', '127.0.0.1', '--port', String(temporalPort)];
  args.push(
    '--http-port',
    String(await freePort()),
    '--metrics-port',
    String(await freePort()),
    '--log-level',
    'error',
  );
  for (const [key, type] of Object.entries(searchAttributes)) args.push('--search-attribute', `${key}=${type}`);
  temporalServer = spawn(process.env.TEMPORAL_CLI_PATH || 'temporal', args, { stdio: ['ignore', 'ignore', 'inherit'] });
  await waitForPort(temporalPort, 'Temporal dev server', temporalServer);

  collector = await startCollector();
  const apiPort = await freePort();
  apiMetricsPort = await freePort();
  workerMetricsPort = await freePort();
  apiUrl = `http://127.0.0.1:${apiPort}`;
  const env = {
    PATH: process.env.PATH,
    NODE_ENV: 'production',
    LOG_LEVEL: 'info',
    DATABASE_URL: process.env.DATABASE_URL,
    TEMPORAL_ADDRESS: `127.0.0.1:${temporalPort}`,
    TEMPORAL_TASK_QUEUE: taskQueue,
    SANDBOX_URL: process.env.SANDBOX_URL,
    CURSOR_SECRET: 'compiled-build-test-cursor-secret',
    SETTINGS_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
    PORT: String(apiPort),
    METRICS_PORT: String(apiMetricsPort),
    WORKER_METRICS_PORT: String(workerMetricsPort),
    // Tracing on (off is the default every other suite runs): the worker loads the bundle with the tracing modules.
    OTEL_TRACES_EXPORTER: 'otlp',
    OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(collector.address() as AddressInfo).port}`,
    // The collector here reads JSON (the default encoding is protobuf; tracing-export.test.ts sends each one).
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_BSP_SCHEDULE_DELAY: '100',
  };
  worker = startCompiled('src/worker.js', env);
  api = startCompiled('src/server.js', env);
  await Promise.all([ready(worker, 'compiled worker'), waitForPort(apiPort, 'compiled API', api.child)]);
  client = new Client({ connection: await Connection.connect({ address: env.TEMPORAL_ADDRESS }) });
  orm = await openOrm(process.env.DATABASE_URL!);
}, 600_000);

afterAll(async () => {
  await Promise.all([stop(api?.child), stop(worker?.child)]);
  await client?.connection.close();
  await orm?.close();
  await stop(temporalServer);
  collector?.close();
});

describe('the compiled service (npm run build, npm start)', () => {
  it('requires only packages listed in dependencies (tsx and dev tools are not needed at run time)', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { dependencies: object };
    const required = requiredPackages(dist);
    expect(required.size).toBeGreaterThan(5);
    const missing = [...required]
      .filter(([name]) => !(name in pkg.dependencies))
      .map(([name, file]) => `${name} (${file})`);
    expect(missing).toEqual([]);
    expect(required.has('tsx')).toBe(false);
  });

  it('serves an API request, true to the OpenAPI document', async () => {
    const { storeId, auth } = await aStoreWithKey(orm);
    const check = servedContract(apiUrl);
    const response = await fetch(`${apiUrl}/v1/shop`, { headers: auth });
    const text = await response.text();
    await check({ method: 'GET', url: `${apiUrl}/v1/shop`, status: response.status, headers: response.headers, text });
    expect(response.status).toBe(200);
    expect(JSON.parse(text)).toMatchObject({ id: storeId });

    // METRICS_PORT: the request is counted on the metrics port, and /metrics is not served with the API.
    const metrics = await (await fetch(`http://127.0.0.1:${apiMetricsPort}/metrics`)).text();
    expect(sampleValue(metrics, 'http_requests_total', { method: 'GET', route: '/v1/shop', status: '200' })).toBe(1);
    expect((await fetch(`${apiUrl}/metrics`)).status).toBe(404);
  });

  it('serves the API reference page and its assets from the installed renderer', async () => {
    const check = servedContract(apiUrl);
    const fetched = async (path: string) => {
      const response = await fetch(`${apiUrl}${path}`);
      const text = await response.text();
      await check({ method: 'GET', url: `${apiUrl}${path}`, status: response.status, headers: response.headers, text });
      return { status: response.status, type: response.headers.get('content-type'), text };
    };
    const page = await fetched('/v1/docs');
    expect(page).toMatchObject({ status: 200, type: 'text/html; charset=utf-8' });
    expect(page.text).toContain('data-openapi-url="/v1/openapi.json"');
    const assets = [...page.text.matchAll(/(?:src|href)="(\/v1\/docs\/assets\/[^"]+)"/g)].map((m) => m[1]!);
    expect(assets).toContain('/v1/docs/assets/swagger-ui-bundle.js');
    for (const asset of assets) expect(await fetched(asset)).toMatchObject({ status: 200 });
    expect((await fetched('/v1/docs/assets/swagger-ui.css')).type).toBe('text/css; charset=utf-8');
    expect((await fetched('/v1/docs/assets/swagger-ui-bundle.js')).text).toContain('SwaggerUIBundle');
  });

  it('runs a workflow on the worker, which loaded the prebuilt bundle', async () => {
    expect(worker.output()).toContain('"msg":"loading the prebuilt workflow bundle"');
    expect(worker.output()).toContain(`"workflow_bundle":${JSON.stringify(join(dist, 'workflow-bundle-traced.js'))}`);
    // A retention of a century deletes nothing the other suites wrote.
    const result = await client.workflow.execute('purgeRequestLogWorkflow', {
      taskQueue,
      workflowId: `compiled-purge-${process.pid}`,
      args: [{ retentionMs: 100 * 365 * 86_400_000 }],
    });
    expect(result).toMatchObject({ deleted: 0 });

    // WORKER_METRICS_PORT: the SDK runtime's metrics count the workflow; the worker reports itself running.
    const metrics = await (await fetch(`http://127.0.0.1:${workerMetricsPort}/metrics`)).text();
    const completed = { workflow_type: 'purgeRequestLogWorkflow', task_queue: taskQueue };
    expect(sampleValue(metrics, 'temporal_workflow_completed', completed)).toBe(1);
    expect(sampleValue(metrics, 'shipping_label_worker_running')).toBe(1);
    expect(sampleValue(metrics, 'shipping_label_worker_heartbeat_seconds')).toBeGreaterThan(1_700_000_000);
  });

  it('creates a label through the compiled API and worker, counted by status on the worker', async () => {
    const { storeId, domain, auth } = await aStoreWithKey(orm);
    const account = await aCarrierAAccount(orm, storeId);
    await aRule(orm, storeId, { priority: 1, carrierAccountId: account.id, serviceCode: 'a_home' });
    const order = await anOrderOnPlatform(domain);
    const response = await fetch(`${apiUrl}/v1/labels`, {
      method: 'POST',
      headers: {
        ...auth,
        'content-type': 'application/json',
        'Idempotency-Key': `compiled-${order.orderId}`,
        Prefer: 'wait=30',
      },
      body: JSON.stringify({ order_id: order.orderId }),
    });
    expect(response.status).toBe(201);
    expect(await response.json()).toMatchObject({ status: 'succeeded', created: true });
    const metrics = await (await fetch(`http://127.0.0.1:${workerMetricsPort}/metrics`)).text();
    expect(sampleValue(metrics, 'shipping_label_creations', { status: 'succeeded' })).toBe(1);

    // OTLP export: the API's request span and the worker's carrier activity reach the collector in one trace.
    const traceOf = (service: string, name: string) =>
      collected.find((span) => span.service === service && span.name === name)?.traceId;
    const deadline = Date.now() + 15_000;
    const arrived = () =>
      traceOf('shipping-label-api', 'POST /labels') &&
      traceOf('shipping-label-worker', 'RunActivity:prepareAndSendToCarrier');
    while (!arrived() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    const requestTrace = traceOf('shipping-label-api', 'POST /labels');
    expect(requestTrace).toMatch(/^[0-9a-f]{32}$/);
    expect(traceOf('shipping-label-worker', 'RunActivity:prepareAndSendToCarrier')).toBe(requestTrace);
    expect(traceOf('shipping-label-worker', 'RunWorkflow:labelCreationWorkflow')).toBe(requestTrace);
    // PostgreSQL statements of both compiled processes in it too.
    for (const service of ['shipping-label-api', 'shipping-label-worker'])
      expect(
        collected.some(
          (span) =>
            span.service === service &&
            span.traceId === requestTrace &&
            /^(SELECT|INSERT|UPDATE|WITH) /.test(span.name),
        ),
      ).toBe(true);
  });
});

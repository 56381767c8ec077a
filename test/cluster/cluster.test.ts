import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { openOrm, type Orm } from '../../src/db/orm';
import { servedContract } from '../helpers/contract';
import { aCarrierAAccount, anOrderOnPlatform, aRule } from '../helpers/creation';
import { freePort, freePortPair } from '../helpers/processes';
import { ledger, scriptFaults } from '../helpers/sandbox';
import { aStoreWithKey } from '../helpers/stores';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy';

// The production shape, started once by `npm run cluster` (scripts/cluster.mjs): a Temporal server on PostgreSQL, two
// workers and two API processes from a compiled build, the sandbox as carrier. Every property is proven over HTTP
// against both API processes, with the sandbox's ledger as the carrier's truth. PostgreSQL is reached through a TCP
// proxy the test can cut, so "PostgreSQL unreachable" needs no control over the machine's server.
const root = join(__dirname, '..', '..');
const serverUrl = process.env.PG_SERVER_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const database = `sla_cluster_${process.pid}_${Date.now()}`;
const dir = join(root, '.data', `cluster-test-${process.pid}`);

interface Summary {
  api: string[];
  sandbox: string;
  worker_metrics: string[];
}
let cluster: ChildProcess;
let output = '';
let summary: Summary;
let proxy: TcpProxy;
let orm: Orm;

function withDatabase(url: string, name: string, port?: number): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  if (port) u.port = String(port);
  return u.toString();
}

beforeAll(async () => {
  const pg = new URL(serverUrl);
  proxy = await startTcpProxy({ host: pg.hostname, port: Number(pg.port || 5432) });
  const env = {
    ...process.env,
    DATABASE_URL: withDatabase(serverUrl, database, proxy.port),
    CLUSTER_DATA_DIR: dir,
    CLUSTER_BUILD_DIR: join(dir, 'dist'),
    CLUSTER_UI: 'false',
    PORT: String(await freePortPair()),
    TEMPORAL_PORT: String(await freePort()),
    TEMPORAL_UI_PORT: String(await freePort()),
    SANDBOX_PORT: String(await freePort()),
    WORKER_METRICS_PORT: String(await freePortPair()),
    LOG_LEVEL: 'warn',
    // Carrier calls are given up on after 2 s, as in the integration tests.
    CARRIER_TIMEOUT: '2s',
    // Production talks to Shopify itself: not the integration run's fake (its http:// URL is refused there).
    SHOPIFY_ADMIN_URL: undefined,
  };
  cluster = spawn(process.execPath, [join(root, 'scripts', 'cluster.mjs')], {
    cwd: root,
    env,
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  // A test run that ends abruptly still stops the cluster (it stops its own processes on SIGTERM).
  process.once('exit', () => cluster.kill('SIGTERM'));
  const collect = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-20_000));
  cluster.stdout!.on('data', collect);
  cluster.stderr!.on('data', collect);
  summary = await new Promise<Summary>((resolve, reject) => {
    cluster.once('exit', (code) => reject(new Error(`npm run cluster exited with ${code}:\n${output}`)));
    cluster.on('message', (message: { type?: string } & Summary) => message?.type === 'ready' && resolve(message));
  });
  process.env.SANDBOX_URL = summary.sandbox;
  orm = await openOrm(withDatabase(serverUrl, database));
}, 30 * 60_000);

afterAll(async () => {
  await orm?.close();
  if (cluster && cluster.exitCode === null) {
    const exited = new Promise((resolve) => cluster.once('exit', resolve));
    cluster.kill('SIGTERM');
    await exited;
  }
  await proxy?.close();
  const admin = new Client({ connectionString: serverUrl });
  await admin.connect();
  for (const name of [database, `${database}_temporal`, `${database}_temporal_visibility`])
    await admin.query(`drop database if exists "${name}" with (force)`);
  await admin.end();
  // The processes' logs outlive the run (a few hundred lines), so a failure in CI can be looked into afterwards;
  // KEEP_CLUSTER_DIR=1 keeps the whole directory.
  const logs = join(tmpdir(), `cluster-test-logs-${process.pid}`);
  if (existsSync(join(dir, 'logs'))) {
    cpSync(join(dir, 'logs'), logs, { recursive: true });
    process.stderr.write(`cluster test: the processes' logs are in ${logs}\n`);
  }
  if (!process.env.KEEP_CLUSTER_DIR) rmSync(dir, { recursive: true, force: true });
}, 120_000);

interface Answer {
  status: number;
  body: any;
}

/** One HTTP call to API process `i`, checked against the OpenAPI document that process serves. */
async function call(
  i: number,
  method: string,
  path: string,
  auth: object,
  options: { headers?: object; body?: unknown } = {},
): Promise<Answer> {
  const origin = summary.api[i % summary.api.length]!;
  const url = `${origin}${path}`;
  const response = await fetch(url, {
    method,
    headers: { ...auth, ...(options.body ? { 'content-type': 'application/json' } : {}), ...options.headers },
    ...(options.body ? { body: JSON.stringify(options.body) } : {}),
  });
  const text = await response.text();
  await servedContract(origin)({ method, url, status: response.status, headers: response.headers, text });
  return { status: response.status, body: text ? JSON.parse(text) : null };
}

async function aShopWithCarrierA() {
  // The key's writes and reads per second, and the store's per minute, raised as support would: the bursts below are
  // the point, not the limits (tested elsewhere).
  const shop = await aStoreWithKey(orm, {
    limits: {
      write_key_per_second: 1000,
      write_shop_per_minute: 10_000,
      read_key_per_second: 1000,
      read_key_per_minute: 10_000,
    },
  });
  const account = await aCarrierAAccount(orm, shop.storeId);
  await aRule(orm, shop.storeId, { priority: 1, carrierAccountId: account.id, serviceCode: 'a_home' });
  return { shop, account };
}

const createLabel = (i: number, shop: { auth: object }, key: string, orderId: string, wait = 30) =>
  call(i, 'POST', '/v1/labels', shop.auth, {
    headers: { 'Idempotency-Key': key, Prefer: `wait=${wait}` },
    body: { order_id: orderId },
  });

/** Sends the same request with the same key until it is answered with a creation (the spec's advice after a 5xx). */
async function createUntilAnswered(shop: { auth: object }, key: string, orderId: string): Promise<Answer> {
  for (let attempt = 0; attempt < 60; attempt += 1) {
    const answer = await createLabel(attempt, shop, key, orderId);
    if ([200, 201, 202].includes(answer.status)) return answer;
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  throw new Error(`no creation answered for ${key}`);
}

/** The creation once it left `processing`, waiting on the server (Prefer: wait) and asking both API processes. */
async function settled(shop: { auth: object }, id: string): Promise<any> {
  for (let attempt = 0; attempt < 20; attempt += 1) {
    const answer = await call(attempt, 'GET', `/v1/label-creations/${id}`, shop.auth, {
      headers: { Prefer: 'wait=30' },
    });
    if (answer.status === 200 && answer.body.status !== 'processing') return answer.body;
  }
  throw new Error(`creation ${id} is still processing`);
}

/** Shipments in the carrier's ledger by order name: the carrier is never asked twice for one order. */
async function shipmentsByOrder(accountId: string): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const shipment of await ledger(accountId))
    counts.set(shipment.order_name, (counts.get(shipment.order_name) ?? 0) + 1);
  return counts;
}

function processId(name: string): number {
  const pids = JSON.parse(readFileSync(join(dir, 'processes.json'), 'utf8')) as Record<string, number>;
  return pids[name]!;
}

/** Until the supervisor has started `name` again (a new PID) and it answers. */
async function restarted(name: string, before: number): Promise<void> {
  for (let attempt = 0; attempt < 120; attempt += 1) {
    if (processId(name) !== before && output.includes(`${name} is back`)) return;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(`${name} did not come back:\n${output}`);
}

describe('the production shape (npm run cluster): Temporal server on PostgreSQL, two workers, two API processes', () => {
  it('keeps client connections open longer than a load balancer does (decision 0030), in every API process', async () => {
    for (const origin of summary.api) {
      const response = await fetch(`${origin}/healthz`);
      await response.text();
      expect(response.headers.get('keep-alive')).toBe('timeout=65');
    }
  });

  it('serves each worker’s metrics on a port of its own, as its banner says', async () => {
    expect(summary.worker_metrics).toHaveLength(2);
    for (const url of summary.worker_metrics) {
      const res = await fetch(url);
      expect(res.status).toBe(200);
      expect(await res.text()).toMatch(/^shipping_label_worker_running(\{[^}]*\})? 1$/m);
    }
  });

  it('answers 20 concurrent identical requests per key, spread over both API processes, with one creation, one label and one shipment per key', async () => {
    const { shop, account } = await aShopWithCarrierA();
    const orders = await Promise.all([1, 2, 3].map(() => anOrderOnPlatform(shop.domain)));
    // The carrier takes a moment, so the burst meets the creation while it runs.
    await scriptFaults(
      account.id,
      orders.map(() => ({ type: 'slow', delay_ms: 800 })),
    );
    const answers = await Promise.all(
      orders.flatMap((order) =>
        Array.from({ length: 20 }, (_, i) => createLabel(i, shop, `burst-${order.orderId}`, order.orderId)),
      ),
    );
    // Any other answer is shown whole.
    expect(answers.filter((a) => a.status !== 201 && a.status !== 202).map((a) => a.body)).toEqual([]);
    for (const [n, order] of orders.entries()) {
      const forKey = answers.slice(n * 20, n * 20 + 20);
      expect(new Set(forKey.map((a) => a.body.id)).size).toBe(1);
      expect(await settled(shop, forKey[0]!.body.id)).toMatchObject({ status: 'succeeded' });
      const creations = await call(0, 'GET', `/v1/label-creations?idempotency_key=burst-${order.orderId}`, shop.auth);
      expect(creations.body.data).toHaveLength(1);
      const labels = await call(1, 'GET', `/v1/labels?order_id=${order.orderId}`, shop.auth);
      expect(labels.body.data).toHaveLength(1);
    }
    const shipments = await shipmentsByOrder(account.id);
    expect(orders.map((order) => shipments.get(order.name))).toEqual([1, 1, 1]);
  }, 300_000);

  it('loses no creation and duplicates no shipment when a worker is killed (SIGKILL) in the middle of creations', async () => {
    const { shop, account } = await aShopWithCarrierA();
    const orders = await Promise.all(Array.from({ length: 8 }, () => anOrderOnPlatform(shop.domain)));
    await scriptFaults(
      account.id,
      orders.map(() => ({ type: 'slow', delay_ms: 1500 })),
    );
    const started = await Promise.all(
      orders.map((order, i) => createLabel(i, shop, `kill-${order.orderId}`, order.orderId, 0)),
    );
    expect(started.map((a) => a.status)).toEqual(orders.map(() => 202));
    const worker = processId('worker-1');
    await new Promise((resolve) => setTimeout(resolve, 500));
    process.kill(worker, 'SIGKILL');

    const outcomes = await Promise.all(started.map((answer) => settled(shop, answer.body.id)));
    expect(
      outcomes.map((creation) => creation.status).filter((s) => s !== 'succeeded' && s !== 'needs_attention'),
    ).toEqual([]);
    // Every creation out of processing gave its place in the creation queue back (decision 0407), the lost ones too.
    const [held] = await orm.em
      .fork()
      .execute<Array<{ n: number }>>(
        `select count(*)::int as n from rate_limit_leases where kind = 'write_queue' and subject = ? and released_at is null`,
        [shop.storeId],
      );
    expect(held!.n).toBe(0);
    const shipments = await shipmentsByOrder(account.id);
    for (const [n, order] of orders.entries()) {
      expect({ order: order.name, shipments: shipments.get(order.name) ?? 0 }).toEqual({
        order: order.name,
        shipments: outcomes[n].status === 'succeeded' ? 1 : expect.any(Number),
      });
      expect(shipments.get(order.name) ?? 0).toBeLessThanOrEqual(1);
    }
    await restarted('worker-1', worker);
  }, 300_000);

  it('loses no creation and duplicates no shipment when the Temporal server restarts under load', async () => {
    const { shop, account } = await aShopWithCarrierA();
    const orders = await Promise.all(Array.from({ length: 8 }, () => anOrderOnPlatform(shop.domain)));
    await scriptFaults(
      account.id,
      orders.map(() => ({ type: 'slow', delay_ms: 500 })),
    );
    const server = processId('temporal-server');
    const first = Promise.all(
      orders.map((order, i) => createLabel(i, shop, `restart-${order.orderId}`, order.orderId, 5)),
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    process.kill(server, 'SIGKILL');
    // While it is gone, a creation is answered with the spec's error body or a creation, never anything else.
    for (const answer of await first)
      if (![200, 201, 202].includes(answer.status)) expect(answer.body.error.code).toEqual(expect.any(String));
    await restarted('temporal-server', server);

    const outcomes = await Promise.all(
      orders.map(async (order) =>
        settled(shop, (await createUntilAnswered(shop, `restart-${order.orderId}`, order.orderId)).body.id),
      ),
    );
    expect(
      outcomes.map((creation) => creation.status).filter((s) => s !== 'succeeded' && s !== 'needs_attention'),
    ).toEqual([]);
    const shipments = await shipmentsByOrder(account.id);
    for (const order of orders) expect(shipments.get(order.name) ?? 0).toBeLessThanOrEqual(1);
    for (const [n, order] of orders.entries())
      if (outcomes[n].status === 'succeeded') expect(shipments.get(order.name)).toBe(1);
  }, 300_000);

  it('answers reads with the spec error body while PostgreSQL is unreachable, and creations resume after', async () => {
    const { shop, account } = await aShopWithCarrierA();
    const orders = await Promise.all(Array.from({ length: 4 }, () => anOrderOnPlatform(shop.domain)));
    const cut = proxy.cut(4000);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const during = await Promise.all([
      ...Array.from({ length: 6 }, (_, i) => call(i, 'GET', '/v1/labels', shop.auth)),
      ...orders.map((order, i) => createLabel(i, shop, `outage-${order.orderId}`, order.orderId, 2)),
    ]);
    await cut;
    // Reads cannot authenticate without PostgreSQL: each answers the spec's 503 with its error body. Creations answer
    // a creation or a 503 of the spec's (nothing created); never another 5xx.
    const reads = during.slice(0, 6);
    expect(reads.map((answer) => [answer.status, answer.body?.error?.code])).toEqual(
      reads.map(() => [503, 'temporarily_unavailable']),
    );
    for (const answer of during.slice(6))
      if (answer.status >= 500)
        expect({ status: answer.status, code: answer.body?.error?.code }).toEqual({
          status: 503,
          code: expect.any(String),
        });

    const outcomes = await Promise.all(
      orders.map(async (order) =>
        settled(shop, (await createUntilAnswered(shop, `outage-${order.orderId}`, order.orderId)).body.id),
      ),
    );
    expect(outcomes.map((creation) => creation.status)).toEqual(orders.map(() => 'succeeded'));
    const shipments = await shipmentsByOrder(account.id);
    expect(orders.map((order) => shipments.get(order.name))).toEqual(orders.map(() => 1));
    expect((await call(0, 'GET', '/v1/labels', shop.auth)).status).toBe(200);
  }, 300_000);
});

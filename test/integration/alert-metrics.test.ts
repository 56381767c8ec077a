import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { randomToken } from '../../src/ids';
import { aCarrierAAccount, anOrderOnPlatform, aRule } from '../helpers/creation';
import { labelctlJson } from '../helpers/labelctl';
import { freePort, spawnTs, stop } from '../helpers/processes';
import { scrapeWorker } from '../helpers/prometheus';
import { control, eventually, scriptFaults } from '../helpers/sandbox';
import { aStoreWithKey } from '../helpers/stores';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { failNext, receiverUrl, untilReceived } from '../helpers/webhooks';

/**
 * Every metric the Grafana dashboard (docs/grafana-dashboard.json) and the alerting rules (docs/prometheus-rules.yml)
 * name exists on a running API or worker, once the events that make each appear have happened: requests, a refusal by
 * a rate limit, a label created, a webhook delivery failed once, a workflow task that fails, and a worker cut off from
 * Temporal. The rules are the runbook's table ("Metrics", docs/operators.md), expression for expression.
 */
const root = join(__dirname, '..', '..');
jest.setTimeout(180_000);

/** Made by Prometheus itself (`up`) or by the blackbox exporter probing /readyz (`probe_success`), not by the service. */
const NOT_THE_SERVICES = new Set(['up', 'probe_success']);
const PROMQL_WORDS = new Set([
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'bool',
  'offset',
  'and',
  'or',
  'unless',
]);

/** The metric names of a PromQL expression: its identifiers that are neither functions nor label names nor keywords. */
function metricNames(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, '')
    .replace(/\[[^\]]*\]/g, '')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, '');
  const names = new Set<string>();
  for (const match of bare.matchAll(/[a-zA-Z_:][a-zA-Z0-9_:]*/g)) {
    const following = bare.slice(match.index + match[0].length);
    if (/^\s*\(/.test(following) || PROMQL_WORDS.has(match[0])) continue;
    names.add(match[0]);
  }
  return [...names];
}

const dashboardExprs = (): string[] => {
  const found: string[] = [];
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(walk);
    else if (node && typeof node === 'object')
      for (const [key, value] of Object.entries(node)) {
        if (key === 'expr' && typeof value === 'string') found.push(value);
        else walk(value);
      }
  };
  walk(JSON.parse(readFileSync(join(root, 'docs', 'grafana-dashboard.json'), 'utf8')));
  return found;
};

interface Rule {
  alert: string;
  expr: string;
  annotations: { summary: string };
}
const rules = (): Rule[] =>
  (
    load(readFileSync(join(root, 'docs', 'prometheus-rules.yml'), 'utf8')) as { groups: Array<{ rules: Rule[] }> }
  ).groups.flatMap((group) => group.rules);

/** The runbook's table of alerts: name, then the first code span of the expression cell (a `|` escaped as `\|`). */
function runbookAlerts(): Array<{ name: string; expr: string }> {
  const text = readFileSync(join(root, 'docs', 'operators.md'), 'utf8');
  const table = text.slice(text.indexOf('| Alert | Expression (PromQL) | Why |'));
  const rows = table.split('\n').slice(2);
  const alerts: Array<{ name: string; expr: string }> = [];
  for (const row of rows) {
    if (!row.startsWith('|')) break;
    const cells = row.split(/(?<!\\)\|/).map((cell) => cell.trim());
    alerts.push({ name: cells[1]!, expr: /`([^`]+)`/.exec(cells[2]!)![1]!.replace(/\\\|/g, '|') });
  }
  return alerts;
}

it('has one rule per alert of the runbook, with its expression', () => {
  const table = runbookAlerts();
  expect(table.length).toBeGreaterThanOrEqual(20);
  const byName = new Map(rules().map((rule) => [rule.annotations.summary, rule]));
  // The runbook names a probe for "API not ready"; the rule says which metric the blackbox exporter gives it.
  const differing = table
    .filter((row) => row.name !== 'API not ready')
    .filter((row) => byName.get(row.name)?.expr !== row.expr)
    .map((row) => `${row.name}: table ${row.expr} / rules ${byName.get(row.name)?.expr ?? '(none)'}`);
  expect(differing).toEqual([]);
  expect([...byName.keys()].sort()).toEqual(table.map((row) => row.name).sort());
  expect(byName.get('API not ready')!.expr).toBe('probe_success{job="api-readyz"} == 0');
  expect(metricNames('sum by (le) (rate(x_bucket{a="b(c)"}[5m])) / on (job) group_left max(y) > 2')).toEqual([
    'x_bucket',
    'y',
  ]);
});

describe('the metrics the dashboard and the rules name', () => {
  let app: TestApp;
  let proxy: TcpProxy | undefined;
  let cutOff: ChildProcess | undefined;
  let onItsQueue: TestApp | undefined;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(async () => {
    await onItsQueue?.close();
    await stop(cutOff);
    await proxy?.close();
    await app.close();
  });

  it('exist on a running API or worker', async () => {
    // A label created, with a webhook delivery that fails once and is retried and a label PDF fetched again (the
    // worker's creation, carrier, platform, webhook and activity-failure metrics), after a store refused by a per-key
    // limit (the API's).
    const shop = await aStoreWithKey(app.orm, { limits: { read_key_per_second: 1 } });
    const account = await aCarrierAAccount(app.orm, shop.storeId);
    await aRule(app.orm, shop.storeId, { priority: 1, carrierAccountId: account.id, serviceCode: 'a_home' });
    app.clock.set(new Date());
    await app.request('GET', '/v1/shop', { headers: shop.auth });
    expect((await app.request('GET', '/v1/shop', { headers: shop.auth })).status).toBe(429);
    app.clock.reset();
    const receiver = `alerts-${randomToken(10)}`;
    await labelctlJson('webhooks', 'add', shop.storeId, receiverUrl(receiver));
    await failNext(receiver, { fail_next: 1, status: 503 });
    // The label's PDF fails twice at the carrier: once in the carrier call (logged), once in the activity that fetches
    // it again, which fails and is retried.
    await scriptFaults(account.id, [{ type: 'render_error', times: 2 }]);
    const order = await anOrderOnPlatform(shop.domain);
    const created = await app.request('POST', '/v1/labels', {
      headers: { ...shop.auth, 'Idempotency-Key': `alerts-${order.orderId}`, Prefer: 'wait=30' },
      body: { order_id: order.orderId },
    });
    expect(created.body.status).toBe('succeeded');
    await untilReceived(receiver, 2);

    // A workflow task that fails: a workflow type the worker does not have.
    const broken = await app.temporal.workflow.start('noSuchWorkflowType', {
      taskQueue: app.config.temporal.taskQueue,
      workflowId: `alert-metrics/${randomToken(12)}`,
      args: [],
    });
    const worker = await eventually(
      async () => {
        const text = await scrapeWorker();
        return /^temporal_workflow_task_execution_failed[{ ]/m.test(text) ? text : null;
      },
      100,
      100,
    );
    await broken.terminate('alert-metrics test: a workflow type no worker has');

    // A worker cut off from Temporal for a while, its polls failing, and the completion of an activity it runs then
    // (a carrier call the sandbox answers slowly): its calls fail too. An API of its own starts creations on its queue.
    const temporal = app.config.temporal.address.split(':');
    proxy = await startTcpProxy({ host: temporal[0]!, port: Number(temporal[1]) });
    const metricsPort = await freePort();
    const taskQueue = `alert-metrics-${randomToken(8)}`;
    cutOff = await spawnTs(
      join(root, 'src', 'worker.ts'),
      {
        ...process.env,
        TEMPORAL_ADDRESS: `127.0.0.1:${proxy.port}`,
        TEMPORAL_TASK_QUEUE: taskQueue,
        WORKER_MANAGES_SCHEDULES: 'false',
        WORKER_METRICS_PORT: String(metricsPort),
      },
      'cut-off worker',
    );
    onItsQueue = await startTestApp({ env: { TEMPORAL_TASK_QUEUE: taskQueue } });
    await scriptFaults(account.id, [{ type: 'slow', delay_ms: 5_000 }]);
    const slowOrder = await anOrderOnPlatform(shop.domain);
    const slow = await onItsQueue.request('POST', '/v1/labels', {
      headers: { ...shop.auth, 'Idempotency-Key': `alerts-slow-${slowOrder.orderId}`, Prefer: 'wait=0' },
      body: { order_id: slowOrder.orderId },
    });
    expect(slow.status).toBe(202);
    // The carrier call has started once it took the scripted fault (the sandbox holds its answer 5 s): cut Temporal
    // off until after it answers.
    await eventually(
      async () =>
        (await control('GET', `/_control/carrier-accounts/${account.id}/faults`)).body.faults.length === 0
          ? true
          : null,
      100,
      100,
    );
    await proxy.cut(7_000);
    const metricsOfCutOff = async () => (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    const cut = await eventually(
      async () => {
        const text = await metricsOfCutOff();
        return /^temporal_long_request_failure[{ ]/m.test(text) && /^temporal_request_failure[{ ]/m.test(text)
          ? text
          : null;
      },
      100,
      200,
    );
    // Back in touch, it finishes the creation.
    const finished = await onItsQueue.request('GET', `/v1/label-creations/${slow.body.id}`, {
      headers: { ...shop.auth, Prefer: 'wait=30' },
    });
    expect(finished.body.status).toBe('succeeded');

    const api = await (await fetch(`${app.baseUrl}/metrics`)).text();
    const exported = new Set(
      [api, worker, cut].flatMap((text) =>
        text
          .split('\n')
          .map((line) => /^(?:# TYPE )?([a-zA-Z_:][a-zA-Z0-9_:]*)[{ ]/.exec(line)?.[1])
          .filter((name): name is string => name !== undefined),
      ),
    );
    const named = new Set([...dashboardExprs(), ...rules().map((rule) => rule.expr)].flatMap(metricNames));
    expect(named.size).toBeGreaterThanOrEqual(30);
    const missing = [...named].filter((name) => !NOT_THE_SERVICES.has(name) && !exported.has(name)).sort();
    expect(missing).toEqual([]);
  });
});

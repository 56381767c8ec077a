import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { TypedSearchAttributes } from '@temporalio/common';
import { tsToMs } from '@temporalio/common/lib/time';
import { ensureNamespace, ensureSearchAttributes, projectSearchAttributes } from '../../src/temporal/namespace-setup';
import searchAttributes from '../../src/temporal/search-attributes.json';
import { LABEL_CREATION_ID, STORE_ID } from '../../workflows/search-attributes';

// The setup step (`npm run temporal:setup`, src/temporal/setup.ts) run as a process against the test run's Temporal
// server, on namespaces of this test's own, and the worker's refusal to start on a namespace without it.
const root = join(__dirname, '..', '..');
const names = Object.keys(searchAttributes);
const run = `${process.pid}-${Date.now()}`;

function runTs(entry: string, env: NodeJS.ProcessEnv): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(root, entry)], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (code) => resolve({ code: code ?? -1, stderr }));
  });
}

let connection: Connection;
beforeAll(async () => {
  connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! });
});
afterAll(async () => {
  await connection?.close();
});

describe('npm run temporal:setup', () => {
  it('creates the namespace with its retention and registers every search attribute, and changes nothing when run again', async () => {
    const namespace = `setup-${run}`;
    const env = { TEMPORAL_NAMESPACE: namespace, TEMPORAL_NAMESPACE_RETENTION: '3d' };

    const first = await runTs('src/temporal/setup.ts', env);
    expect(first).toMatchObject({ code: 0 });
    expect(first.stderr).toContain(`namespace ${namespace} created (retention 3d)`);
    expect(first.stderr).toContain(`registered search attributes ${names.join(', ')}`);

    const second = await runTs('src/temporal/setup.ts', env);
    expect(second).toMatchObject({ code: 0 });
    expect(second.stderr).toContain(`namespace ${namespace} exists`);
    expect(second.stderr).toContain('search attributes registered');
    expect(second.stderr).not.toContain('registered search attributes');

    const described = await connection.workflowService.describeNamespace({ namespace });
    expect(tsToMs(described.config!.workflowExecutionRetentionTtl)).toBe(3 * 86_400_000);
    const listed = await connection.operatorService.listSearchAttributes({ namespace });
    expect(Object.keys(listed.customAttributes ?? {}).sort()).toEqual(expect.arrayContaining([...names].sort()));

    // What the step is for: the server accepts a workflow started with the attributes, and filters on them.
    const client = new Client({ connection, namespace });
    const workflowId = `setup-probe-${run}`;
    const handle = await client.workflow.start('labelCreationWorkflow', {
      taskQueue: `no-worker-${run}`,
      workflowId,
      args: [],
      typedSearchAttributes: new TypedSearchAttributes([
        { key: STORE_ID, value: 'st_setup_probe' },
        { key: LABEL_CREATION_ID, value: `lcr_${run}` },
      ]),
    });
    const started = await handle.describe();
    expect(started.typedSearchAttributes.get(STORE_ID)).toBe('st_setup_probe');
    await handle.terminate('setup test probe');
  });

  it('reports a namespace whose retention differs from the configuration and leaves it as it is', async () => {
    const namespace = `setup-retention-${run}`;
    await ensureNamespace(connection, { namespace, retentionMs: 86_400_000 });
    const result = await runTs('src/temporal/setup.ts', {
      TEMPORAL_NAMESPACE: namespace,
      TEMPORAL_NAMESPACE_RETENTION: '7d',
    });
    expect(result).toMatchObject({ code: 0 });
    expect(result.stderr).toContain('the namespace keeps histories 1d, TEMPORAL_NAMESPACE_RETENTION says 7d');
    const described = await connection.workflowService.describeNamespace({ namespace });
    expect(tsToMs(described.config!.workflowExecutionRetentionTtl)).toBe(86_400_000);
  });

  it('refuses a search attribute registered with another type', async () => {
    const namespace = `setup-clash-${run}`;
    await ensureNamespace(connection, { namespace, retentionMs: 86_400_000 });
    await ensureSearchAttributes(connection, namespace, new Map([['OrderId', 'INT']]));
    const result = await runTs('src/temporal/setup.ts', { TEMPORAL_NAMESPACE: namespace });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('search attributes registered with another type: OrderId (wanted KEYWORD, is INT)');
  });
});

describe('the worker on a namespace the setup has not prepared', () => {
  it('stops at start, naming the missing search attributes and the command that registers them', async () => {
    const namespace = `setup-partial-${run}`;
    await ensureNamespace(connection, { namespace, retentionMs: 86_400_000 });
    const partial = new Map(
      [...projectSearchAttributes()].filter(([name]) => name === 'StoreId' || name === 'OrderId'),
    );
    await ensureSearchAttributes(connection, namespace, partial);

    const result = await runTs('src/worker.ts', {
      TEMPORAL_NAMESPACE: namespace,
      TEMPORAL_TASK_QUEUE: `refused-${run}`,
    });
    expect(result.code).toBe(1);
    const missing = names.filter((name) => !partial.has(name)).sort();
    expect(result.stderr).toContain(
      `Temporal namespace ${namespace} lacks the search attributes ${missing.join(', ')}: run npm run temporal:setup`,
    );
    expect(result.stderr).not.toMatch(/lacks the search attributes[^\n]*\b(StoreId|OrderId)\b/);
  });

  it('stops at start when the namespace does not exist', async () => {
    const namespace = `setup-missing-${run}`;
    const result = await runTs('src/worker.ts', {
      TEMPORAL_NAMESPACE: namespace,
      TEMPORAL_TASK_QUEUE: `refused-${run}`,
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`Temporal namespace ${namespace} does not exist: run npm run temporal:setup`);
  });
});

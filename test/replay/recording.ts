import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import type { WorkflowHandle } from '@temporalio/client';
import { anOrderOnPlatform } from '../helpers/creation';
import { scriptFaults } from '../helpers/sandbox';
import type { aStoreWithKey } from '../helpers/stores';
import globalSetup from '../helpers/global-setup';
import globalTeardown from '../helpers/global-teardown';
import { startTestApp, type TestApp } from '../helpers/test-app';

/**
 * Runs a recording script's body against what the integration tests start (a Temporal dev server, a fresh database,
 * the sandbox and a worker, then the app with `options`), ends all of it, and exits 1 with the stack when the body fails.
 */
type AppOptions = Parameters<typeof startTestApp>[0];

export function recordHistories(
  body: (app: TestApp) => Promise<void>,
  // A function when the options need what the setup started (the sandbox, for a Shopify app deployed on its fake).
  options: AppOptions | (() => Promise<AppOptions>) = {},
): void {
  const run = async () => {
    await globalSetup();
    const app = await startTestApp(typeof options === 'function' ? await options() : options);
    try {
      await body(app);
    } finally {
      await app.close();
      await globalTeardown();
    }
  };
  run().catch((error: unknown) => {
    process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  });
}

type History = Awaited<ReturnType<WorkflowHandle['fetchHistory']>>;

/** Waits for the run `workflowId` to close, writes its history as `histories/<name>.json` and returns it. */
export async function recordWorkflow(app: TestApp, name: string, workflowId: string): Promise<History> {
  const handle = app.temporal.workflow.getHandle(workflowId);
  await handle.result();
  const history = await handle.fetchHistory();
  writeFileSync(join(__dirname, 'histories', `${name}.json`), historyToJSON(history));
  process.stdout.write(`recorded ${name}\n`);
  return history;
}

/** The IDs of the patches a history's run took (its `core_patch` markers). */
export function patchesOf(history: History): string[] {
  return (history.events ?? []).flatMap((event) => {
    const marker = event.markerRecordedEventAttributes;
    const data = marker?.markerName === 'core_patch' ? marker.details?.['patch-data']?.payloads?.[0]?.data : undefined;
    return data ? [(JSON.parse(Buffer.from(data).toString('utf8')) as { id: string }).id] : [];
  });
}

/**
 * A creation at carrier A that times out without a shipment (`needs_attention`), resolved with `outcome` once allowed,
 * recorded as `label-creation-<name>`. Needs the short durations of the recorders' env (RESOLVE_ALLOWED_AFTER=1s).
 */
export async function recordResolvedCreation(
  app: TestApp,
  a: { shop: Awaited<ReturnType<typeof aStoreWithKey>>; account: { id: string } },
  name: string,
  outcome: 'not_created' | 'shipment_exists',
): Promise<History> {
  const order = await anOrderOnPlatform(a.shop.domain);
  await scriptFaults(a.account.id, [{ type: 'timeout_not_created', hold_ms: 5000 }]);
  const key = `record-${name}`;
  const res = await app.request('POST', '/v1/labels', {
    headers: { ...a.shop.auth, 'Idempotency-Key': key, Prefer: 'wait=30' },
    body: { order_id: order.orderId },
  });
  await new Promise((r) =>
    setTimeout(r, Math.max(0, Date.parse(res.body.attention.resolve_allowed_at) - Date.now()) + 100),
  );
  const answer = await app.request('POST', `/v1/label-creations/${res.body.id}/resolve`, {
    headers: a.shop.auth,
    body: { outcome },
  });
  if (answer.status !== 200) throw new Error(`resolve answered ${answer.status}: ${answer.text}`);
  return recordWorkflow(app, `label-creation-${name}`, `label-creation/${a.shop.storeId}/${key}`);
}

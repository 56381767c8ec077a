import { defaultPayloadConverter } from '@temporalio/common';
import { aCarrierAAccount, anOrderOnPlatform, aRule } from '../helpers/creation';
import { eventually, scriptFaults } from '../helpers/sandbox';
import { aStoreWithKey } from '../helpers/stores';
import { startTestApp, type TestApp } from '../helpers/test-app';

/**
 * End to end: a creation made over HTTP, run by the test run's worker, reads in the Temporal Web UI as what it is: the
 * static summary and details the API started it with, a summary on its carrier call, and current details that say how
 * it ended (docs/decisions/0901-web-ui-metadata.md). The phases in between: test/integration/label-creation-workflow.test.ts.
 */
/**
 * Whether every markdown list starts after a blank line: the Web UI's renderer runs a list into the paragraph above
 * it otherwise (docs/manual-checks.md).
 */
function listsAfterBlankLines(markdown: string): boolean {
  const lines = markdown.split('\n');
  return lines.every(
    (line, i) => !line.startsWith('- ') || i === 0 || lines[i - 1] === '' || lines[i - 1]!.startsWith('- '),
  );
}

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => app.close());

it('a creation shows its static summary and details, its activities’ summaries and its current details', async () => {
  const shop = await aStoreWithKey(app.orm);
  const account = await aCarrierAAccount(app.orm, shop.storeId);
  await aRule(app.orm, shop.storeId, { priority: 1, carrierAccountId: account.id, serviceCode: 'a_home' });
  const order = await anOrderOnPlatform(shop.domain);
  const key = `ui-${order.orderId}`;
  const res = await app.request('POST', '/v1/labels', {
    headers: { ...shop.auth, 'Idempotency-Key': key, Prefer: 'wait=30' },
    body: { order_id: order.orderId },
  });
  expect(res.body.status).toBe('succeeded');
  const [row] = await app.orm.em
    .fork()
    .execute<Array<{ workflow_id: string }>>('select workflow_id from label_creations where id = ?', [res.body.id]);
  const handle = app.temporal.workflow.getHandle(row!.workflow_id);
  await handle.result();

  const description = await handle.describe();
  expect(await description.staticSummary()).toBe(
    `Label for order ${order.orderId} of store ${shop.storeId} via the store's carrier rules`,
  );
  const details = await description.staticDetails();
  expect(details).toContain(`Creation \`${res.body.id}\``);
  expect(details).toContain(`Idempotency-Key \`${key}\``);

  const metadata = await handle.query<{ currentDetails?: string }>('__temporal_workflow_metadata');
  expect(metadata.currentDetails).toContain(`**Succeeded**: label(s) \`${res.body.labels[0].id}\``);
  expect(metadata.currentDetails).toContain(order.name);
  // The carrier and service the store's rules chose, named once decided and kept to the end, as a list item.
  expect(metadata.currentDetails).toContain(
    `\n\n- Carrier: Carrier A (\`${account.id}\`), service \`a_home\`, chosen by the store's rule of priority 1\n`,
  );
  for (const text of [details!, metadata.currentDetails!]) expect(listsAfterBlankLines(text)).toBe(true);

  const history = await handle.fetchHistory();
  const summaries = (history.events ?? []).flatMap((event) =>
    event.activityTaskScheduledEventAttributes && event.userMetadata?.summary
      ? [defaultPayloadConverter.fromPayload<string>(event.userMetadata.summary as never)]
      : [],
  );
  // The first activity prepares and calls the carrier (decision 1010): scheduled before the carrier is decided.
  expect(summaries).toContain(`read order ${order.orderId}, decide, lock, and create its shipment at the carrier`);
  // The timer of the request's `Prefer: wait` is named, not only numbered.
  const timers = (history.events ?? []).flatMap((event) =>
    event.timerStartedEventAttributes && event.userMetadata?.summary
      ? [defaultPayloadConverter.fromPayload<string>(event.userMetadata.summary as never)]
      : [],
  );
  expect(timers).toContain(
    "hold the request's answer until the creation leaves processing, 30 s at most (Prefer: wait)",
  );
});

it('a creation that needs attention names its next look at the carrier on the timer, in its lists', async () => {
  const shop = await aStoreWithKey(app.orm);
  const account = await aCarrierAAccount(app.orm, shop.storeId);
  await aRule(app.orm, shop.storeId, { priority: 1, carrierAccountId: account.id, serviceCode: 'a_home' });
  const order = await anOrderOnPlatform(shop.domain);
  await scriptFaults(account.id, [{ type: 'timeout_not_created', hold_ms: 5000 }]);
  const res = await app.request('POST', '/v1/labels', {
    headers: { ...shop.auth, 'Idempotency-Key': `ui-unclear-${order.orderId}`, Prefer: 'wait=30' },
    body: { order_id: order.orderId },
  });
  expect(res.body.status).toBe('needs_attention');
  const handle = app.temporal.workflow.getHandle(`label-creation/${shop.storeId}/ui-unclear-${order.orderId}`);
  const details = await eventually(
    async () => {
      const { currentDetails } = await handle.query<{ currentDetails?: string }>('__temporal_workflow_metadata');
      return currentDetails?.includes('Next automatic look') ? currentDetails : null;
    },
    100,
    100,
  );
  expect(details).toContain(
    '**Needs attention**: `carrier_timeout`; shipment_at_carrier `unknown`.\n\n- Carrier: Carrier A',
  );
  expect(details).toContain(`service \`a_home\``);
  expect(details).toContain('after checking the carrier portal:\n\n- no shipment there');
  expect(listsAfterBlankLines(details)).toBe(true);
  const history = await handle.fetchHistory();
  const timers = (history.events ?? []).flatMap((event) =>
    event.timerStartedEventAttributes && event.userMetadata?.summary
      ? [defaultPayloadConverter.fromPayload<string>(event.userMetadata.summary as never)]
      : [],
  );
  expect(timers).toContain(`next look at Carrier A for the shipment of ${order.name}, unless resolved first`);
});

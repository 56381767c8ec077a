import { Context } from '@temporalio/activity';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure, defaultPayloadConverter } from '@temporalio/common';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import type { Activities } from '../../activities';
import {
  endAtScheduleToClose,
  type PrepareAndSendInput,
  type PreparedAndLocked,
  type Recovered,
  type SendPlan,
  type SentToCarrier,
} from '../../activities/label-creation';
import { decideCreation, type CreationDecision } from '../../src/domain/creation-decision';
import type { CreationContext } from '../../src/domain/creation-context';
import type { AcquireResult } from '../../src/locks/fulfillment-order-locks';
import {
  awaitOutcomeUpdate,
  creationStateQuery,
  LABEL_CREATION_WORKFLOW,
  resolveUpdate,
  retentionWorkflowId,
  sendInputFor,
  type CreationDurations,
  type CreationSnapshot,
  type LabelCreationInput,
  type LabelCreationWorkflow,
} from '../../workflows/label-creation/contract';
import { aContext, aContextLabel, aRequest, foGid, NOW } from '../helpers/creation-context';

/**
 * The label-creation workflow alone (issue: fast workflow tests): its branches with mocked activities and durations of
 * milliseconds, on the test run's Temporal server, without HTTP, PostgreSQL or the sandbox. Each test scripts the
 * activities of its own creation (its ID is also its store's), and reads what the workflow asked of them.
 */
const queue = `creation-workflow-${process.pid}`;

const DURATIONS: CreationDurations = {
  notStartedMs: 3_000,
  lockRetryMs: 200,
  lockStaleMs: 1_000,
  adoptionPollMs: 100,
  carrierPendingMaxMs: 1_500,
  carrierPollMs: 100,
  resolveAllowedAfterMs: 0,
  carrierTimeoutMs: 1_000,
  attentionRetryInitialMs: 100,
  attentionRetryMaxMs: 300,
  abandonAfterMs: 30_000,
  abandonedDeleteAfterMs: 3_000,
};

type Call = { name: keyof Activities; input: Record<string, unknown> };
interface Script {
  /** What each prepare returns or throws, in turn; the last one repeats. */
  prepare: Array<PreparedAndLocked | Error>;
  /** The carrier call's answer; a list answers in turn (the last one repeats). */
  send?: SentToCarrier | Error | Array<SentToCarrier | Error>;
  /** When the record says the call was marked sent (`creationSentAt`); null: never. */
  sentAt?: string | null;
  batch?: Array<Awaited<ReturnType<Activities['checkShipment']>>>;
  fetchDocument?: Error;
  recover?: Recovered[];
  labelState?: Array<{ status: string } | null>;
  /** The plan the first step marked the creation sent with (what `send_plan` keeps). */
  plan?: SendPlan;
  /** The first step fails before anything was marked sent (its worker lost through every retry). */
  firstStep?: Error;
  calls: Call[];
}
const scripts = new Map<string, Script>();

const scriptOf = (input: Record<string, unknown>): Script => {
  const id = (input.creationId ?? input.storeId) as string;
  const script = scripts.get(id);
  if (!script) throw new Error(`no script for ${id}`);
  return script;
};
const next = <T>(list: T[]): T => (list.length > 1 ? list.shift()! : list[0]!);
const sendAnswer = (s: Script): SentToCarrier | Error | undefined => (Array.isArray(s.send) ? next(s.send) : s.send);

/** Every activity the workflow calls, recording its input and answering from the creation's script. */
function mockActivities(): Partial<Record<keyof Activities, (input: Record<string, unknown>) => Promise<unknown>>> {
  const record =
    <T>(
      name: keyof Activities,
      answer: (s: Script, input: Record<string, unknown>) => T | Error = () => undefined as T,
    ) =>
    async (input: Record<string, unknown>): Promise<T> => {
      const script = scriptOf(input);
      script.calls.push({ name, input });
      const result = answer(script, input);
      if (result instanceof Error) throw result;
      return result;
    };
  return {
    setCreationPhase: record('setCreationPhase'),
    // The real step's guard: an attempt past the deadline ends the creation (Temporal would retry on).
    prepareAndLockCreation: record('prepareAndLockCreation', (s) => {
      endAtScheduleToClose(Context.current().info, Date.now());
      return next(s.prepare);
    }),
    // The first step as the real one composes it: the script's next prepare answer, and on a decision to create with
    // every lock taken, the creation marked sent with its plan and the script's carrier answer.
    prepareAndSendToCarrier: record('prepareAndSendToCarrier', (s, input) => {
      if (s.firstStep) return s.firstStep;
      if (s.plan) {
        const answer = sendAnswer(s);
        return answer instanceof Error ? answer : { kind: 'sent', ...s.plan, sent: answer };
      }
      const outcome = next(s.prepare);
      if (outcome instanceof Error) return { kind: 'not_prepared', platformReadFailed: false };
      if (outcome.kind !== 'prepared' || outcome.decision.kind !== 'create' || !outcome.locked?.acquired) {
        return { kind: 'prepared', outcome };
      }
      const ids = input as unknown as PrepareAndSendInput;
      s.plan = {
        decision: outcome.decision,
        sendInput: sendInputFor(ids, outcome.decision, outcome.context.carrierAccounts),
      };
      const sent = sendAnswer(s) ?? new Error('no carrier answer scripted');
      return sent instanceof Error ? sent : { kind: 'sent', ...s.plan, sent };
    }),
    sentCreationPlan: record('sentCreationPlan', (s) => s.plan ?? null),
    recordCreationDecision: record('recordCreationDecision'),
    succeedCreation: record('succeedCreation'),
    failCreation: record('failCreation'),
    labelState: record('labelState', (s) => next(s.labelState ?? [null])),
    sendToCarrier: record('sendToCarrier', (s) => sendAnswer(s) ?? new Error('no carrier answer scripted')),
    creationSentAt: record('creationSentAt', (s) => s.sentAt ?? null),
    finalizeCreationLabel: record('finalizeCreationLabel'),
    fulfillOrder: record('fulfillOrder', () => 'succeeded'),
    tagOrder: record('tagOrder', () => 'succeeded'),
    checkShipment: record('checkShipment', (s) => next(s.batch ?? [{ status: 'pending' }])),
    fetchLabelDocument: record('fetchLabelDocument', (s) => s.fetchDocument),
    creationNeedsAttention: record('creationNeedsAttention'),
    holdUnresolvedFulfillmentOrders: record('holdUnresolvedFulfillmentOrders'),
    releaseUnresolvedFulfillmentOrders: record('releaseUnresolvedFulfillmentOrders'),
    recoverShipment: record('recoverShipment', (s) => next(s.recover ?? [{ kind: 'not_found' }])),
    updateCreationAttention: record('updateCreationAttention'),
    failCreationLabel: record('failCreationLabel'),
    resolveCreationNotCreated: record('resolveCreationNotCreated'),
    abandonUnresolvedCreation: record('abandonUnresolvedCreation'),
    deleteAbandonedCreation: record('deleteAbandonedCreation'),
  };
}

let env: TestWorkflowEnvironment;
let worker: Worker;
let running: Promise<void>;
beforeAll(async () => {
  env = await TestWorkflowEnvironment.createFromExistingServer({ address: process.env.TEMPORAL_ADDRESS });
  worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue: queue,
    workflowsPath: require.resolve('../../workflows'),
    activities: mockActivities(),
  });
  running = worker.run();
}, 120_000);
afterAll(async () => {
  worker?.shutdown();
  await running;
  await env?.teardown();
});

let counter = 0;
/** Decides over a context with the pure function the activity uses; the decision the workflow acts on. */
const decide = (context: CreationContext, body: Parameters<typeof aRequest>[0] = {}): CreationDecision =>
  decideCreation(context, aRequest(body), NOW);

/** The prepare step's answer for a decision; a decision to create comes with its attempt at the locks. */
function prepared(decision: CreationDecision, locked: AcquireResult = { acquired: true }): PreparedAndLocked {
  const base = { kind: 'prepared' as const, context: aContext(), orderState: '' };
  return decision.kind === 'create' ? { ...base, decision, locked } : { ...base, decision, locked: null };
}

const accepted = (overrides: Partial<Extract<SentToCarrier, { kind: 'accepted' }>> = {}): SentToCarrier => ({
  kind: 'accepted',
  labelId: 'lbl_1',
  shipmentId: 'shp_1',
  shipmentStatus: 'ready',
  trackingNumber: 'Z123',
  trackingUrl: 'https://track.example/Z123',
  carrierReference: 'Z123',
  hasDocument: true,
  finalized: false,
  labelTag: null,
  sentAt: new Date().toISOString(),
  ...overrides,
});

const unclearAnswer = (minutesAgo = 20): SentToCarrier => ({
  kind: 'unclear',
  reason: 'carrier_timeout',
  draftReference: null,
  sentAt: new Date(Date.now() - minutesAgo * 60_000).toISOString(),
});

/** Starts a creation with its script; the creation's ID is also its store's (activities find the script by either). */
async function start(
  script: Omit<Script, 'calls'>,
  request: Parameters<typeof aRequest>[0] = {},
  durations: Partial<CreationDurations> = {},
) {
  counter += 1;
  const creationId = `lcr_wf_${process.pid}_${counter}`;
  const full: Script = { ...script, calls: [] };
  scripts.set(creationId, full);
  const input: LabelCreationInput = {
    creationId,
    storeId: creationId,
    idempotencyKey: `key-${counter}`,
    request: aRequest(request),
    createdAtMs: Date.now(),
    queueTicketId: 'wq_1',
    durations: { ...DURATIONS, ...durations },
  };
  const handle = await env.client.workflow.start<LabelCreationWorkflow>(LABEL_CREATION_WORKFLOW, {
    workflowId: `label-creation/${creationId}/key`,
    taskQueue: queue,
    args: [input],
  });
  const names = () => full.calls.map((c) => c.name);
  const callsOf = (name: keyof Activities) => full.calls.filter((c) => c.name === name).map((c) => c.input);
  return { handle, creationId, script: full, names, callsOf };
}

const result = (h: { result(): Promise<CreationSnapshot> }) => h.result();

describe('the label-creation workflow, its branches with mocked activities', () => {
  it('succeeds: prepared and locked, sent, finalized, side effects, succeeded', async () => {
    const decision = decide(aContext(), { fulfillment: 'fulfill' });
    expect(decision.kind).toBe('create');
    const c = await start(
      { prepare: [prepared(decision)], send: accepted({ labelTag: 'shipped' }) },
      { fulfillment: 'fulfill' },
    );
    expect(await result(c.handle)).toEqual({ creationId: c.creationId, status: 'succeeded', phase: null });
    // Fulfilment and the tag run side by side, in either order.
    const names = c.names();
    expect([...names.slice(0, 2), ...names.slice(2, 4).sort(), names[4]]).toEqual([
      'prepareAndSendToCarrier',
      'finalizeCreationLabel',
      'fulfillOrder',
      'tagOrder',
      'succeedCreation',
    ]);
    expect(c.callsOf('succeedCreation')[0]).toMatchObject({
      labelIds: ['lbl_1'],
      created: true,
      queueTicketId: 'wq_1',
      sideEffects: { fulfillment: { mode: 'fulfill', status: 'succeeded' }, orderTags: { status: 'succeeded' } },
    });
    expect(await c.handle.query(creationStateQuery)).toMatchObject({ status: 'succeeded', labelIds: ['lbl_1'] });
  });

  it('succeeds in the carrier call when nothing follows (decision 0024): no step after it', async () => {
    const c = await start({ prepare: [prepared(decide(aContext()))], send: { kind: 'succeeded', labelId: 'lbl_9' } });
    expect((await result(c.handle)).status).toBe('succeeded');
    // One activity in all: prepared, sent and finished in it, as a workflow with nothing but the carrier call.
    expect(c.names()).toEqual(['prepareAndSendToCarrier']);
    expect(c.callsOf('prepareAndSendToCarrier')[0]).toMatchObject({ creationId: c.creationId, queueTicketId: 'wq_1' });
    expect(c.script.plan?.sendInput).toMatchObject({ finishIfNothingFollows: { queueTicketId: 'wq_1' } });
  });

  it('fails with the decision’s refusal (nothing sent)', async () => {
    const decision = decide(aContext({ orderLookup: { kind: 'not_found', by: 'id', value: '1001' } }));
    expect(decision.kind).toBe('refuse');
    const c = await start({ prepare: [prepared(decision)] });
    expect((await result(c.handle)).status).toBe('failed');
    expect(c.names()).toEqual(['prepareAndSendToCarrier', 'recordCreationDecision', 'failCreation']);
    expect(c.callsOf('failCreation')[0]).toMatchObject({
      error: { code: 'order_not_eligible', details: { reason: 'order_not_found', label_creation_id: c.creationId } },
    });
  });

  it('fails with a refusal the prepare step throws (shopify_unavailable, decision 0027), as a local activity does', async () => {
    const refusal = {
      code: 'shopify_unavailable',
      message: 'platform down',
      details: { what: 'order', throttled: true },
      retryAfterSeconds: 5,
    };
    const c = await start({
      prepare: [ApplicationFailure.nonRetryable('platform down', 'shopify_unavailable', refusal)],
    });
    expect((await result(c.handle)).status).toBe('failed');
    expect(c.callsOf('failCreation')[0]).toMatchObject({
      error: { code: 'shopify_unavailable', details: { what: 'order', throttled: true }, retryAfterSeconds: 5 },
    });
  });

  it('fails not_started when the prepare step keeps failing until the 5-minute deadline', async () => {
    const c = await start({ prepare: [new Error('database unavailable')] });
    expect((await result(c.handle)).status).toBe('failed');
    expect(c.callsOf('failCreation')[0]).toMatchObject({ error: { code: 'not_started' } });
    expect(c.callsOf('sendToCarrier')).toHaveLength(0);
  });

  it('waits while an export holds its fulfillment orders (polled), and fails not_started at the deadline', async () => {
    const context = aContext({
      holders: [{ fulfillmentOrderGid: foGid(1), heldBy: 'export', labelCreationId: null, workflowId: null }],
    });
    const wait = decide(context, { on_existing: 'return' });
    expect(wait).toMatchObject({ kind: 'wait_for_existing', waitFor: { heldBy: 'export' } });
    const c = await start({ prepare: [prepared(wait)] }, { on_existing: 'return' });
    expect((await result(c.handle)).status).toBe('failed');
    expect(c.callsOf('setCreationPhase')[0]).toMatchObject({ phase: 'waiting_for_lock' });
    // Decided again after each poll (lockRetryMs) until the 3-second deadline.
    expect(c.callsOf('prepareAndLockCreation').length).toBeGreaterThan(1);
    expect(c.callsOf('failCreation')[0]).toMatchObject({ error: { code: 'not_started' } });
    expect(c.callsOf('sendToCarrier')).toHaveLength(0);
  });

  it('returns existing labels: succeeded without a carrier call, created false', async () => {
    const context = aContext({ labels: [aContextLabel('lbl_old')] });
    const decision = decide(context, { on_existing: 'return' });
    expect(decision.kind).toBe('return_existing');
    const c = await start({ prepare: [prepared(decision)] }, { on_existing: 'return' });
    expect((await result(c.handle)).status).toBe('succeeded');
    expect(c.names()).toEqual(['prepareAndSendToCarrier', 'recordCreationDecision', 'succeedCreation']);
    expect(c.callsOf('succeedCreation')[0]).toMatchObject({ labelIds: ['lbl_old'], created: false });
  });

  it('waits for a held lock (waiting_for_lock), then creates once the holder is gone', async () => {
    const create = decide(aContext());
    const held = prepared(create, {
      acquired: false,
      holders: [{ fulfillmentOrderGid: foGid(1), labelCreationId: 'lcr_other', workflowId: 'label-creation/gone/key' }],
    });
    const c = await start(
      { prepare: [held, prepared(create)], send: { kind: 'succeeded', labelId: 'lbl_2' } },
      { on_existing: 'return' },
    );
    expect((await result(c.handle)).status).toBe('succeeded');
    // The first step found the lock held; once woken, the workflow's own prepare step, then the carrier call.
    expect(c.names()).toEqual([
      'prepareAndSendToCarrier',
      'setCreationPhase',
      'prepareAndLockCreation',
      'sendToCarrier',
    ]);
    expect(c.callsOf('setCreationPhase')[0]).toMatchObject({
      phase: 'waiting_for_lock',
      waitingFor: { reason: 'fulfillment_order_held', labelCreationId: 'lcr_other', fulfillmentOrderIds: [foGid(1)] },
    });
  });

  it('waits for a pending label to adopt it, polling its state', async () => {
    const context = aContext({
      labels: [aContextLabel('lbl_pending', { status: 'pending', createdAtMs: NOW - 60_000 })],
    });
    const wait = decide(context, { on_existing: 'return' });
    expect(wait.kind).toBe('wait_for_existing');
    const done = decide(aContext({ labels: [aContextLabel('lbl_pending')] }), { on_existing: 'return' });
    const c = await start(
      { prepare: [prepared(wait), prepared(done)], labelState: [{ status: 'pending' }, { status: 'ready' }] },
      { on_existing: 'return' },
    );
    expect((await result(c.handle)).status).toBe('succeeded');
    expect(c.callsOf('labelState')).toHaveLength(2);
    expect(c.callsOf('succeedCreation')[0]).toMatchObject({ labelIds: ['lbl_pending'], created: false });
  });

  it('fails carrier_rejected when the carrier refuses; blocked by carrier protection fails with its error', async () => {
    const rejected = await start({
      prepare: [prepared(decide(aContext()))],
      send: { kind: 'rejected', reason: 'postcode_invalid', sentAt: new Date().toISOString() },
    });
    expect((await result(rejected.handle)).status).toBe('failed');
    expect(rejected.callsOf('failCreation')[0]).toMatchObject({
      error: { code: 'carrier_rejected', details: { reason: 'postcode_invalid' } },
    });
    const blocked = await start({
      prepare: [prepared(decide(aContext()))],
      send: {
        kind: 'blocked',
        error: { code: 'carrier_unavailable', message: 'circuit open', details: { reason: 'circuit_open' } },
      },
    });
    expect((await result(blocked.handle)).status).toBe('failed');
    expect(blocked.callsOf('failCreation')[0]).toMatchObject({
      error: { code: 'carrier_unavailable', details: { reason: 'circuit_open' } },
    });
  });

  it('imports a batch: waits for the carrier, then finalizes with the batch’s tracking number', async () => {
    const c = await start({
      prepare: [prepared(decide(aContext()))],
      send: accepted({ shipmentStatus: 'pending', trackingNumber: null, trackingUrl: null }),
      batch: [{ status: 'pending' }, { status: 'ready', trackingNumber: 'B42', trackingUrl: null }],
    });
    expect((await result(c.handle)).status).toBe('succeeded');
    expect(c.callsOf('setCreationPhase')[0]).toMatchObject({ phase: 'waiting_for_carrier' });
    expect(c.callsOf('checkShipment')).toHaveLength(2);
    expect(c.callsOf('finalizeCreationLabel')[0]).toMatchObject({ trackingNumber: 'B42' });
  });

  it('a batch refused at import fails the label and the creation', async () => {
    const c = await start({
      prepare: [prepared(decide(aContext()))],
      send: accepted({ shipmentStatus: 'pending' }),
      batch: [{ status: 'import_rejected' } as never],
    });
    expect((await result(c.handle)).status).toBe('failed');
    expect(c.callsOf('failCreationLabel')[0]).toMatchObject({ labelId: 'lbl_1', reason: 'carrier_import_rejected' });
    expect(c.callsOf('failCreation')[0]).toMatchObject({
      error: { code: 'carrier_rejected', details: { reason: 'other' } },
    });
  });

  it('an unclear answer needs attention, and a later look obtains the label: succeeded', async () => {
    const c = await start({
      prepare: [prepared(decide(aContext()))],
      send: unclearAnswer(),
      recover: [
        { kind: 'not_found' },
        {
          kind: 'obtained',
          labelId: 'lbl_7',
          shipmentId: 's7',
          carrierReference: 'Z7',
          trackingNumber: 'Z7',
          trackingUrl: null,
        },
      ],
    });
    expect((await result(c.handle)).status).toBe('succeeded');
    const names = c.names();
    expect(names.slice(0, 3)).toEqual([
      'prepareAndSendToCarrier',
      'creationNeedsAttention',
      'holdUnresolvedFulfillmentOrders',
    ]);
    expect(c.callsOf('creationNeedsAttention')[0]).toMatchObject({
      attention: { reason: 'carrier_timeout', shipmentAtCarrier: 'unknown' },
    });
    expect(c.callsOf('recoverShipment')).toHaveLength(2);
    // The hold goes first (the platform refuses to fulfil a held order); the tag activity looks the tag up itself.
    expect(names.slice(-4)).toEqual([
      'releaseUnresolvedFulfillmentOrders',
      'finalizeCreationLabel',
      'tagOrder',
      'succeedCreation',
    ]);
  });

  it('a worker lost through every retry of the carrier call needs attention (worker_lost) from the recorded sent_at', async () => {
    const sentAt = new Date(Date.now() - 90_000).toISOString();
    // Resolvable from the whole second of sent_at on (the durations here allow it at once).
    const resolveAllowedAt = new Date(Math.floor(Date.parse(sentAt) / 1000) * 1000).toISOString();
    const c = await start({
      prepare: [prepared(decide(aContext()))],
      send: ApplicationFailure.nonRetryable('lost', 'WorkerLost'),
      sentAt,
      recover: [
        {
          kind: 'obtained',
          labelId: 'l',
          shipmentId: 's',
          carrierReference: 'r',
          trackingNumber: 't',
          trackingUrl: null,
        },
      ],
    });
    expect((await result(c.handle)).status).toBe('succeeded');
    // The record says the call was marked sent: on its plan, the creation needs attention since then.
    expect(c.names().slice(0, 4)).toEqual([
      'prepareAndSendToCarrier',
      'sentCreationPlan',
      'creationSentAt',
      'creationNeedsAttention',
    ]);
    expect(c.callsOf('creationNeedsAttention')[0]).toMatchObject({
      attention: { reason: 'worker_lost', sentAt, resolveAllowedAt },
    });
  });

  it('a carrier call after the workflow’s own prepare step, lost through every retry: attention from its sent_at', async () => {
    const sentAt = new Date(Date.now() - 30_000).toISOString();
    const c = await start({
      firstStep: ApplicationFailure.nonRetryable('lost', 'WorkerLost'),
      prepare: [prepared(decide(aContext()))],
      send: ApplicationFailure.nonRetryable('lost', 'WorkerLost'),
      sentAt,
    });
    await eventually(async () => (await c.handle.query(creationStateQuery)).status === 'needs_attention');
    expect(c.names()).toEqual([
      'prepareAndSendToCarrier',
      'sentCreationPlan',
      'prepareAndLockCreation',
      'sendToCarrier',
      'creationSentAt',
      'creationNeedsAttention',
      'holdUnresolvedFulfillmentOrders',
      ...c.names().slice(7),
    ]);
    expect(c.callsOf('creationNeedsAttention')[0]).toMatchObject({ attention: { reason: 'worker_lost', sentAt } });
    await c.handle.terminate();
  });

  it('a carrier call never marked sent (retries ran out before it) decides again, until its deadline: not_started', async () => {
    const c = await start({
      firstStep: ApplicationFailure.nonRetryable('lost', 'WorkerLost'),
      prepare: [prepared(decide(aContext()))],
      send: ApplicationFailure.nonRetryable('lost', 'WorkerLost'),
      sentAt: null,
    });
    const snapshot = await result(c.handle);
    expect(snapshot.status).toBe('failed');
    expect(c.callsOf('failCreation')[0]).toMatchObject({ error: { code: 'not_started' } });
    expect(c.callsOf('sendToCarrier').length).toBeGreaterThan(1);
    expect(c.callsOf('prepareAndLockCreation').length).toBeGreaterThanOrEqual(c.callsOf('sendToCarrier').length);
    expect(c.names()).not.toContain('creationNeedsAttention');
  });

  it('a creation that lost its locks before the carrier call decides again and sends on the locks it takes then', async () => {
    const c = await start({
      prepare: [prepared(decide(aContext()))],
      send: [{ kind: 'lost_locks' }, { kind: 'succeeded', labelId: 'lbl_relocked' }],
    });
    expect((await result(c.handle)).status).toBe('succeeded');
    expect(c.names()).toEqual(['prepareAndSendToCarrier', 'prepareAndLockCreation', 'sendToCarrier']);
    expect(c.names()).not.toContain('failCreation');
  });

  it('a creation that lost its locks to another creation decides again: reject answers creation_in_progress', async () => {
    const holder = {
      fulfillmentOrderGid: foGid(1),
      heldBy: 'creation' as const,
      labelCreationId: 'lcr_other',
      workflowId: 'label-creation/x/y',
    };
    const c = await start(
      {
        prepare: [
          prepared(decide(aContext(), { on_existing: 'reject' })),
          prepared(decide(aContext({ holders: [holder] }), { on_existing: 'reject' })),
        ],
        send: { kind: 'lost_locks' },
      },
      { on_existing: 'reject' },
    );
    expect((await result(c.handle)).status).toBe('failed');
    expect(c.callsOf('failCreation')[0]).toMatchObject({
      error: { code: 'creation_in_progress', details: { held_by: 'creation', label_creation_id: 'lcr_other' } },
    });
  });

  it('a first step lost through every retry before anything was sent: the workflow prepares and sends on its own', async () => {
    const c = await start({
      firstStep: ApplicationFailure.nonRetryable('lost', 'WorkerLost'),
      prepare: [prepared(decide(aContext()))],
      send: { kind: 'succeeded', labelId: 'lbl_3' },
    });
    expect((await result(c.handle)).status).toBe('succeeded');
    expect(c.names()).toEqual([
      'prepareAndSendToCarrier',
      'sentCreationPlan',
      'prepareAndLockCreation',
      'sendToCarrier',
    ]);
    expect(c.callsOf('sendToCarrier')[0]).toMatchObject({ creationId: c.creationId, storeId: c.creationId });
  });

  it('a late acceptance updates attention (shipment exists); not_created is then refused', async () => {
    const c = await start({
      prepare: [prepared(decide(aContext()))],
      send: unclearAnswer(),
      recover: [{ kind: 'exists', labelId: 'lbl_late', shipmentId: 's', carrierReference: 'Z9' }],
    });
    await eventually(async () => (await c.handle.query(creationStateQuery)).attention?.shipmentAtCarrier === 'exists');
    expect(c.callsOf('updateCreationAttention')[0]).toMatchObject({
      attention: { shipmentAtCarrier: 'exists', carrierReference: 'Z9' },
    });
    const refused = await c.handle
      .executeUpdate(resolveUpdate, {
        args: [{ outcome: 'not_created', trackingNumber: null, note: null, resolvedBy: 'ak_1' }],
      })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(WorkflowUpdateFailedError);
    expect((refused as WorkflowUpdateFailedError).cause).toMatchObject({ type: 'not_resolvable' });
    // shipment_exists abandons it: the pending label fails not_finalized.
    const answer = await c.handle.executeUpdate(resolveUpdate, {
      args: [{ outcome: 'shipment_exists', trackingNumber: null, note: null, resolvedBy: 'ak_1' }],
    });
    expect(answer.status).toBe('abandoned');
    expect(c.callsOf('failCreationLabel')[0]).toMatchObject({ labelId: 'lbl_late', reason: 'not_finalized' });
    expect(c.callsOf('abandonUnresolvedCreation')[0]).toMatchObject({ resolution: { outcome: 'shipment_exists' } });
  });

  it('resolve not_created fails it resolved_not_created and releases the hold', async () => {
    const c = await start({ prepare: [prepared(decide(aContext()))], send: unclearAnswer() });
    await eventually(async () => (await c.handle.query(creationStateQuery)).status === 'needs_attention');
    const answer = await c.handle.executeUpdate(resolveUpdate, {
      args: [{ outcome: 'not_created', trackingNumber: null, note: 'not in the portal', resolvedBy: 'ak_1' }],
    });
    expect(answer.status).toBe('failed');
    expect((await result(c.handle)).status).toBe('failed');
    expect(c.callsOf('resolveCreationNotCreated')[0]).toMatchObject({
      error: { code: 'resolved_not_created' },
      resolution: { outcome: 'not_created', note: 'not in the portal', resolvedBy: 'ak_1' },
    });
    expect(c.names()).toContain('releaseUnresolvedFulfillmentOrders');
  });

  it('resolve not_created before resolve_allowed_at is refused by the validator (resolve_too_early)', async () => {
    const c = await start({ prepare: [prepared(decide(aContext()))], send: unclearAnswer(-60) });
    await eventually(async () => (await c.handle.query(creationStateQuery)).status === 'needs_attention');
    const refused = await c.handle
      .executeUpdate(resolveUpdate, {
        args: [{ outcome: 'not_created', trackingNumber: null, note: null, resolvedBy: 'ak_1' }],
      })
      .catch((e: unknown) => e);
    expect((refused as WorkflowUpdateFailedError).cause).toMatchObject({ type: 'resolve_too_early' });
    await c.handle.terminate('test over');
  });

  it('abandons after abandonAfterMs without a resolve, and its retention workflow deletes the record', async () => {
    const c = await start(
      { prepare: [prepared(decide(aContext()))], send: unclearAnswer() },
      {},
      { abandonAfterMs: 2_000 },
    );
    expect((await result(c.handle)).status).toBe('abandoned');
    expect(c.callsOf('abandonUnresolvedCreation')[0]).toMatchObject({ resolution: null });
    await env.client.workflow.getHandle(retentionWorkflowId(c.creationId)).result();
    expect(c.callsOf('deleteAbandonedCreation')).toEqual([{ creationId: c.creationId }]);
  });

  it('awaitOutcome answers at its wait while processing, and once the creation leaves it; another attempt is refused', async () => {
    const c = await start({ prepare: [prepared(decide(aContext()))], send: unclearAnswer() });
    const answer = await c.handle.executeUpdate(awaitOutcomeUpdate, {
      args: [{ creationId: c.creationId, waitMs: 5_000 }],
    });
    expect(answer).toEqual({ creationId: c.creationId, status: 'needs_attention', phase: null });
    const other = await c.handle
      .executeUpdate(awaitOutcomeUpdate, { args: [{ creationId: 'lcr_other', waitMs: 0 }] })
      .catch((e: unknown) => e);
    expect(other).toBeInstanceOf(WorkflowUpdateFailedError);
    await c.handle.terminate('test over');
  });
});

/** The current details the Web UI shows (the SDK's built-in metadata query). */
async function detailsOf(handle: { query: (name: string) => Promise<unknown> }): Promise<string> {
  return ((await handle.query('__temporal_workflow_metadata')) as { currentDetails?: string }).currentDetails ?? '';
}

/** The summary the Web UI shows on each scheduled activity of the run, by activity type. */
async function activitySummaries(handle: { fetchHistory: () => Promise<any> }): Promise<Record<string, string[]>> {
  const history = await handle.fetchHistory();
  const out: Record<string, string[]> = {};
  for (const event of history.events ?? []) {
    const scheduled = event.activityTaskScheduledEventAttributes;
    const summary = event.userMetadata?.summary;
    if (!scheduled || !summary) continue;
    (out[scheduled.activityType.name as string] ??= []).push(defaultPayloadConverter.fromPayload(summary));
  }
  return out;
}

describe('the creation explains itself in the Temporal Web UI (user metadata)', () => {
  it('keeps current details true while it waits for a lock, and once it failed', async () => {
    const context = aContext({
      holders: [{ fulfillmentOrderGid: foGid(1), heldBy: 'export', labelCreationId: null, workflowId: null }],
    });
    const c = await start(
      { prepare: [prepared(decide(context, { on_existing: 'return' }))] },
      { on_existing: 'return' },
    );
    let waiting = '';
    await eventually(async () => (waiting = await detailsOf(c.handle)).includes('Waiting for the lock'));
    expect(waiting).toContain(`Creation \`${c.creationId}\``);
    expect(waiting).toContain('#1001');
    expect(waiting).toContain(`fulfillment order(s) \`${foGid(1)}\`, held by the platform (export)`);
    expect(waiting).toMatch(/at the latest \(then `not_started`\)/);
    expect((await result(c.handle)).status).toBe('failed');
    expect(await detailsOf(c.handle)).toContain('**Failed**: `not_started`');
  });

  it('in needs_attention: reason, shipment_at_carrier, sent at, resolve_allowed_at, next look, the resolve calls', async () => {
    const sent = unclearAnswer();
    const c = await start(
      { prepare: [prepared(decide(aContext()))], send: sent },
      {},
      { attentionRetryInitialMs: 2_000 },
    );
    let details = '';
    await eventually(async () => (details = await detailsOf(c.handle)).includes('Next automatic look'));
    const attention = (await c.handle.query(creationStateQuery)).attention!;
    expect(details).toContain('**Needs attention**: `carrier_timeout`; shipment_at_carrier `unknown`.');
    expect(details).toContain(`- Sent at: ${(sent as { sentAt: string }).sentAt}`);
    expect(details).toContain(`- resolve_allowed_at: ${attention.resolveAllowedAt}`);
    const nextLook = Date.parse(/Next automatic look at the carrier: (\S+)/.exec(details)![1]!);
    expect(nextLook).toBeGreaterThan(Date.now() - 1_000);
    expect(nextLook).toBeLessThanOrEqual(Date.now() + 2_500);
    // `$BASE` ends in the version prefix (one convention across the docs).
    expect(details).toContain(`"$BASE/label-creations/${c.creationId}/resolve"`);
    expect(details).toContain(`-d '{"outcome":"not_created"}'`);
    expect(details).toContain(`-d '{"outcome":"shipment_exists"}'`);
    // Each activity says what it does, for this order and carrier.
    const summaries = await activitySummaries(c.handle);
    expect(summaries.prepareAndSendToCarrier).toEqual([
      'read order 1001, decide, lock, and create its shipment at the carrier',
    ]);
    expect(summaries.holdUnresolvedFulfillmentOrders).toEqual(['hold the fulfillment orders of #1001 on the platform']);
    await c.handle.executeUpdate(resolveUpdate, {
      args: [{ outcome: 'not_created', trackingNumber: null, note: null, resolvedBy: 'ak_1' }],
    });
    expect((await result(c.handle)).status).toBe('failed');
    expect(await detailsOf(c.handle)).toContain('**Failed**: `resolved_not_created`');
  });

  it('once the shipment is found to exist, offers only shipment_exists and names the reference', async () => {
    const c = await start({
      prepare: [prepared(decide(aContext()))],
      send: unclearAnswer(),
      recover: [{ kind: 'exists', labelId: 'lbl_late', shipmentId: 's', carrierReference: 'Z9' }],
    });
    let details = '';
    await eventually(async () => (details = await detailsOf(c.handle)).includes('shipment_at_carrier `exists`'));
    expect(details).toContain('look for reference `Z9`');
    expect(details).not.toContain('"outcome":"not_created"');
    expect(details).toContain('"outcome":"shipment_exists"');
    expect((await activitySummaries(c.handle)).recoverShipment?.[0]).toBe(
      'look for the shipment at Carrier A for #1001',
    );
    await c.handle.terminate('test over');
  });
});

async function eventually(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 50));
  }
}

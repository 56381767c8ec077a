import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { EntityManager } from '@mikro-orm/postgresql';
import { KIND, STORE_ID, type WorkflowKind } from '../../workflows/search-attributes';
import { WEBHOOK_DELIVERY_WORKFLOW, type WebhookDeliveryWorkflow } from '../../workflows/webhook-delivery-contract';
import { readCreationById, type CreationRow } from '../creation/records';
import type { Orm } from '../db/orm';
import type { WebhookRetrySchedule, WebhookTopic } from '../domain/webhooks';
import { isoSeconds } from '../domain/wire-format';
import { CURRENT_VERSION } from '../domain/versions';
import { newId } from '../ids';
import { subscribedEndpoints, WebhookConfigError } from './endpoints';

/**
 * Emitting events (decisions 0605, 0606): the event row is written once per (topic, resource, transition key), with
 * its payload as the exact bytes every attempt sends; then one delivery workflow per subscribed endpoint, its ID made
 * of the event's and the endpoint's, so a retried emission or a duplicate start never delivers twice.
 */

export interface WebhookPublishDeps {
  orm: Orm;
  temporal: Client;
  taskQueue: string;
  now: () => Date;
  retry: WebhookRetrySchedule;
}

/**
 * The creation object of a payload, exactly as `GET /v1/label-creations/{id}` serializes it: the API's serializer,
 * handed in by the process that composes the worker (the wire shapes belong to the HTTP edge, above this module).
 */
export type CreationRenderer = (row: CreationRow, now: Date) => Promise<unknown>;

export interface StoredEvent {
  id: string;
  storeId: string;
  topic: WebhookTopic;
}

export const deliveryWorkflowId = (eventId: string, endpointId: string, redelivery?: number) =>
  `webhook-delivery/${eventId}/${endpointId}${redelivery === undefined ? '' : `/redelivery-${redelivery}`}`;

async function insertEvent(
  em: EntityManager,
  input: { storeId: string; topic: WebhookTopic; resourceId: string; transitionKey: string; now: Date },
  payloadOf: (id: string) => string,
): Promise<StoredEvent> {
  const id = newId('webhookEvent');
  const [inserted] = await em.execute<Array<{ id: string }>>(
    `insert into webhook_events (id, store_id, topic, resource_id, transition_key, payload, created_at)
       values (?, ?, ?, ?, ?, ?, ?)
     on conflict (topic, resource_id, transition_key) do nothing returning id`,
    [id, input.storeId, input.topic, input.resourceId, input.transitionKey, payloadOf(id), input.now],
  );
  if (inserted) return { id, storeId: input.storeId, topic: input.topic };
  const [existing] = await em.execute<Array<{ id: string }>>(
    'select id from webhook_events where topic = ? and resource_id = ? and transition_key = ?',
    [input.topic, input.resourceId, input.transitionKey],
  );
  return { id: existing!.id, storeId: input.storeId, topic: input.topic };
}

/** Starts (or finds) the delivery of `eventId` to `endpointId` under `workflowId`; a finished one is not started again. */
async function startDelivery(
  deps: WebhookPublishDeps,
  input: { storeId: string; eventId: string; endpointId: string; workflowId: string; kind: 'automatic' | 'redelivery' },
): Promise<{ deliveryId: string; started: boolean }> {
  const em = deps.orm.em.fork();
  await em.execute(
    `insert into webhook_deliveries (id, store_id, event_id, endpoint_id, workflow_id, kind, created_at)
       values (?, ?, ?, ?, ?, ?, ?) on conflict (workflow_id) do nothing`,
    [
      newId('webhookDelivery'),
      input.storeId,
      input.eventId,
      input.endpointId,
      input.workflowId,
      input.kind,
      deps.now(),
    ],
  );
  const [delivery] = await em.execute<Array<{ id: string; status: string }>>(
    'select id, status from webhook_deliveries where workflow_id = ?',
    [input.workflowId],
  );
  if (delivery!.status !== 'pending') return { deliveryId: delivery!.id, started: false };
  try {
    await deps.temporal.workflow.start<WebhookDeliveryWorkflow>(WEBHOOK_DELIVERY_WORKFLOW, {
      workflowId: input.workflowId,
      taskQueue: deps.taskQueue,
      // A closed delivery is never run again under its ID: redelivery is a new ID of its own.
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      args: [{ deliveryId: delivery!.id, retry: deps.retry }],
      // Found in the Web UI and by `temporal workflow list --query "StoreId = '...' AND Kind = 'webhook_redelivery'"`.
      typedSearchAttributes: [
        { key: STORE_ID, value: input.storeId },
        {
          key: KIND,
          value: (input.kind === 'redelivery' ? 'webhook_redelivery' : 'webhook_delivery') satisfies WorkflowKind,
        },
      ],
    });
    return { deliveryId: delivery!.id, started: true };
  } catch (error) {
    if (error instanceof WorkflowExecutionAlreadyStartedError) return { deliveryId: delivery!.id, started: false };
    throw error;
  }
}

/** An event written, with the endpoints it goes to; `deliverEvent` starts its deliveries. */
export interface RecordedEvent {
  event: StoredEvent;
  endpoints: ReadonlyArray<{ id: string }>;
}

/**
 * Writes `label_creation.updated` for the creation as it is now (spec "Events"), through `em`: inside the transaction
 * of the change it reports, the event is written exactly when the change is (the outbox). The payload is the creation
 * object exactly as `GET /v1/label-creations/{id}` serializes it, and `errorCode`, the creation's `error.code` or null.
 * Null when the store has no endpoint for the topic (nothing would ever read the event).
 */
export async function recordCreationUpdated(
  em: EntityManager,
  deps: { now: () => Date; renderCreation: CreationRenderer },
  row: CreationRow,
  transitionKey: string,
  /** The store's endpoints for the topic, when the caller has read them already. */
  subscribed?: ReadonlyArray<{ id: string }>,
): Promise<RecordedEvent | null> {
  const endpoints = subscribed ?? (await subscribedEndpoints(em, row.store_id, 'label_creation.updated'));
  if (endpoints.length === 0) return null;
  const now = deps.now();
  const object = await deps.renderCreation(row, now);
  const event = await insertEvent(
    em,
    { storeId: row.store_id, topic: 'label_creation.updated', resourceId: row.id, transitionKey, now },
    (id) =>
      JSON.stringify({
        id,
        topic: 'label_creation.updated',
        created_at: isoSeconds(now),
        api_version: CURRENT_VERSION,
        errorCode: row.error?.code ?? null,
        data: { object },
      }),
  );
  return { event, endpoints };
}

/** Starts the deliveries of a written event, one workflow per endpoint (a repeat starts none twice). */
export async function deliverEvent(deps: WebhookPublishDeps, recorded: RecordedEvent): Promise<void> {
  for (const endpoint of recorded.endpoints)
    await startDelivery(deps, {
      storeId: recorded.event.storeId,
      eventId: recorded.event.id,
      endpointId: endpoint.id,
      workflowId: deliveryWorkflowId(recorded.event.id, endpoint.id),
      kind: 'automatic',
    });
}

/**
 * `label_creation.updated` for the creation as it is now, after its transition committed, with a key naming the
 * transition (`succeeded`, `failed`, `needs_attention`, `abandoned`, ...): written once per key, then delivered.
 */
export async function publishCreationUpdated(
  deps: WebhookPublishDeps & { renderCreation: CreationRenderer },
  creationId: string,
  transitionKey: string,
  /** The creation's store when the caller knows it: a store without endpoints then costs one read. */
  knownStoreId?: string,
): Promise<void> {
  const em = deps.orm.em.fork();
  const early = knownStoreId ? await subscribedEndpoints(em, knownStoreId, 'label_creation.updated') : undefined;
  if (early?.length === 0) return;
  const row = await readCreationById(em, creationId);
  if (!row) throw new Error(`label creation ${creationId} does not exist`);
  const recorded = await recordCreationUpdated(em, deps, row, transitionKey, early);
  if (recorded) await deliverEvent(deps, recorded);
}

/**
 * The outbox's relay: events written since `since` that have no delivery at all (the process that wrote one stopped
 * before it started them) get their deliveries to the endpoints subscribed now. A delivery's workflow ID is the event's
 * and the endpoint's, so running beside the writer starts nothing twice. Returns how many events it picked up.
 */
export async function deliverUndelivered(deps: WebhookPublishDeps, since: Date): Promise<number> {
  const em = deps.orm.em.fork();
  const events = await em.execute<Array<{ id: string; store_id: string; topic: WebhookTopic }>>(
    `select e.id, e.store_id, e.topic from webhook_events e
      where e.created_at >= ? and not exists (select 1 from webhook_deliveries d where d.event_id = e.id)
      order by e.created_at limit 1000`,
    [since],
  );
  for (const event of events) {
    const endpoints = await subscribedEndpoints(em, event.store_id, event.topic);
    await deliverEvent(deps, { event: { id: event.id, storeId: event.store_id, topic: event.topic }, endpoints });
  }
  return events.length;
}

/**
 * Sends an event again, as a new delivery with its own attempts (decision 0607): a `whd_` to that delivery's endpoint,
 * an `evt_` to every endpoint of the store subscribed to its topic now. Returns the new deliveries.
 */
export async function redeliver(deps: WebhookPublishDeps, ref: string): Promise<string[]> {
  const em = deps.orm.em.fork();
  let targets: Array<{ eventId: string; endpointId: string; storeId: string }>;
  if (ref.startsWith('whd_')) {
    targets = await em.execute(
      `select d.event_id as "eventId", d.endpoint_id as "endpointId", d.store_id as "storeId"
         from webhook_deliveries d join webhook_endpoints e on e.id = d.endpoint_id
        where d.id = ? and e.removed_at is null`,
      [ref],
    );
    if (targets.length === 0)
      throw new WebhookConfigError(`no delivery ${ref.slice(0, 60)} to an endpoint still there`);
  } else {
    const [event] = await em.execute<Array<{ id: string; store_id: string; topic: WebhookTopic }>>(
      'select id, store_id, topic from webhook_events where id = ?',
      [ref],
    );
    if (!event) throw new WebhookConfigError(`no event or delivery ${ref.slice(0, 60)}`);
    targets = (await subscribedEndpoints(em, event.store_id, event.topic)).map((e) => ({
      eventId: event.id,
      endpointId: e.id,
      storeId: event.store_id,
    }));
    if (targets.length === 0) throw new WebhookConfigError(`the store has no endpoint for ${event.topic}`);
  }
  const deliveries: string[] = [];
  for (const target of targets) {
    const [count] = await em.execute<Array<{ n: number }>>(
      `select count(*)::int as n from webhook_deliveries where event_id = ? and endpoint_id = ? and kind = 'redelivery'`,
      [target.eventId, target.endpointId],
    );
    const { deliveryId, started } = await startDelivery(deps, {
      ...target,
      workflowId: deliveryWorkflowId(target.eventId, target.endpointId, (count?.n ?? 0) + 1),
      kind: 'redelivery',
    });
    if (!started) throw new WebhookConfigError(`a redelivery of ${target.eventId} is starting already; try again`);
    deliveries.push(deliveryId);
  }
  return deliveries;
}

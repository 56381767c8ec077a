import { Context } from '@temporalio/activity';
import type { ApplicationFailure } from '@temporalio/common';
import { accountSettings } from '../../src/carriers/account-settings';
import type { LabelDocument, ShipmentResult } from '../../src/carriers/port';
import type { SideEffects } from '../../src/domain/creation-record';
import { recordShipment, storeDocument } from '../../src/creation/transitions';
import { CarrierAccount } from '../../src/db/entities/carrier-account';
import type { DomainError } from '../../src/domain/errors';
import type { LabelCreationStatus } from '../../src/domain/labels';
import { createWriteLimits } from '../../src/limits/write-limits';
import { PlatformAccessLostError, PlatformUnavailableError } from '../../src/platform/port';
import { accessLost } from '../../src/platform/unavailable';
import { toFailure } from '../../workflows/label-creation/contract';
import type { ActivityDeps } from '../deps';
import { creationUpdatedPublisher } from '../webhooks';
import type { SendToCarrierInput, SucceedInput } from './types';

/**
 * What the creation's activities share, built once per worker: the record's write limits, the `label_creation.updated`
 * event, the carrier account, and recording an accepted shipment with its PDF.
 */
export function creationKit(deps: ActivityDeps) {
  const em = () => deps.orm.em.fork();
  const limits = createWriteLimits({ orm: deps.orm, now: deps.now });
  /** `label_creation.updated` (spec "Events"), after a transition commits: `(creationId, transitionKey)`. */
  const publishCreationUpdated = creationUpdatedPublisher(deps);

  /**
   * Leaving `processing` frees the creation's write-queue place, and its daily unit comes back unless the carrier was
   * called (a confirmed unit stays counted): spec "Limits", docs/decisions/0405-creation-limits-wiring.md.
   */
  async function leftProcessing(creationId: string, queueTicketId: string | null, carrierCalled = false) {
    if (queueTicketId) await limits.writeQueue.release(queueTicketId);
    // A creation that made a label called the carrier, which confirmed its unit before the call: nothing to return.
    if (!carrierCalled) await limits.creationUnits.returnUnit(creationId);
  }

  /**
   * After the record moved to `succeeded` (locks released with it): the write queue and the event side by side (two
   * connections; a retry repeats both, each idempotent), then the metric.
   */
  async function afterSucceeded(input: Pick<SucceedInput, 'creationId' | 'storeId' | 'queueTicketId' | 'created'>) {
    const [left, published] = await Promise.allSettled([
      leftProcessing(input.creationId, input.queueTicketId, input.created),
      publishCreationUpdated(input.creationId, 'succeeded', input.storeId),
    ]);
    if (left.status === 'rejected') throw left.reason;
    if (published.status === 'rejected') throw published.reason;
    countCreation('succeeded');
  }

  async function accountOf(storeId: string, carrierAccountId: string) {
    const account = await em().findOneOrFail(CarrierAccount, { id: carrierAccountId, storeId });
    return { account, settings: accountSettings(account) };
  }

  /** An accepted shipment's label, recorded at once (with its PDF when there is one; `ready` with `finalize`). */
  function record(
    input: SendToCarrierInput,
    account: CarrierAccount,
    shipment: ShipmentResult,
    options: { finalize?: boolean; mayExist?: boolean; succeedWith?: SideEffects } = {},
  ) {
    return recordShipment(deps.orm, {
      ...options,
      creationId: input.creationId,
      storeId: input.storeId,
      order: input.order,
      fulfillmentOrderGids: input.fulfillmentOrderGids,
      carrierAccountId: account.id,
      carrierCode: account.carrierCode,
      service: { code: input.carrierCall.serviceCode, name: input.serviceName },
      cod: { ...input.codToCarrier, source: input.codSource },
      declaredValue: input.carrierCall.declaredValue,
      weightGrams: input.carrierCall.weightGrams,
      shipment,
      now: deps.now(),
    });
  }

  /** Stores a label's PDF as the carrier gave it (the document endpoints serve it from storage). */
  async function keepDocument(labelId: string, document: LabelDocument): Promise<void> {
    await storeDocument(em(), {
      labelId,
      pdf: document.pdf,
      pageSize: document.pageSize,
      pages: document.pages,
      now: deps.now(),
    });
  }

  return { deps, em, publishCreationUpdated, leftProcessing, afterSucceeded, accountOf, record, keepDocument };
}

export type CreationKit = ReturnType<typeof creationKit>;

/** Activities report business outcomes as data; a refusal that is not retryable fails with its spec code as type. */
export function nonRetryable(error: DomainError): ApplicationFailure {
  return toFailure(error.refusal);
}

/**
 * Worker metric `shipping_label_creations{status}`: creations by the status they reached (needs_attention included),
 * on the worker's Prometheus endpoint with the SDK's own metrics (docs/operators.md, "Metrics").
 */
export function countCreation(status: LabelCreationStatus): void {
  Context.current()
    .metricMeter.createCounter('shipping_label_creations', '', 'Label creations by the status they reached')
    .withTags({ status })
    .add(1);
}

/** Runs `work` beating the activity's heartbeat every second, so a lost worker is noticed within its timeout. */
export async function heartbeating<T>(work: () => Promise<T>): Promise<T> {
  const heartbeat = setInterval(() => Context.current().heartbeat(), 1000);
  try {
    return await work();
  } finally {
    clearInterval(heartbeat);
  }
}

/**
 * A platform that does not answer is retried by Temporal (a plain error); access lost for good (decision 0710) is not
 * retried; its refusals are reported as they are.
 */
export async function platformCall<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof PlatformAccessLostError) throw nonRetryable(accessLost(error));
    if (error instanceof PlatformUnavailableError) throw new Error(error.message, { cause: error });
    throw error;
  }
}

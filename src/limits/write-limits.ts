import type { Orm } from '../db/orm';
import { createCreationUnits, type CreationUnits } from './creation-units';
import { createWaitHolds, type WaitHolds } from './wait-holds';
import { createWriteQueue, type WriteQueue } from './write-queue';

/**
 * The limits of live label creations that the creation code applies itself (the router's hook cannot: they last
 * longer than a request or count only creations that reach the carrier). How `POST /labels` uses them:
 * docs/decisions/0405-creation-limits-wiring.md.
 */
export interface WriteLimits {
  writeQueue: WriteQueue;
  waitHolds: WaitHolds;
  creationUnits: CreationUnits;
}

/** A waiting creation leaves the queue within 10 minutes (spec: `not_started` after 5, the carrier within about 10). */
const WRITE_QUEUE_LEASE_MS = 15 * 60_000;
/** A reservation neither confirmed nor returned stops counting after this long. */
const CREATION_UNIT_LEASE_MS = 15 * 60_000;

/**
 * `platformQueueMax`: the platform-wide creation queue's cap (CREATION_QUEUE_PLATFORM_MAX) for the API, which admits
 * creations; a worker only releases places and passes none.
 */
export function createWriteLimits(deps: { orm: Orm; now: () => Date; platformQueueMax?: number }): WriteLimits {
  const { platformQueueMax, ...shared } = deps;
  return {
    writeQueue: createWriteQueue({ ...shared, leaseMs: WRITE_QUEUE_LEASE_MS, platformCap: platformQueueMax ?? null }),
    waitHolds: createWaitHolds(shared),
    creationUnits: createCreationUnits({ ...shared, leaseMs: CREATION_UNIT_LEASE_MS }),
  };
}

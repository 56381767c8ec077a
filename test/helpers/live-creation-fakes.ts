import type { ReservationPorts } from '../../src/creation/reservation';
import type { ClaimResult, CreationRow, NewClaim } from '../../src/creation/records';
import type { BucketState } from '../../src/domain/rate-limits';
import { createLogger } from '../../src/logger';

/** A creation record as the claim returns it: a new creation, `processing` and `queued`. */
export function aCreationRow(overrides: Partial<CreationRow> = {}): CreationRow {
  const at = new Date(Date.now()).toISOString();
  return {
    id: 'lcr_new',
    store_id: 'sto_1',
    status: 'processing',
    phase: 'queued',
    idempotency_key: 'key-00000001',
    request_hash: 'hash',
    key_bound: true,
    api_key_id: 'key_1',
    order_gid: null,
    order_legacy_id: null,
    order_name: null,
    fulfillment_order_gids: [],
    created: null,
    requested: {} as CreationRow['requested'],
    resolved: {},
    warnings: [],
    side_effects: {},
    error: null,
    attention: null,
    resolution: null,
    waiting_for: null,
    client_reference: null,
    workflow_id: 'label-creation/sto_1/key-00000001',
    label_ids: [],
    sent_at: null,
    carrier_account_id: null,
    created_at: at,
    updated_at: at,
    seq: '1',
    ...overrides,
  };
}

const aBucket = (bucket: BucketState['bucket']): BucketState => ({
  bucket,
  scope: 'shop',
  limit: 10,
  windowSeconds: null,
  remaining: 9,
  resetSeconds: 1,
  allowed: true,
});
export const UNIT_STATE = aBucket('write_shop_per_day');
export const QUEUE_STATE = aBucket('write_queue_depth');

/** How each fake port behaves; every resource is taken unless told otherwise. */
export interface FakeBehaviour {
  /** The key already holds 8 waits: no hold. */
  holdsFull?: boolean;
  holdFails?: Error;
  unitRefused?: Error;
  placeRefused?: Error;
  claimFails?: Error;
  /** The key is bound already: the claim finds this record (made from the claim, to share its request hash). */
  boundTo?: CreationRow | ((claim: NewClaim) => CreationRow);
  dropFails?: Error;
  returnUnitFails?: Error;
}

/**
 * Fake limits and claims that write what happens to `events`, in order: `take hold`, `take unit`, `take place`,
 * `claim`, and their give-backs `release hold`, `return unit`, `release place`, `drop claim`.
 */
export function fakeReservationPorts(behaviour: FakeBehaviour = {}) {
  const events: string[] = [];
  const claims: NewClaim[] = [];
  const note = (event: string, failure?: Error) => {
    events.push(event);
    if (failure) throw failure;
  };
  const ports: ReservationPorts = {
    waitHolds: {
      hold: async () => {
        note('take hold', behaviour.holdFails);
        return behaviour.holdsFull ? null : { id: 'hold_1', release: async () => note('release hold') };
      },
    },
    creationUnits: {
      reserve: async () => {
        note('take unit', behaviour.unitRefused);
        return [UNIT_STATE];
      },
      returnUnit: async () => {
        note('return unit', behaviour.returnUnitFails);
        return true;
      },
    },
    writeQueue: {
      enter: async () => {
        note('take place', behaviour.placeRefused);
        return { id: 'ticket_1', state: QUEUE_STATE, release: async () => note('release place') };
      },
    },
    claims: {
      claim: async (claim): Promise<ClaimResult> => {
        claims.push(claim);
        note('claim', behaviour.claimFails);
        const { boundTo } = behaviour;
        if (boundTo) return { claimed: false, row: typeof boundTo === 'function' ? boundTo(claim) : boundTo };
        return { claimed: true, row: aCreationRow({ id: claim.id, request_hash: claim.requestHash }) };
      },
      drop: async () => note('drop claim', behaviour.dropFails),
    },
    logger: createLogger('silent'),
  };
  return { ports, events, claims };
}

/** The claim a request makes, as the service builds it. */
export function aClaim(overrides: Partial<Omit<NewClaim, 'queueTicketId'>> = {}): Omit<NewClaim, 'queueTicketId'> {
  return {
    id: 'lcr_new',
    storeId: 'sto_1',
    apiKeyId: 'key_1',
    idempotencyKey: 'key-00000001',
    requestHash: 'hash',
    requested: {} as NewClaim['requested'],
    clientReference: null,
    workflowId: 'label-creation/sto_1/key-00000001',
    order: null,
    orderName: null,
    now: new Date(Date.now()),
    keyTtlMs: 30 * 86_400_000,
    ...overrides,
  };
}

import type { BucketState } from '../domain/rate-limits';
import type { CreationUnits } from '../limits/creation-units';
import type { WaitHolds } from '../limits/wait-holds';
import type { WriteQueue, WriteQueueTicket } from '../limits/write-queue';
import type { Logger } from '../logger';
import type { PreferWait } from './prefer-wait';
import type { ClaimResult, NewClaim } from './records';

/** Where a reservation takes its resources: the limits of docs/decisions/0405 and the creation records. */
export interface ReservationPorts {
  waitHolds: WaitHolds;
  creationUnits: Pick<CreationUnits, 'reserve' | 'returnUnit'>;
  writeQueue: Pick<WriteQueue, 'enter'>;
  claims: {
    claim(claim: NewClaim): Promise<ClaimResult>;
    /** Removes a claim whose workflow never started (`dropClaim`). */
    drop(creationId: string): Promise<void>;
  };
  logger: Logger;
}

export interface ReservationRequest {
  /** The `Prefer: wait` hold, asked for by the caller beside its checks on arrival (`takeWaitHold`). */
  hold: PreferWait;
  /** A repeat of a bound key joins its creation: it takes a hold, but no unit and no queue place. */
  repeat: boolean;
  /** `on_existing: create_new` also takes a `create_new_daily` unit. */
  createNew: boolean;
  /** The claim to make; the reservation fills in its queue place. Its `id` is the creation's (and its unit's) ID. */
  claim: Omit<NewClaim, 'queueTicketId'>;
  /** Told the daily units' and the queue's states once both are taken (the answer's `X-RateLimit-*`). */
  noteLimits?: ((states: readonly BucketState[]) => void) | undefined;
}

/**
 * A creation's resources, taken in this order: the `Prefer: wait` hold, the daily unit, the store's (and the
 * platform's) queue place, the claim of the record. Until `handOver()`, everything is the request's and `release()`
 * gives it back, the last taken first; after it, the unit, place and claim are the creation's workflow's (it confirms
 * or returns the unit and frees the place), and `release()` gives back the hold only.
 */
export interface Reservation {
  /** The claim: the request's own record, or (`claimed: false`) the one the key was bound to already. */
  claim: ClaimResult;
  /** The wait applied: as asked, or 0 when the API key holds 8 waits already. */
  waitSeconds: number;
  /** The queue place the creation's workflow frees; null for a repeat, which took none. */
  queueTicketId: string | null;
  /** The creation's workflow has taken the unit, the queue place and the claim over. */
  handOver(): void;
  /** Gives back what the request still holds, the last taken first; once, whoever calls it, and never rejects. */
  release(): Promise<void>;
}

/** A resource of a reservation, in the order they are taken. */
export type Resource = 'hold' | 'unit' | 'queue place' | 'claim';

/**
 * What the request holds, in the order it took it: each thing is given back at most once, the last taken first. A
 * failed give-back is logged and left to the thing's lease (a hold, unit or place stops counting when it expires);
 * a claim that could not be dropped keeps its unit and place, as a repeat of its key may still run it.
 */
class Holdings {
  private readonly held: Array<{ what: Resource; giveBack: () => Promise<unknown> }> = [];

  constructor(private readonly logger: Logger) {}

  add(what: Resource, giveBack: () => Promise<unknown>): void {
    this.held.push({ what, giveBack });
  }

  /** Lets go of `what` without giving it back: from now on it is not the request's. */
  keep(what: readonly Resource[]): void {
    for (let i = this.held.length - 1; i >= 0; i -= 1) if (what.includes(this.held[i]!.what)) this.held.splice(i, 1);
  }

  async giveBack(except: readonly Resource[] = []): Promise<void> {
    for (let i = this.held.length - 1; i >= 0; i -= 1) {
      const thing = this.held[i];
      if (!thing || except.includes(thing.what)) continue;
      this.held.splice(i, 1);
      try {
        await thing.giveBack();
      } catch (error) {
        this.logger.warn({ err: error, resource: thing.what }, 'creation resource not given back; its lease frees it');
        if (thing.what === 'claim') this.keep(['queue place', 'unit']);
      }
    }
  }
}

/**
 * Takes a creation's resources (docs/decisions/1100-creation-reservation.md). The hold is asked for first (by the
 * caller, beside its checks on arrival) and awaited last, so its statement runs beside the others; the unit and the
 * queue place are taken side by side. A
 * refusal (a full day, a full queue) or a failure on the way gives back whatever was taken, the last taken first, and
 * is thrown: nothing is bound. A claim that finds the key bound already (another request won) gives the unit and the
 * place back at once: the request is a repeat after all.
 */
export async function reserve(ports: ReservationPorts, request: ReservationRequest): Promise<Reservation> {
  const holdings = new Holdings(ports.logger);
  const { hold } = request;
  holdings.add('hold', () => hold.release());
  try {
    const ticket = request.repeat ? null : await takeWriteLimits(ports, request, holdings);
    const claim = await ports.claims.claim({ ...request.claim, queueTicketId: ticket?.id ?? null });
    if (claim.claimed) holdings.add('claim', () => ports.claims.drop(claim.row.id));
    else await holdings.giveBack(['hold']);
    const waitSeconds = await hold.granted();
    let released: Promise<void> | null = null;
    return {
      claim,
      waitSeconds,
      queueTicketId: claim.claimed ? (ticket?.id ?? null) : null,
      handOver: () => holdings.keep(['claim', 'queue place', 'unit']),
      release: () => (released ??= holdings.giveBack()),
    };
  } catch (error) {
    await holdings.giveBack();
    throw error;
  }
}

/** The daily unit and the queue place, side by side (two connections); each one taken is held even if the other fails. */
async function takeWriteLimits(
  ports: ReservationPorts,
  request: ReservationRequest,
  holdings: Holdings,
): Promise<WriteQueueTicket> {
  const { storeId, id: unitId } = request.claim;
  const [units, ticket] = await Promise.allSettled([
    ports.creationUnits.reserve({ storeId, unitId, createNew: request.createNew }),
    ports.writeQueue.enter(storeId),
  ]);
  if (units.status === 'fulfilled') holdings.add('unit', () => ports.creationUnits.returnUnit(unitId));
  if (ticket.status === 'fulfilled') holdings.add('queue place', () => ticket.value.release());
  // The unit's refusal first: a full day says more than a full queue.
  if (units.status === 'rejected') throw units.reason;
  if (ticket.status === 'rejected') throw ticket.reason;
  request.noteLimits?.(units.value);
  request.noteLimits?.([ticket.value.state]);
  return ticket.value;
}

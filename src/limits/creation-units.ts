import type { Orm } from '../db/orm';
import { inLockedTransaction, type Tx } from '../db/transaction';
import {
  WINDOW_BUCKETS,
  rateLimitedRefusal,
  refusingBucket,
  secondsToEndOfDay,
  type BucketState,
} from '../domain/rate-limits';
import { refusalError } from '../domain/refusal';
import { limitOf } from './overrides';

/**
 * The daily creation limits (`write_shop_per_day` 2,000 and `create_new_daily` 50 per store and UTC day) count
 * creations that reach the carrier; a request that returns existing labels or is refused before the carrier call gives
 * its unit back (spec "Limits"). So a creation reserves a unit when it is accepted (a full day refuses it with 429
 * before anything is created), confirms it when it calls the carrier, and returns it when it ends without calling.
 */
export interface CreationUnits {
  /**
   * Reserves the creation's unit (and its `create_new` unit when `createNew`), or throws 429 `rate_limited` with the
   * exhausted daily bucket. Idempotent per `unitId` (the creation's ID): a retried activity reserves once.
   */
  reserve(input: { storeId: string; unitId: string; createNew: boolean }): Promise<BucketState[]>;
  /** The creation calls the carrier: the unit counts for good (idempotent). */
  confirm(unitId: string): Promise<void>;
  /** The creation ends without calling the carrier: the unit is given back. False when it was confirmed or unknown. */
  returnUnit(unitId: string): Promise<boolean>;
}

/**
 * A ledger row per unit (`creation_units`), durable and exact across processes: reservations are admitted under a
 * per-store transaction lock. A reservation neither confirmed nor returned stops counting after `leaseMs` (its
 * creation would have failed `not_started` long before); a confirmation always counts.
 */
export function createCreationUnits(deps: { orm: Orm; now: () => Date; leaseMs: number }): CreationUnits {
  return {
    async reserve({ storeId, unitId, createNew }) {
      const now = deps.now();
      const nowMs = now.getTime();
      const day = now.toISOString().slice(0, 10);
      return inLockedTransaction(deps.orm, `creation_units:${storeId}`, async (tx) => {
        // Yesterday's rows stay for support questions; older ones go.
        await tx.execute('delete from creation_units where store_id = ? and day < ?::date - 1', [storeId, day]);
        const [counts] = await tx.execute<Array<{ total: number; create_new: number; mine: boolean }>>(
          `select count(*)::int as total,
                  (count(*) filter (where create_new))::int as create_new,
                  bool_or(unit_id = ?) as mine
             from creation_units
            where store_id = ? and day = ?::date and (state = 'confirmed' or (state = 'reserved' and expires_at > ?))`,
          [unitId, storeId, day, now],
        );
        const mine = counts!.mine === true;
        // A unit already held is answered again, not taken twice.
        const taking = mine ? 0 : 1;
        const states: BucketState[] = [
          await dailyState(tx, storeId, 'write_shop_per_day', counts!.total + taking, nowMs),
          ...(createNew ? [await dailyState(tx, storeId, 'create_new_daily', counts!.create_new + taking, nowMs)] : []),
        ];
        const refused = refusingBucket(states);
        if (refused) throw refusalError(rateLimitedRefusal(refused));
        if (!mine) {
          await tx.execute(
            `insert into creation_units (unit_id, store_id, day, create_new, state, reserved_at, expires_at)
             values (?, ?, ?::date, ?, 'reserved', ?, ?)
             on conflict (unit_id) do update set store_id = excluded.store_id, day = excluded.day,
               create_new = excluded.create_new, state = 'reserved', reserved_at = excluded.reserved_at,
               expires_at = excluded.expires_at`,
            [unitId, storeId, day, createNew, now, new Date(nowMs + deps.leaseMs)],
          );
        }
        return states;
      });
    },

    async confirm(unitId) {
      await deps.orm.em.fork().execute(`update creation_units set state = 'confirmed' where unit_id = ?`, [unitId]);
    },

    async returnUnit(unitId) {
      const rows = await deps.orm.em
        .fork()
        .execute<Array<{ unit_id: string }>>(
          `update creation_units set state = 'returned' where unit_id = ? and state = 'reserved' returning unit_id`,
          [unitId],
        );
      return rows.length > 0;
    },
  };
}

async function dailyState(
  tx: Tx,
  storeId: string,
  bucket: 'write_shop_per_day' | 'create_new_daily',
  used: number,
  nowMs: number,
): Promise<BucketState> {
  const { scope, windowSeconds } = WINDOW_BUCKETS[bucket];
  const limit = await limitOf(tx, storeId, bucket, WINDOW_BUCKETS[bucket].limit);
  const allowed = used <= limit;
  return {
    bucket,
    scope,
    limit,
    windowSeconds,
    remaining: allowed ? limit - used : 0,
    resetSeconds: secondsToEndOfDay(nowMs),
    allowed,
  };
}

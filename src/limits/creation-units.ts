import { DomainError } from '../domain/errors';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Orm } from '../db/orm';
import {
  WINDOW_BUCKETS,
  rateLimitedRefusal,
  refusingBucket,
  secondsToEndOfDay,
  type BucketState,
} from '../domain/rate-limits';

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
 * Confirms the units whose IDs `idsSql` selects (they count from then on): on its own (`confirm`), or a CTE of the
 * statement that marks a creation sent (`markSent`), so the confirmation and `sent_at` are written together, and only
 * when it was marked.
 */
export const confirmUnitsSql = (idsSql: string) =>
  `update creation_units set state = 'confirmed' where unit_id in (${idsSql})`;

/** Gives back a reserved unit through `em` (inside a caller's transaction where it has one); false when none was. */
export async function returnUnitWith(em: EntityManager, unitId: string): Promise<boolean> {
  const rows = await em.execute<Array<{ unit_id: string }>>(
    `update creation_units set state = 'returned' where unit_id = ? and state = 'reserved' returning unit_id`,
    [unitId],
  );
  return rows.length > 0;
}

/**
 * A ledger row per unit (`creation_units`), durable and exact across processes: reservations are admitted by
 * `creation_unit_reserve` (one statement) under a per-store transaction lock. A reservation neither confirmed nor
 * returned stops counting after `leaseMs` (its creation would have failed `not_started` long before); a confirmation
 * always counts.
 */
export function createCreationUnits(deps: { orm: Orm; now: () => Date; leaseMs: number }): CreationUnits {
  return {
    async reserve({ storeId, unitId, createNew }) {
      const now = deps.now();
      const nowMs = now.getTime();
      const [row] = await deps.orm.em
        .fork()
        .execute<
          Array<{ total: number; create_new: number; mine: boolean; day_limit: number; create_new_limit: number }>
        >('select * from creation_unit_reserve(?, ?, ?::date, ?, ?, ?, ?, ?)', [
          unitId,
          storeId,
          now.toISOString().slice(0, 10),
          createNew,
          now,
          new Date(nowMs + deps.leaseMs),
          WINDOW_BUCKETS.write_shop_per_day.limit,
          WINDOW_BUCKETS.create_new_daily.limit,
        ]);
      // A unit already held is answered again, not taken twice (the function took it only when every bucket allows).
      const taking = row!.mine ? 0 : 1;
      const states: BucketState[] = [
        dailyState('write_shop_per_day', row!.total + taking, row!.day_limit, nowMs),
        ...(createNew ? [dailyState('create_new_daily', row!.create_new + taking, row!.create_new_limit, nowMs)] : []),
      ];
      const refused = refusingBucket(states);
      if (refused) throw DomainError.from(rateLimitedRefusal(refused));
      return states;
    },

    async confirm(unitId) {
      await deps.orm.em.fork().execute(confirmUnitsSql('?'), [unitId]);
    },

    returnUnit: (unitId) => returnUnitWith(deps.orm.em.fork(), unitId),
  };
}

function dailyState(
  bucket: 'write_shop_per_day' | 'create_new_daily',
  used: number,
  limit: number,
  nowMs: number,
): BucketState {
  const { scope, windowSeconds } = WINDOW_BUCKETS[bucket];
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

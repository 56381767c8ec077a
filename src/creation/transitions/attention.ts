import type { EntityManager } from '@mikro-orm/postgresql';
import type { Orm } from '../../db/orm';
import { inTransaction } from '../../db/transaction';
import type { StoredAttention } from '../../domain/creation-record';
import type { CreationError } from '../../domain/refusal';
import type { Resolution } from '../../domain/resolve';
import { releaseLocks } from '../../locks/fulfillment-order-locks';
import { allowedSql, endSql } from './phase-sql';

/** `needs_attention`: the outcome is unclear; the fulfillment orders stay locked. */
export async function enterNeedsAttention(
  em: EntityManager,
  input: { id: string; attention: StoredAttention; now: Date },
): Promise<void> {
  await em.execute(
    `update label_creations set ${endSql('need_attention')}, attention = ?::jsonb, updated_at = ?
      where id = ? and ${allowedSql('need_attention')}`,
    [JSON.stringify(input.attention), input.now, input.id],
  );
}

/**
 * A look at the carrier while the creation needs attention changed what is known (a late acceptance: the shipment
 * exists, with its reference): `not_created` is refused from now on.
 */
export async function updateAttention(
  em: EntityManager,
  input: { id: string; attention: StoredAttention; now: Date },
): Promise<void> {
  await em.execute(
    `update label_creations set attention = ?::jsonb, updated_at = ? where id = ? and ${allowedSql('learn')}`,
    [JSON.stringify(input.attention), input.now, input.id],
  );
}

/**
 * Resolve `not_created`: `failed` with `resolved_not_created`; the locks and the key are released, so the same key
 * can try again. Only from `needs_attention`; the resolution is recorded with who gave it.
 */
export async function resolveNotCreated(
  orm: Orm,
  input: { id: string; error: CreationError; resolution: Resolution; now: Date },
): Promise<void> {
  await inTransaction(orm, async (tx) => {
    await tx.execute(
      `update label_creations set ${endSql('resolve_not_created')}, created = false, error = ?::jsonb,
              resolution = ?::jsonb, key_bound = false, updated_at = ?
        where id = ? and ${allowedSql('resolve_not_created')}`,
      [JSON.stringify(input.error), JSON.stringify(input.resolution), input.now, input.id],
    );
    await releaseLocks(tx, input.id);
  });
}

/**
 * `abandoned`, by resolve `shipment_exists` (with its resolution) or after 24 hours in `needs_attention` (none): the
 * locks are released, the key stays bound, and the creation keeps blocking its fulfillment orders for new API labels
 * until its record is deleted (`deleteAbandonedCreation`).
 */
export async function abandonCreation(
  orm: Orm,
  input: { id: string; resolution: Resolution | null; now: Date },
): Promise<void> {
  await inTransaction(orm, async (tx) => {
    await tx.execute(
      `update label_creations set ${endSql('abandon')}, resolution = ?::jsonb, updated_at = ?
        where id = ? and ${allowedSql('abandon')}`,
      [input.resolution ? JSON.stringify(input.resolution) : null, input.now, input.id],
    );
    await releaseLocks(tx, input.id);
  });
}

/** Spec: an abandoned creation's record is deleted 90 days after creation; its labels stay. */
export async function deleteAbandonedCreation(em: EntityManager, id: string): Promise<boolean> {
  const deleted = await em.execute<Array<{ id: string }>>(
    `delete from label_creations where id = ? and status = 'abandoned' returning id`,
    [id],
  );
  return deleted.length > 0;
}

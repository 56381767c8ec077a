import { randomUUID } from 'node:crypto';
import type { Orm } from '../db/orm';
import { inTransaction } from '../db/transaction';
import { DomainError } from '../domain/errors';

export const RENDERS_PER_STORE = 3;
/** A lease outlives a crashed API process by at most this long. */
const LEASE_MS = 60_000;

/**
 * Rendering at the carrier is limited across all API processes (spec "Limits" and `render_in_progress`): one render
 * per label and format (`Retry-After: 2`) and at most 3 per store (`Retry-After: 5`). Leases live in PostgreSQL, so
 * every process sees them. A per-store transaction lock serialises the check-and-insert; every statement runs on the
 * transaction's own connection (`tx.execute`), so the lock holds until the lease row is committed.
 */
export async function withRenderLease<T>(
  orm: Orm,
  input: { storeId: string; labelId: string; format: string; now: Date },
  render: () => Promise<T>,
): Promise<T> {
  const owner = randomUUID();
  await inTransaction(orm, async (tx) => {
    await tx.execute('select pg_advisory_xact_lock(hashtext(?))', [`render:${input.storeId}`]);
    await tx.execute('delete from render_leases where store_id = ? and expires_at <= ?', [input.storeId, input.now]);
    const leases = await tx.execute<Array<{ label_id: string; format: string }>>(
      'select label_id, format from render_leases where store_id = ?',
      [input.storeId],
    );
    if (leases.some((l) => l.label_id === input.labelId && l.format === input.format)) {
      throw new DomainError('render_in_progress', {
        message: 'This label is being rendered in this format; try again shortly.',
        details: { label_id: input.labelId },
        retryAfterSeconds: 2,
      });
    }
    if (leases.length >= RENDERS_PER_STORE) {
      throw new DomainError('render_in_progress', {
        message: `The store has ${RENDERS_PER_STORE} renders running.`,
        details: { label_id: input.labelId, concurrency_limit: RENDERS_PER_STORE },
        retryAfterSeconds: 5,
      });
    }
    await tx.execute(
      'insert into render_leases (label_id, format, store_id, owner, acquired_at, expires_at) values (?, ?, ?, ?, ?, ?)',
      [input.labelId, input.format, input.storeId, owner, input.now, new Date(input.now.getTime() + LEASE_MS)],
    );
  });
  try {
    return await render();
  } finally {
    // Only our own lease: after an expiry another render may hold this label and format now.
    await orm.em
      .fork()
      .execute('delete from render_leases where label_id = ? and format = ? and owner = ?', [
        input.labelId,
        input.format,
        owner,
      ]);
  }
}

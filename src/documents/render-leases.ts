import type { Orm } from '../db/orm';
import { ApiError } from '../http/api-error';

export const RENDERS_PER_STORE = 3;
/** A lease outlives a crashed API process by at most this long. */
const LEASE_MS = 60_000;

/**
 * Rendering at the carrier is limited across all API processes (spec "Limits" and `render_in_progress`): one render
 * per label and format (`Retry-After: 2`) and at most 3 per store (`Retry-After: 5`). Leases live in PostgreSQL, so
 * every process sees them; a per-store transaction lock serialises the check-and-insert.
 */
export async function withRenderLease<T>(
  orm: Orm,
  input: { storeId: string; labelId: string; format: string; now: Date },
  render: () => Promise<T>,
): Promise<T> {
  await orm.em.fork().transactional(async (em) => {
    const conn = em.getConnection();
    await conn.execute('select pg_advisory_xact_lock(hashtext(?))', [`render:${input.storeId}`]);
    await conn.execute('delete from render_leases where store_id = ? and expires_at <= ?', [input.storeId, input.now]);
    const leases = await conn.execute<Array<{ label_id: string; format: string }>>(
      'select label_id, format from render_leases where store_id = ?',
      [input.storeId],
    );
    if (leases.some((l) => l.label_id === input.labelId && l.format === input.format)) {
      throw new ApiError('render_in_progress', {
        message: 'This label is being rendered in this format; try again shortly.',
        details: { label_id: input.labelId },
        headers: { 'Retry-After': '2' },
      });
    }
    if (leases.length >= RENDERS_PER_STORE) {
      throw new ApiError('render_in_progress', {
        message: `The store has ${RENDERS_PER_STORE} renders running.`,
        details: { label_id: input.labelId, concurrency_limit: RENDERS_PER_STORE },
        headers: { 'Retry-After': '5' },
      });
    }
    await conn.execute(
      'insert into render_leases (label_id, format, store_id, acquired_at, expires_at) values (?, ?, ?, ?, ?)',
      [input.labelId, input.format, input.storeId, input.now, new Date(input.now.getTime() + LEASE_MS)],
    );
  });
  try {
    return await render();
  } finally {
    await orm.em
      .fork()
      .getConnection()
      .execute('delete from render_leases where label_id = ? and format = ?', [input.labelId, input.format]);
  }
}

import { Pool, TypeOverrides } from 'pg';

// Timestamps stay strings, as MikroORM's driver hands them over: readers build the one Date they need.
const TIMESTAMPTZ = 1184;
const rawTimestamps = new TypeOverrides();
rawTimestamps.setTypeParser(TIMESTAMPTZ, (value: string) => value);

/**
 * The hot path's own pool of plain node-postgres connections (docs/decisions/0017-admission-in-one-statement.md):
 * every keyed request runs its admission statement here, and label reads their prepared statements, so neither waits
 * for a connection behind slow ORM work, and a named statement is parsed once per connection instead of being built
 * by the query builder on every request. `lock_timeout` is set per connection: a rate-limit counter row held too long
 * fails the statement (the API answers 503) instead of holding requests, and JIT is off. Reads here run outside any transaction.
 *
 * The pool's only writes are rate-limit counters and a key's `last_used_at`: they commit without waiting for the WAL
 * flush (`synchronous_commit=off`, docs/decisions/0026-counters-commit-without-flush.md), so a read no longer waits for
 * the disk. Other sessions see a commit at once either way; a PostgreSQL crash can lose the last few hundred
 * milliseconds of counts, never a label or a creation (those go through the ORM's pool, which flushes every commit).
 */
export function openHotPool(databaseUrl: string, options: { lockTimeoutMs: number; max: number }): Pool {
  const pool = new Pool({
    connectionString: databaseUrl,
    max: options.max,
    types: rawTimestamps,
    // Short OLTP statements only: JIT compilation would cost more than any of them runs.
    options: `-c lock_timeout=${Math.max(1, Math.round(options.lockTimeoutMs))} -c jit=off -c synchronous_commit=off`,
  });
  // An idle connection that breaks is dropped by the pool; the next request opens another (or answers 503).
  pool.on('error', () => undefined);
  return pool;
}

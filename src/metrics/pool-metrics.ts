import type { MetricMeter } from '@temporalio/common';
import type { Pool } from 'pg';
import { Gauge, type Registry } from 'prom-client';
import type { Orm } from '../db/orm';

/**
 * Database pool usage (docs/decisions/0900-port-and-state-metrics.md): connections in use and requests waiting for one,
 * per pool, beside the pool's maximum. The API reports on scrape; the worker every few seconds through the SDK's meter.
 */
export interface PoolUsage {
  inUse: number;
  waiting: number;
  max: number;
}

export interface PoolReader {
  /** `orm` (MikroORM's knex pool) or `hot` (the API's rate-limit and key pool). */
  pool: string;
  read: () => PoolUsage;
}

interface TarnPool {
  numUsed(): number;
  numPendingAcquires(): number;
  numPendingCreates(): number;
  max: number;
}

/** MikroORM's knex pool (tarn): acquired connections, and acquires waiting (for a free or a new connection). */
export function ormPoolReader(orm: Orm): PoolReader {
  const tarn = () => (orm.em.getKnex().client as { pool?: TarnPool }).pool;
  return {
    pool: 'orm',
    read: () => {
      const pool = tarn();
      return pool
        ? { inUse: pool.numUsed(), waiting: pool.numPendingAcquires(), max: pool.max }
        : { inUse: 0, waiting: 0, max: 0 };
    },
  };
}

/** node-postgres: what is not idle is in use. */
export function pgPoolReader(name: string, pool: Pool): PoolReader {
  return {
    pool: name,
    read: () => ({
      inUse: pool.totalCount - pool.idleCount,
      waiting: pool.waitingCount,
      max: (pool.options as { max?: number }).max ?? 10,
    }),
  };
}

const NAMES = {
  inUse: ['shipping_label_db_pool_in_use', 'Database connections in use, by pool'],
  waiting: ['shipping_label_db_pool_waiting', 'Queries waiting for a database connection, by pool'],
  max: ['shipping_label_db_pool_max', 'The most connections the pool opens'],
} as const;

export function registerPoolMetrics(registry: Registry, readers: PoolReader[]): void {
  for (const key of ['inUse', 'waiting', 'max'] as const) {
    const [name, help] = NAMES[key];
    new Gauge({
      name,
      help,
      labelNames: ['pool'] as const,
      registers: [registry],
      collect() {
        for (const reader of readers) this.set({ pool: reader.pool }, reader.read()[key]);
      },
    });
  }
}

/** The worker's pools on the SDK's meter, every `periodMs`. Returns a function that stops reporting. */
export function reportPoolUsage(readers: PoolReader[], meter: MetricMeter, periodMs = 5_000): () => void {
  const gauges = (['inUse', 'waiting', 'max'] as const).map(
    (key) => [key, meter.createGauge(NAMES[key][0], 'int', '', NAMES[key][1])] as const,
  );
  const tick = () => {
    for (const reader of readers) {
      const usage = reader.read();
      for (const [key, gauge] of gauges) gauge.set(usage[key], { pool: reader.pool });
    }
  };
  tick();
  const timer = setInterval(tick, periodMs);
  timer.unref();
  return () => clearInterval(timer);
}

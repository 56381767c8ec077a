import { InvalidArgumentError } from 'commander';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Config } from '../config';
import type { Orm } from '../db/orm';
import { Store } from '../db/entities/store';

/** A refusal the operator can act on: printed as one line, exit code 2. */
export class CliError extends Error {}

export type Row = Record<string, unknown>;

/** What `labelctl` lends its command groups: the database, output and store lookup. */
export interface CliKit {
  withOrm: <T>(fn: (em: EntityManager) => Promise<T>) => Promise<T>;
  config: () => Config;
  print: (value: Row | Row[], text: () => string) => void;
  table: (rows: Row[], columns: string[]) => string;
  findStore: (em: EntityManager, ref: string) => Promise<Store>;
}

/** The kit with the ORM itself, for groups that hand it to a service (carrier protection, webhooks, creations). */
export type CliKitWithOrm = CliKit & { orm: () => Promise<Orm> };

const cell = (value: unknown): string =>
  value === null || value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value);

export function table(rows: Row[], columns: string[]): string {
  if (rows.length === 0) return '(none)';
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => cell(r[c]).length)));
  const line = (cells: string[]) =>
    cells
      .map((text, i) => text.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [line(columns), ...rows.map((r) => line(columns.map((c) => cell(r[c]))))].join('\n');
}

export const bool = (value: string): boolean => {
  if (['true', 'on', 'yes', '1'].includes(value)) return true;
  if (['false', 'off', 'no', '0'].includes(value)) return false;
  throw new InvalidArgumentError('expected true or false');
};

export const positive = (value: string): number => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('expected a positive whole number');
  return n;
};

/** A store by its ID (`st_...`) or its platform domain. */
export async function findStore(em: EntityManager, ref: string): Promise<Store> {
  const store = await em.findOne(Store, ref.startsWith('st_') ? { id: ref } : { domain: ref });
  if (!store) throw new CliError(`no store ${ref}`);
  return store;
}

import { Migrator } from '@mikro-orm/migrations';
import { migrationsList } from './migrations';
import type { Orm } from './orm';

/**
 * Schema changes happen only through migrations, never `schema.update`. The migrator and the migrations are a module of
 * their own, imported by the processes that migrate (the migrate step, the test setup): every other process, labelctl
 * above all, opens the ORM without loading them.
 */
export async function migrate(orm: Orm): Promise<string[]> {
  orm.config.set('migrations', { ...orm.config.get('migrations'), migrationsList });
  Migrator.register(orm);
  const applied = await orm.migrator.up();
  return applied.map((m) => m.name);
}

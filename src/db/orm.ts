import { MikroORM, type Options } from '@mikro-orm/core';
import { Migrator } from '@mikro-orm/migrations';
import { PostgreSqlDriver } from '@mikro-orm/postgresql';
import { entities } from './entities';
import { migrationsList } from './migrations';

export type Orm = MikroORM<PostgreSqlDriver>;

export function ormOptions(databaseUrl: string): Options<PostgreSqlDriver> {
  return {
    driver: PostgreSqlDriver,
    clientUrl: databaseUrl,
    entities,
    extensions: [Migrator],
    discovery: { disableDynamicFileAccess: true, requireEntitiesArray: true },
    migrations: {
      silent: true,
      migrationsList,
      transactional: true,
      allOrNothing: true,
      snapshot: false,
      tableName: 'mikro_orm_migrations',
    },
    // Every request and activity forks its own EntityManager; a global one would share identity maps.
    allowGlobalContext: false,
    forceUtcTimezone: true,
    pool: { min: 0, max: 10 },
    debug: false,
  };
}

export async function openOrm(databaseUrl: string): Promise<Orm> {
  return MikroORM.init<PostgreSqlDriver>(ormOptions(databaseUrl));
}

/** Schema changes happen only through migrations, never `schema.update`. */
export async function migrate(orm: Orm): Promise<string[]> {
  const applied = await orm.getMigrator().up();
  return applied.map((m) => m.name);
}

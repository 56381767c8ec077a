import { MikroORM, type Options } from '@mikro-orm/core';
import { PostgreSqlDriver } from '@mikro-orm/postgresql';
import { entities } from './entities';

export type Orm = MikroORM<PostgreSqlDriver>;

/** How migrations run; src/db/migrator.ts adds the migrator and its list to an ORM that migrates. */
const MIGRATION_OPTIONS = {
  silent: true,
  transactional: true,
  allOrNothing: true,
  snapshot: false,
  tableName: 'mikro_orm_migrations',
};

export function ormOptions(databaseUrl: string): Options<PostgreSqlDriver> {
  return {
    driver: PostgreSqlDriver,
    clientUrl: databaseUrl,
    entities,
    discovery: { disableDynamicFileAccess: true, requireEntitiesArray: true },
    migrations: MIGRATION_OPTIONS,
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

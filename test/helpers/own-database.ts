import { Client } from 'pg';
import { migrate } from '../../src/db/migrator';
import { openOrm } from '../../src/db/orm';

/**
 * A migrated database of the test's own beside the run's, for a test whose subject counts across every store (the
 * platform-wide creation queue, Packeta's one network) or that breaks the schema on purpose: tests running in parallel
 * on the run's database would count too, or fail. `drop` removes it.
 */
export async function aDatabaseOfItsOwn(): Promise<{ url: string; drop(): Promise<void> }> {
  const url = new URL(process.env.DATABASE_URL!);
  const name = `${url.pathname.slice(1)}_own_${Math.random().toString(36).slice(2, 8)}`;
  const admin = async (sql: string) => {
    const client = new Client({ connectionString: url.toString() });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`create database "${name}"`);
  const own = new URL(url);
  own.pathname = `/${name}`;
  const orm = await openOrm(own.toString());
  try {
    await migrate(orm);
  } finally {
    await orm.close();
  }
  return { url: own.toString(), drop: () => admin(`drop database if exists "${name}" with (force)`) };
}

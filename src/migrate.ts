import { loadConfig } from './config';
import { migrate } from './db/migrator';
import { openOrm } from './db/orm';

async function main(): Promise<void> {
  const config = loadConfig();
  const orm = await openOrm(config.databaseUrl);
  try {
    const applied = await migrate(orm);
    process.stderr.write(`[migrate] ${applied.length ? `applied ${applied.join(', ')}` : 'schema up to date'}\n`);
  } finally {
    await orm.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`[migrate] ${(error as Error).message}\n`);
  process.exit(1);
});

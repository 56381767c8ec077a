import { Client } from 'pg';
import { labelPageStatement, readLabelPage } from '../../src/db/labels-query';
import { limitClause } from '../../src/db/prepared';
import { statementName } from '../../src/db/prepared';
import { someLabels } from '../helpers/labels';
import { aStoreWithKey } from '../helpers/stores';
import { startTestApp, type TestApp } from '../helpers/test-app';

// A page of labels is a prepared statement run on every list request. PostgreSQL plans a prepared statement afresh on
// each run unless it settles on the generic plan; with the LIMIT bound as a parameter it never did, and planning the
// page cost more than running it (decision 0017). The limit is written into the statement instead.
let app: TestApp;
let client: Client;
beforeAll(async () => {
  app = await startTestApp();
  client = new Client({ connectionString: app.config.databaseUrl });
  await client.connect();
});
afterAll(async () => {
  await client.end();
  await app.close();
});

/** Runs the statement `times` times on one connection, as the hot pool does, and reads how PostgreSQL planned it. */
async function plansOf(statement: { text: string; values: unknown[] }, times: number) {
  const name = statementName(statement.text);
  for (let i = 0; i < times; i += 1) await client.query({ name, text: statement.text, values: statement.values });
  const { rows } = await client.query<{ generic_plans: string; custom_plans: string }>(
    'select generic_plans, custom_plans from pg_prepared_statements where name = $1',
    [name],
  );
  return { generic: Number(rows[0]!.generic_plans), custom: Number(rows[0]!.custom_plans) };
}

describe('the prepared page of labels', () => {
  it('settles on its generic plan: the first page and a page after a cursor are not planned on every run', async () => {
    const { storeId } = await aStoreWithKey(app.orm);
    await someLabels(
      app.orm,
      storeId,
      Array.from({ length: 60 }, () => ({})),
    );
    const filters = { storeId, order: 'desc' as const };
    const first = labelPageStatement(filters, null, 50)!;
    const firstPage = await readLabelPage(app.orm.em.fork(), filters, null, 50);
    const next = labelPageStatement(filters, firstPage.lastRead, 50)!;

    expect(first.text).toMatch(/ limit 51$/);
    expect(first.values).toEqual([storeId]);
    // PostgreSQL plans the first five runs for their values, then keeps the generic plan when it is as good.
    expect(await plansOf(first, 10)).toEqual({ generic: 5, custom: 5 });
    expect(await plansOf(next, 10)).toEqual({ generic: 5, custom: 5 });
    const rows = await client.query({ name: statementName(next.text), text: next.text, values: next.values });
    expect(rows.rows).toHaveLength(10);
  });

  it('refuses a limit that is not a positive integer before it reaches a statement', () => {
    expect(limitClause(251)).toBe('limit 251');
    for (const bad of [0, -1, 1.5, Number.NaN, Number.MAX_SAFE_INTEGER + 2]) expect(() => limitClause(bad)).toThrow();
  });
});

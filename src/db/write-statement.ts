/**
 * One SQL write built from parts: data-modifying CTEs and a main statement, sent as one statement (one round trip,
 * one snapshot). PostgreSQL runs every data-modifying CTE to completion whether or not the main statement reads it.
 * Bindings are `?` placeholders, in the order the parts are listed.
 */
export interface SqlPart {
  sql: string;
  values: readonly unknown[];
}

export interface WriteStatement {
  ctes: ReadonlyArray<SqlPart & { name: string }>;
  main: SqlPart;
}

export function renderWrite(write: WriteStatement): { sql: string; values: unknown[] } {
  const values: unknown[] = [];
  const ctes = write.ctes.map((cte) => {
    values.push(...cte.values);
    return `${cte.name} as (${cte.sql})`;
  });
  values.push(...write.main.values);
  return { sql: ctes.length > 0 ? `with ${ctes.join(',\n')}\n${write.main.sql}` : write.main.sql, values };
}

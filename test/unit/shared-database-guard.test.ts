import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

// The files of the integration, docs and Shopify projects run side by side on one database (the run's). A test that
// changes its schema or empties a table there fails the requests of every file running beside it, at random: a
// renamed rate-limit table answered other files' reads with 500 `internal_error` under load (issue 54). Such a test
// takes a database of its own (test/helpers/own-database.ts).
const root = join(__dirname, '..', '..');
const SHARED_DATABASE_DIRS = ['test/integration', 'test/docs'];

/** Statements that change what every file sees: the schema, or a whole table. */
const DESTRUCTIVE = /\b(alter\s+table|drop\s+table|drop\s+index|truncate|create\s+index|drop\s+schema)\b/i;

function testFiles(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => relative(root, join(entry.parentPath, entry.name)));
}

/** `file:line: text` of each destructive statement in a file that has no database of its own. */
function unguardedStatements(file: string, text: string): string[] {
  if (text.includes('aDatabaseOfItsOwn(')) return [];
  return text
    .split('\n')
    .map((line, index) => ({ line, index }))
    .filter(({ line }) => /['"`]/.test(line) && DESTRUCTIVE.test(line))
    .map(({ line, index }) => `${file}:${index + 1}: ${line.trim()}`);
}

describe('tests that share the run database', () => {
  it('never change its schema or empty its tables', () => {
    const found = SHARED_DATABASE_DIRS.flatMap(testFiles).flatMap((file) =>
      unguardedStatements(file, readFileSync(join(root, file), 'utf8')),
    );
    expect(found).toEqual([]);
  });

  it('finds such a statement in a file without a database of its own, and not in one with', () => {
    const renames = "await holder.query('alter table rate_limit_counters rename to gone');";
    expect(unguardedStatements('a.test.ts', renames)).toEqual([`a.test.ts:1: ${renames}`]);
    expect(unguardedStatements('b.test.ts', `const db = await aDatabaseOfItsOwn();\n${renames}`)).toEqual([]);
    expect(unguardedStatements('c.test.ts', "await em.execute('truncate packeta_pickup_points');")).toHaveLength(1);
    // Prose about such statements is not one.
    expect(unguardedStatements('d.test.ts', '// a test that would truncate a table')).toEqual([]);
  });
});

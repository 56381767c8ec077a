import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The TypeScript snippets of docs/client.md compile against the client as it is (client/src over the generated
 * types): a merchant copying one gets no type error, e.g. `labelPages(api, { limit: 5 })` once `limit` is typed as the
 * spec types it. Each snippet is a module of its own, as it would be in a merchant's project.
 */
const root = join(__dirname, '..', '..');
const documents = ['docs/client.md'];

function snippetsOf(file: string): Array<{ name: string; code: string }> {
  const text = readFileSync(join(root, file), 'utf8');
  return [...text.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((match, index) => ({
    name: `${file.replace(/[^a-z0-9]+/gi, '-')}-${index + 1}.mts`,
    code: match[1]!,
  }));
}

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'client-snippets-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('compiles every TypeScript snippet of the client documentation', () => {
  const snippets = documents.flatMap(snippetsOf);
  expect(snippets.length).toBeGreaterThanOrEqual(2);
  expect(snippets.some((s) => s.code.includes('limit: 5'))).toBe(true);
  for (const snippet of snippets) writeFileSync(join(dir, snippet.name), snippet.code);
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        lib: ['ES2023'],
        module: 'nodenext',
        moduleResolution: 'nodenext',
        strict: true,
        noUncheckedIndexedAccess: true,
        noEmit: true,
        skipLibCheck: true,
        types: ['node'],
        typeRoots: [join(root, 'node_modules', '@types')],
        // The package's name, as a merchant imports it, resolved to its source in this checkout.
        paths: { '@shipping-label-api/client': [join(root, 'client', 'src', 'index.ts')] },
      },
      files: snippets.map((s) => s.name),
    }),
  );
  const tsc = spawnSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', dir], {
    encoding: 'utf8',
  });
  expect(`${tsc.stdout}${tsc.stderr}`.trim()).toBe('');
  expect(tsc.status).toBe(0);
}, 60_000);

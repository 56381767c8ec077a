import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * bin/labelctl.js in a checkout runs the source through a compile cache (esbuild, node_modules/.cache/labelctl/), which
 * follows every change of a source file it holds; without esbuild (the production image) it runs dist/. Tried on a
 * checkout of its own with a two-file CLI.
 */
const root = join(__dirname, '..', '..');
let checkout: string;
beforeEach(() => {
  checkout = mkdtempSync(join(tmpdir(), 'labelctl-entry-'));
  mkdirSync(join(checkout, 'bin'));
  cpSync(join(root, 'bin', 'labelctl.js'), join(checkout, 'bin', 'labelctl.js'));
  writeFileSync(join(checkout, 'package.json'), '{"name":"checkout","private":true}');
  mkdirSync(join(checkout, 'src', 'cli'), { recursive: true });
  writeFileSync(
    join(checkout, 'src', 'cli', 'labelctl.ts'),
    "import { greeting } from './greeting';\nconst name: string = process.argv[2] ?? 'nobody';\nprocess.stdout.write(`${greeting} ${name}`);\n",
  );
  writeFileSync(join(checkout, 'src', 'cli', 'greeting.ts'), "export const greeting: string = 'hello';\n");
});
afterEach(() => rmSync(checkout, { recursive: true, force: true }));

const run = (...args: string[]) =>
  execFileSync(process.execPath, [join(checkout, 'bin', 'labelctl.js'), ...args], { encoding: 'utf8' });
const withEsbuild = () => {
  mkdirSync(join(checkout, 'node_modules'));
  symlinkSync(join(root, 'node_modules', 'esbuild'), join(checkout, 'node_modules', 'esbuild'));
};

it('compiles the source once and again after any file it holds changed', () => {
  withEsbuild();
  expect(run('operator')).toBe('hello operator');
  const manifest = JSON.parse(
    readFileSync(join(checkout, 'node_modules', '.cache', 'labelctl', 'manifest.json'), 'utf8'),
  );
  expect(Object.keys(manifest.inputs).sort()).toEqual(['src/cli/greeting.ts', 'src/cli/labelctl.ts']);
  expect(run('again')).toBe('hello again');
  // An imported file changes (its size too, so a coarse clock cannot hide it).
  writeFileSync(join(checkout, 'src', 'cli', 'greeting.ts'), "export const greeting: string = 'good morning';\n");
  expect(run('operator')).toBe('good morning operator');
});

it('runs the compiled output of npm run build where esbuild is not installed', () => {
  mkdirSync(join(checkout, 'dist', 'src', 'cli'), { recursive: true });
  writeFileSync(join(checkout, 'dist', 'src', 'cli', 'labelctl.js'), "process.stdout.write('from dist');\n");
  expect(run()).toBe('from dist');
  expect(existsSync(join(checkout, 'node_modules', '.cache', 'labelctl'))).toBe(false);
});

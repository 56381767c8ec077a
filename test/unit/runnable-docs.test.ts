import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { outputMatches, runnableBlocks, runnablePages, withPorts } from '../helpers/runnable-docs';

const root = join(__dirname, '..', '..');
const pages = runnablePages(root);
const read = (page: string) => readFileSync(join(root, page), 'utf8');

describe('runnableBlocks', () => {
  it('splits a block into steps, each with the lines it shows', () => {
    const page = [
      'Text.',
      '```sh runnable',
      'export A=1',
      'echo $A \\',
      '  more',
      '#> 1 more',
      '# a comment',
      'echo two',
      '#> two',
      '#>',
      'true',
      '```',
      '```sh',
      'not run',
      '```',
      '```sh runnable retry',
      'curl x',
      '```',
    ].join('\n');
    expect(runnableBlocks('p.md', page)).toEqual([
      {
        file: 'p.md',
        line: 2,
        retry: false,
        steps: [
          { commands: 'export A=1\necho $A \\\n  more', expected: ['1 more'] },
          { commands: '# a comment\necho two', expected: ['two', ''] },
          { commands: 'true', expected: null },
        ],
      },
      { file: 'p.md', line: 16, retry: true, steps: [{ commands: 'curl x', expected: null }] },
    ]);
  });

  it('refuses a runnable fence it does not know and a block left open', () => {
    expect(() => runnableBlocks('p.md', '```sh runnable twice\n```')).toThrow(/p\.md:1: unknown runnable fence/);
    expect(() => runnableBlocks('p.md', 'x\n```sh runnable\necho')).toThrow(/p\.md:2: .*without its closing fence/);
  });
});

describe('outputMatches', () => {
  it.each<[string, string[], string, boolean]>([
    ['the same lines', ['a', 'b'], 'a\nb\n', true],
    ['trailing spaces and blank lines', ['a'], 'a  \n\n\n', true],
    ['a line more', ['a'], 'a\nb', false],
    ['a line less', ['a', 'b'], 'a', false],
    ['... within a line', ['lbl_... ready'], 'lbl_S5mJ6zWc ready', true],
    ['... within a line, not across', ['lbl_... ready'], 'lbl_S5mJ6zWc\nready', false],
    ['... as a line: none', ['a', '...', 'b'], 'a\nb', true],
    ['... as a line: several', ['a', '...', 'b'], 'a\nx\ny\nb', true],
    ['... alone: anything', ['...'], 'whatever\nit\nprinted', true],
    ['regex characters are text', ['1.5 (x)'], '105 (x)', false],
    ['nothing printed, nothing shown', [], '', true],
    ['a carriage return ends a header line', ['idempotency-replayed: true'], 'idempotency-replayed: true\r\n', true],
  ])('%s', (_name, expected, output, matches) => {
    expect(outputMatches(expected, output)).toBe(matches);
  });
});

it('withPorts moves the default ports of npm run dev to those of the stack under test', () => {
  expect(
    withPorts('curl http://127.0.0.1:3000/v1 http://127.0.0.1:4010/x 127.0.0.1:5432', { 3000: 4567, 4010: 4568 }),
  ).toBe('curl http://127.0.0.1:4567/v1 http://127.0.0.1:4568/x 127.0.0.1:5432');
});

describe('the README and docs/', () => {
  it('mark their examples runnable in blocks the docs test can read', () => {
    const blocks = pages.flatMap((page) => runnableBlocks(page, read(page)));
    expect(blocks.filter((b) => b.file === 'README.md').length).toBeGreaterThanOrEqual(3);
    // Every README block a newcomer pastes is run, but the two commands that start and test the service.
    const plain = [...read('README.md').matchAll(/^```sh\n([^`]*)```/gm)].map((m) => m[1]!.trim());
    expect(plain).toEqual([expect.stringMatching(/^npm run dev .*\nnpm test /s)]);
  });

  it('link to files that exist', () => {
    const missing: string[] = [];
    for (const page of pages) {
      for (const [, target] of read(page).matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)) {
        if (/^[a-z]+:/.test(target!)) continue;
        if (!existsSync(join(root, dirname(page), target!))) missing.push(`${page}: ${target}`);
      }
    }
    expect(missing).toEqual([]);
  });
});

describe('docs/decisions', () => {
  const files = readdirSync(join(root, 'docs', 'decisions')).filter((name) => name.endsWith('.md'));

  it('numbers each decision once, and a title that carries a number carries its own', () => {
    const numbers = files.map((name) => name.slice(0, 4));
    expect(numbers.every((n) => /^\d{4}$/.test(n))).toBe(true);
    expect(numbers.filter((n, i) => numbers.indexOf(n) !== i)).toEqual([]);
    const titled = files.map((name) => {
      const title = readFileSync(join(root, 'docs', 'decisions', name), 'utf8').split('\n')[0]!;
      return [name, /^# (\d{4})\b/.exec(title)?.[1] ?? name.slice(0, 4)];
    });
    expect(titled.filter(([name, number]) => name!.slice(0, 4) !== number)).toEqual([]);
  });
});

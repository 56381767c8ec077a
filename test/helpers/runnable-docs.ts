import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The runnable examples of the README and docs/ (decision 0040): a fenced block opened with ```sh runnable is run by
 * test/docs/docs-as-pasted.test.ts exactly as a reader pastes it, in the order the pages give them. Inside a block, a
 * line starting `#>` shows what the commands above it print (a comment to a shell, so the block still pastes); `...`
 * stands for any text within a line, and a `#> ...` line alone for any number of lines. ```sh runnable retry marks a
 * block whose text says it answers so once something it waits for happened (a webhook delivered, a time passed): it
 * is run again until it does.
 */

/** The pages with runnable examples, in the order a newcomer reads them: the README, the client's, then docs/ by name. */
export function runnablePages(root: string): string[] {
  const docs = readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`);
  return ['README.md', 'client/README.md', ...docs].filter((page) => existsSync(join(root, page)));
}

export interface Step {
  /** The commands, as pasted (comments and continuation lines included). */
  commands: string;
  /** What the commands print, as the page shows it; null when the page shows nothing. */
  expected: string[] | null;
}

export interface RunnableBlock {
  file: string;
  /** The line of the opening fence, from 1. */
  line: number;
  retry: boolean;
  steps: Step[];
}

const OPENING = /^```sh runnable( retry)?\s*$/;
const EXPECTED = /^#>(?: (.*))?$/;

/** The runnable blocks of a markdown page, in order; a runnable fence with anything else after it is refused. */
export function runnableBlocks(file: string, markdown: string): RunnableBlock[] {
  const lines = markdown.split('\n');
  const blocks: RunnableBlock[] = [];
  for (let i = 0; i < lines.length; i += 1) {
    const fence = lines[i]!;
    if (!fence.startsWith('```sh runnable')) continue;
    const opening = OPENING.exec(fence);
    if (!opening) throw new Error(`${file}:${i + 1}: unknown runnable fence ${JSON.stringify(fence)}`);
    const start = i;
    const body: string[] = [];
    for (i += 1; i < lines.length && lines[i] !== '```'; i += 1) body.push(lines[i]!);
    if (i >= lines.length) throw new Error(`${file}:${start + 1}: runnable block without its closing fence`);
    blocks.push({ file, line: start + 1, retry: opening[1] !== undefined, steps: stepsOf(body) });
  }
  return blocks;
}

function stepsOf(body: string[]): Step[] {
  const steps: Step[] = [];
  let commands: string[] = [];
  let expected: string[] | null = null;
  const flush = () => {
    if (commands.some((l) => l.trim() !== '')) steps.push({ commands: commands.join('\n').trim(), expected });
    commands = [];
    expected = null;
  };
  for (const line of body) {
    const match = EXPECTED.exec(line);
    if (match) {
      expected = [...(expected ?? []), match[1] ?? ''];
      continue;
    }
    if (expected !== null) flush();
    commands.push(line);
  }
  flush();
  return steps;
}

/** One expected line as a pattern: `...` any text, the rest as written. */
function linePattern(expected: string): RegExp {
  const parts = expected.split('...').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${parts.join('.*')}$`, 's');
}

/**
 * Whether `output` is what `expected` shows: line by line, trailing spaces and blank lines at the end ignored, `...`
 * within a line any text, a `...` line any number of lines.
 */
export function outputMatches(expected: readonly string[], output: string): boolean {
  const actual = output
    .split('\n')
    .map((l) => l.trimEnd())
    .join('\n')
    .replace(/\n+$/, '')
    .split('\n');
  const wanted = expected.map((l) => l.trimEnd());
  while (wanted.length > 0 && wanted[wanted.length - 1] === '') wanted.pop();
  const memo = new Map<string, boolean>();
  const match = (w: number, a: number): boolean => {
    const key = `${w}:${a}`;
    const known = memo.get(key);
    if (known !== undefined) return known;
    let result: boolean;
    if (w === wanted.length) result = a === actual.length || (a === actual.length - 1 && actual[a] === '');
    else if (wanted[w] === '...') result = match(w + 1, a) || (a < actual.length && match(w, a + 1));
    else result = a < actual.length && linePattern(wanted[w]!).test(actual[a]!) && match(w + 1, a + 1);
    memo.set(key, result);
    return result;
  };
  return match(0, 0);
}

/** A page's text with the addresses of `npm run dev`'s default ports replaced by those of the stack a test runs. */
export function withPorts(text: string, ports: Readonly<Record<number, number>>): string {
  return text.replace(/127\.0\.0\.1:(\d+)/g, (whole, port: string) =>
    ports[Number(port)] === undefined ? whole : `127.0.0.1:${ports[Number(port)]}`,
  );
}

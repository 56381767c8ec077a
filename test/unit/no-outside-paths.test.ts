import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

// Nothing in the repository refers to a file outside it (issue 54, decision 1154): a reader of a clone cannot open the
// notes, specification or scratch files of the machine something was written on. The specification is cited by its
// sections ("the specification, section ..."), figures measured elsewhere are restated where they are used with where
// and when they were measured, and scratch files go under the checkout's ignored `.data/`.
const root = join(__dirname, '..', '..');

/** The patterns, written apart so that this file does not match them itself. */
const OUTSIDE = [
  ['/wo', 'rk/'],
  ['/t', 'mp/'],
  ['\\.\\./sha', 'red/'],
  ['(^|[^\\w.-])sha', 'red/(spec|reference|conventions|temporal-notes)'],
].map((parts) => new RegExp(parts.join('')));

/**
 * Recorded Temporal histories keep the stack traces of the machine that recorded them, as Temporal wrote them: data
 * the replay test reads, not a reference a reader follows.
 */
const RECORDED = /^test\/replay\/histories\//;

/** The repository's files: committed, and new ones not ignored (so the check holds before a commit too). */
function repositoryFiles(): string[] {
  const listed = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], {
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  return [...new Set(listed.split('\0').filter(Boolean))];
}

/** `file:line: text` of every line of a text file under `root` that names a path outside the repository. */
function outsideReferences(files: string[]): string[] {
  const found: string[] = [];
  for (const file of files.filter((f) => !RECORDED.test(f))) {
    let text: string;
    try {
      text = readFileSync(join(root, file), 'utf8');
    } catch {
      continue; // listed but deleted in the working tree
    }
    if (text.includes('\0')) continue; // binary
    text.split('\n').forEach((line, i) => {
      if (OUTSIDE.some((pattern) => pattern.test(line))) found.push(`${file}:${i + 1}: ${line.trim().slice(0, 160)}`);
    });
  }
  return found;
}

describe('the repository stands alone', () => {
  it('no text file refers to a file outside the repository', () => {
    expect(outsideReferences(repositoryFiles())).toEqual([]);
  });

  it('the check finds such references: absolute notes, the shared specification, scratch files', () => {
    const lines = [
      'see ' + '/wo' + 'rk/shared/notes.md',
      'the contract (' + 'sha' + 'red/spec/pickup-point-provider.md)',
      'measured in ' + '/t' + 'mp/ci0',
      '../sha' + 'red/conventions.md',
    ];
    for (const line of lines) expect(OUTSIDE.some((pattern) => pattern.test(line))).toBe(true);
    for (const line of ['the specification, section Limits', 'src/shared/ids.ts', '.data/dev-session.log']) {
      expect(OUTSIDE.some((pattern) => pattern.test(line))).toBe(false);
    }
  });
});

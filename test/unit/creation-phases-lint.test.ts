import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

// The lint rules of eslint.config.mjs that keep a creation's phase changes in the phase table (decision 1110), run
// on code samples placed at real paths: the blocks' own `files`/`ignores` decide where each rule holds. Their
// plugin is the config's; the parser is typescript-eslint's without type information (the rules need none).
const root = join(__dirname, '..', '..');

interface Finding {
  file: string;
  rule: string | null;
  line: number;
}

function lint(samples: Array<{ file: string; code: string }>): Finding[] {
  const script = `
    import { Linter } from 'eslint';
    import tseslint from 'typescript-eslint';
    import { creationPhasesBlocks } from './eslint.config.mjs';
    const config = [{ files: ['**/*.ts'], languageOptions: { parser: tseslint.parser } }, ...creationPhasesBlocks];
    const linter = new Linter({ configType: 'flat', cwd: process.cwd() });
    const samples = JSON.parse(process.argv[1]);
    const found = samples.flatMap(({ file, code }) =>
      linter.verify(code, config, { filename: file }).map((m) => ({ file, rule: m.ruleId, line: m.line })),
    );
    process.stdout.write(JSON.stringify(found));`;
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script, JSON.stringify(samples)], {
    cwd: root,
    encoding: 'utf8',
  });
  if (run.status !== 0) throw new Error(run.stderr);
  return JSON.parse(run.stdout) as Finding[];
}

const STATE_WRITES = [
  "run.state.phase = 'finalizing';",
  'run.state.labelIds = [labelId];',
  'this.state.attention.carrierNote = null;',
  "state.status = 'failed';",
  'run.state = next;',
  'run.state.attempts++;',
  'delete run.state.error;',
  'Object.assign(run.state, { phase: null });',
].join('\n');
const STATE_READS = [
  "if (run.state.status === 'processing') run.apply({ kind: 'finalize' });",
  'const phase = run.state.phase;',
  'this.current = next;',
].join('\n');
const RECORD_WRITES = [
  "const a = `update label_creations set status = 'failed', phase = null where id = ?`;",
  "const b = 'update label_creations set attention = ?::jsonb, phase = null where id = ?';",
  "const c = `update label_creations c set sent_at = ?, phase = 'sending_to_carrier' where c.id = ?`;",
].join('\n');
const RECORD_OTHER_WRITES = [
  "const a = `update label_creations set order_name = ? where id = ? and status = 'processing'`;",
  "const b = `insert into label_creations (id, status, phase) values (?, 'processing', 'queued')`;",
  'const c = `select status, phase from label_creations where id = ?`;',
].join('\n');

const lines = (findings: Finding[], file: string, rule: string) =>
  findings.filter((f) => f.file === file && f.rule === rule).map((f) => f.line);

describe('lint: a creation changes phase only through its table', () => {
  const files = {
    workflow: 'workflows/label-creation/send.ts',
    activity: 'activities/label-creation/finalize.ts',
    service: 'src/creation/live-creation.ts',
    table: 'src/domain/creation-phases.ts',
    transitions: 'src/creation/transitions/outcomes.ts',
    sandbox: 'src/sandbox/webhook-receiver.ts',
  };
  let findings: Finding[];
  beforeAll(() => {
    findings = lint([
      ...Object.values(files).map((file) => ({ file, code: `${STATE_WRITES}\n${STATE_READS}` })),
      ...Object.values(files).map((file) => ({ file: file.replace(/\.ts$/, '-sql.ts'), code: RECORD_WRITES })),
      { file: 'src/creation/records-other.ts', code: RECORD_OTHER_WRITES },
    ]);
  }, 60_000);

  it.each([files.workflow, files.activity, files.service])('refuses every write of a state field in %s', (file) => {
    expect(lines(findings, file, 'creation-phases/state-through-table')).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it('allows them in the table’s own module, and leaves state objects of other folders alone', () => {
    expect(findings.filter((f) => f.file === files.table || f.file === files.sandbox)).toEqual([]);
  });

  it.each([files.workflow, files.activity, files.service, files.sandbox])(
    'refuses SQL writing a record’s status or phase in %s',
    (file) => {
      const sql = file.replace(/\.ts$/, '-sql.ts');
      expect(lines(findings, sql, 'creation-phases/record-through-transitions')).toEqual([1, 2, 3]);
    },
  );

  it('allows that SQL in src/creation/transitions/, and any other write or read of the record anywhere', () => {
    expect(findings.filter((f) => f.file === files.transitions.replace(/\.ts$/, '-sql.ts'))).toEqual([]);
    expect(findings.filter((f) => f.file === 'src/creation/records-other.ts')).toEqual([]);
  });
});

import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = join(__dirname, '..', '..');

/**
 * The lint configuration is ESM and jest runs CommonJS here, so a child Node reads the map and runs the allow-list
 * rule through ESLint's Linter on files of made-up modules.
 */
function fromTheMap(): {
  placed: string[];
  moduleOf: Record<string, string | null>;
  messages: Record<string, string[]>;
} {
  const fixtures = [
    'src/unplaced-module/thing.ts',
    'src/unplaced-file.ts',
    'workflows/unplaced-flow/workflow.ts',
    'scripts/unplaced-tools/run.mjs',
    'src/creation/new-service.ts',
    'src/server.ts',
    'workflows/label-creation/new-phase.ts',
    'scripts/lib/new-helper.mjs',
  ];
  const script = `
    import { Linter } from 'eslint';
    import { MODULE_MAP, PLACED, moduleOf, placedRule } from './eslint.module-map.mjs';
    const linter = new Linter({ cwd: process.cwd() });
    const config = [{ files: ['**/*.{ts,mjs}'], plugins: { map: { rules: { placed: placedRule } } }, rules: { 'map/placed': ['error', process.cwd()] } }];
    const fixtures = ${JSON.stringify(fixtures)};
    const messages = Object.fromEntries(fixtures.map((f) => [f, linter.verify('export const x = 1;\\n', config, { filename: process.cwd() + '/' + f }).map((m) => m.message)]));
    const files = JSON.parse(process.argv[1]);
    console.log(JSON.stringify({ placed: [...PLACED], moduleOf: Object.fromEntries(files.map((f) => [f, moduleOf(f)])), messages }));
  `;
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', script, JSON.stringify(projectFiles())], {
    cwd: root,
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Error(result.stderr);
  return JSON.parse(result.stdout) as ReturnType<typeof fromTheMap>;
}

function projectFiles(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (/\.(ts|mts|mjs|js)$/.test(entry.name)) out.push(relative(root, path));
    }
  };
  for (const top of ['src', 'workflows', 'activities', 'scripts']) walk(join(root, top));
  return out;
}

describe('the module map', () => {
  const map = fromTheMap();

  it('fails lint on a file of a module it does not place, in src/, workflows/ and scripts/ alike', () => {
    for (const unplaced of ['src/unplaced-module/', 'src/unplaced-file.ts', 'workflows/unplaced-flow/']) {
      const file = Object.keys(map.messages).find((f) => f.startsWith(unplaced))!;
      expect(map.messages[file]).toEqual([
        `${unplaced} is on no floor of the module map: place it in eslint.module-map.mjs and docs/architecture.md`,
      ]);
    }
    expect(map.messages['scripts/unplaced-tools/run.mjs']).toHaveLength(1);
  });

  it('lets a new file of a placed module through', () => {
    for (const placed of [
      'src/creation/new-service.ts',
      'src/server.ts',
      'workflows/label-creation/new-phase.ts',
      'scripts/lib/new-helper.mjs',
    ])
      expect(map.messages[placed]).toEqual([]);
  });

  it('places every module of src/, workflows/, activities/ and scripts/', () => {
    const unplaced = [...new Set(Object.values(map.moduleOf))].filter((m) => m && !map.placed.includes(m));
    expect(unplaced).toEqual([]);
  });

  it('is the one docs/architecture.md draws: the page names every module placed', () => {
    const page = readFileSync(join(root, 'docs', 'architecture.md'), 'utf8');
    expect(map.placed.filter((module) => !page.includes(`\`${module}\``))).toEqual([]);
  });
});
